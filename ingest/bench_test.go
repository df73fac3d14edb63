package ingest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
)

// The benchmarks below are the measurements behind docs/bench/ingest.md.
// Full-size figures (about 1.2M rows) come from the documented command
// there; these run on smaller synthetic files so that -bench . stays quick.

// synthFile writes a seeded MSLR-shaped file of the given number of queries.
func synthFile(tb testing.TB, dir string, queries int) string {
	tb.Helper()
	p := filepath.Join(dir, "synth.txt")
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	if err := Synth(f, SynthOptions{Seed: 1, Queries: queries}); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return p
}

// benchQueries is the size of the benchmark inputs: 500 queries, ~60k rows,
// ~75 MB of MSLR-shaped text. FEDBANDIT_BENCH_QUERIES overrides it
// (10000 = full MSLR-WEB10K size).
func benchQueries() int {
	if n, err := strconv.Atoi(os.Getenv("FEDBANDIT_BENCH_QUERIES")); err == nil && n > 0 {
		return n
	}
	return 500
}

// BenchmarkIngest measures end-to-end Run (read, parse, validate, write).
func BenchmarkIngest(b *testing.B) {
	dir := b.TempDir()
	in := synthFile(b, dir, benchQueries())
	fi, _ := os.Stat(in)
	b.SetBytes(fi.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out := filepath.Join(dir, "out")
		if _, err := Run(context.Background(), Options{Inputs: []string{in}, Out: out, Force: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad57 loads the 57-column "title" feature set (protocol.md §6,
// minus the constant intercept) of an ingested synthetic dataset.
func BenchmarkLoad57(b *testing.B) {
	dir := b.TempDir()
	in := synthFile(b, dir, benchQueries())
	out := filepath.Join(dir, "out")
	if _, err := Run(context.Background(), Options{Inputs: []string{in}, Out: out}); err != nil {
		b.Fatal(err)
	}
	var cols []int
	for i := 0; i <= 24; i++ {
		cols = append(cols, 5*i+2, 5*i+4)
	}
	cols = append(cols, 126, 127, 128, 129, 130, 131)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ds, err := Load(out, cols)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(ds.Rows() * len(cols) * 8))
	}
}

// parsedRowGroups parses a synthetic file into row groups, as Run does.
func parsedRowGroups(b *testing.B) ([]*rowGroup, []string) {
	rg0parts := []string{"train"}
	dir := b.TempDir()
	in := synthFile(b, dir, benchQueries())
	data, err := os.ReadFile(in)
	if err != nil {
		b.Fatal(err)
	}
	cs := commentSchema{}
	pc := &parseConfig{nfeat: 136, labelMax: 4, cs: &cs, sources: []*source{{name: in}}}
	p := pc.parseChunk(&chunk{data: data, firstLine: 1})
	if p.err != nil {
		b.Fatal(p.err)
	}
	doc := make([]int32, p.rows)
	var rgs []*rowGroup
	for lo := 0; lo < p.rows; lo += defaultRowGroupRows {
		hi := min(lo+defaultRowGroupRows, p.rows)
		rg := newRowGroup(136, &cs, hi-lo)
		rg.append(p, 0, doc, lo, hi)
		rg.parts = []string{"train"}
		rgs = append(rgs, rg)
	}
	return rgs, rg0parts
}

// BenchmarkParse measures the line parser alone (one goroutine).
func BenchmarkParse(b *testing.B) {
	dir := b.TempDir()
	in := synthFile(b, dir, 100)
	data, err := os.ReadFile(in)
	if err != nil {
		b.Fatal(err)
	}
	cs := commentSchema{}
	pc := &parseConfig{nfeat: 136, labelMax: 4, cs: &cs, sources: []*source{{name: in}}}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := pc.parseChunk(&chunk{data: data, firstLine: 1})
		if p.err != nil {
			b.Fatal(p.err)
		}
		putFloats(p.flat)
	}
}

// BenchmarkWriter compares Parquet writers on the same row groups: ours
// (parquet-go, "parquet-go", the writer of documents.parquet), and
// arrow-go's parquet/file column writers (the writer of release 98ad0ae's
// bytes, kept in arrowwriter_test.go as an independent writer,
// "arrow-go-file"), the latter also with other codecs.
func BenchmarkWriter(b *testing.B) {
	rgs, _ := parsedRowGroups(b)
	cs := commentSchema{}
	var bytes int64
	for _, rg := range rgs {
		bytes += int64(rg.n) * (136*8 + 8 + 4 + 4)
	}
	writers := []struct {
		name string
		new  func(w io.Writer) (docsWriter, error)
	}{
		{"parquet-go", func(w io.Writer) (docsWriter, error) {
			return newColumnWriter(w, 136, &cs, defaultRowGroupRows)
		}},
		{"arrow-go-file", func(w io.Writer) (docsWriter, error) {
			return newArrowWriter(w, 136, &cs, defaultRowGroupRows)
		}},
		{"arrow-go-file-zstd", func(w io.Writer) (docsWriter, error) {
			arrowCodec = compress.Codecs.Zstd
			defer func() { arrowCodec = compress.Codecs.Snappy }()
			return newArrowWriter(w, 136, &cs, defaultRowGroupRows)
		}},
	}
	for _, wr := range writers {
		b.Run(wr.name, func(b *testing.B) {
			b.SetBytes(bytes)
			var size int64
			for i := 0; i < b.N; i++ {
				p := filepath.Join(b.TempDir(), "d.parquet")
				f, err := os.Create(p)
				if err != nil {
					b.Fatal(err)
				}
				dw, err := wr.new(f)
				if err != nil {
					b.Fatal(err)
				}
				for _, rg := range rgs {
					if err := dw.writeRowGroup(rg); err != nil {
						b.Fatal(err)
					}
				}
				if err := dw.close(); err != nil {
					b.Fatal(err)
				}
				f.Close()
				fi, _ := os.Stat(p)
				size = fi.Size()
				f.Close()
				// Every file must hold every row.
				r, err := openParquet(p)
				if err != nil {
					b.Fatal(err)
				}
				var want int64
				for _, rg := range rgs {
					want += int64(rg.n)
				}
				if r.pf.NumRows() != want {
					b.Fatalf("%s wrote %d rows, want %d", wr.name, r.pf.NumRows(), want)
				}
				r.close()
			}
			b.ReportMetric(float64(size)/1e6, "file-MB")
		})
	}
}
