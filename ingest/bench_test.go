package ingest

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/snappy"
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
		rgs = append(rgs, rg)
	}
	return rgs, []string{"train"}
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

// BenchmarkWriter compares Parquet writers on the same row groups:
// internal/parquetfile ("parquetfile", the writer of documents.parquet),
// arrow-go's parquet/file column writers (its predecessor, kept as the
// oracle in arrowwriter_test.go, "arrow-go-file"; its files
// are byte-for-byte those of the pqarrow writer it replaced, whose case was
// "pqarrow" up to commit 5cab670), the same with other codecs, and
// parquet-go. parquet-go's Group schema orders the columns by name, so its
// files would not keep documents.parquet's column order either.
func BenchmarkWriter(b *testing.B) {
	rgs, parts := parsedRowGroups(b)
	cs := commentSchema{}
	var bytes int64
	for _, rg := range rgs {
		bytes += int64(rg.n) * (136*8 + 8 + 4 + 4)
	}
	writers := []struct {
		name string
		new  func(w io.Writer) (docsWriter, error)
	}{
		{"parquetfile", func(w io.Writer) (docsWriter, error) {
			return newColumnWriter(w, 136, &cs, &parts, defaultRowGroupRows)
		}},
		{"arrow-go-file", func(w io.Writer) (docsWriter, error) {
			return newArrowWriter(w, 136, &cs, &parts, defaultRowGroupRows)
		}},
		{"arrow-go-file-lz4raw", func(w io.Writer) (docsWriter, error) {
			arrowCodec = compress.Codecs.Lz4Raw
			defer func() { arrowCodec = compress.Codecs.Snappy }()
			return newArrowWriter(w, 136, &cs, &parts, defaultRowGroupRows)
		}},
		{"arrow-go-file-zstd", func(w io.Writer) (docsWriter, error) {
			arrowCodec = compress.Codecs.Zstd
			defer func() { arrowCodec = compress.Codecs.Snappy }()
			return newArrowWriter(w, 136, &cs, &parts, defaultRowGroupRows)
		}},
		{"arrow-go-file-uncompressed", func(w io.Writer) (docsWriter, error) {
			arrowCodec = compress.Codecs.Uncompressed
			defer func() { arrowCodec = compress.Codecs.Snappy }()
			return newArrowWriter(w, 136, &cs, &parts, defaultRowGroupRows)
		}},
		{"parquet-go", func(w io.Writer) (docsWriter, error) { return newParquetGoWriter(w, 136, parts), nil }},
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
				// Both files must hold every row.
				r, err := file.OpenParquetFile(p, false)
				if err != nil {
					b.Fatal(err)
				}
				var want int64
				for _, rg := range rgs {
					want += int64(rg.n)
				}
				if r.NumRows() != want {
					b.Fatalf("%s wrote %d rows, want %d", wr.name, r.NumRows(), want)
				}
				r.Close()
			}
			b.ReportMetric(float64(size)/1e6, "file-MB")
		})
	}
}

// parquetGoWriter writes the same columns with github.com/parquet-go/parquet-go
// (Snappy, plain encoding), column by column through its column writers
// (its row-group buffers are written row by row). Benchmark only.
type parquetGoWriter struct {
	w     *pq.GenericWriter[any]
	parts []string
	vals  []pq.Value
}

func newParquetGoWriter(w io.Writer, nfeat int, parts []string) *parquetGoWriter {
	g := pq.Group{
		"qid":   pq.Leaf(pq.Int64Type),
		"doc":   pq.Leaf(pq.Int32Type),
		"label": pq.Leaf(pq.Int32Type),
		"part":  pq.String(),
	}
	for j := 1; j <= nfeat; j++ {
		g["f"+strconv.Itoa(j)] = pq.Leaf(pq.DoubleType)
	}
	schema := pq.NewSchema("schema", g)
	return &parquetGoWriter{
		w:     pq.NewGenericWriter[any](w, schema, pq.Compression(&snappy.Codec{}), pq.CreatedBy("fedbandit", "bench", "")),
		parts: parts,
	}
}

func (p *parquetGoWriter) writeRowGroup(rg *rowGroup) error {
	cws := p.w.ColumnWriters()
	schema := p.w.Schema()
	for ci, col := range schema.Columns() {
		name := col[0]
		vals := p.vals[:0]
		switch {
		case name == "qid":
			for _, v := range rg.qid {
				vals = append(vals, pq.Int64Value(v).Level(0, 0, ci))
			}
		case name == "doc":
			for _, v := range rg.doc {
				vals = append(vals, pq.Int32Value(v).Level(0, 0, ci))
			}
		case name == "label":
			for _, v := range rg.label {
				vals = append(vals, pq.Int32Value(v).Level(0, 0, ci))
			}
		case name == "part":
			for _, v := range rg.part {
				vals = append(vals, pq.ByteArrayValue([]byte(p.parts[v])).Level(0, 0, ci))
			}
		default:
			j, _ := strconv.Atoi(name[1:])
			for _, v := range rg.x[j-1] {
				vals = append(vals, pq.DoubleValue(v).Level(0, 0, ci))
			}
		}
		if _, err := cws[ci].WriteRowValues(vals); err != nil {
			return err
		}
		p.vals = vals
	}
	return p.w.Flush()
}

func (p *parquetGoWriter) close() error { return p.w.Close() }
