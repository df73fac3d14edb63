package lasso

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/fedbandit/fedbandit/features"
	"github.com/fedbandit/fedbandit/ingest"
)

// Benchmarks run on a prepared MSLR-WEB10K-shaped dataset named by
// FEDBANDIT_BENCH_MSLR (see docs/bench/lasso.md):
//
//	prep synth --out /tmp/mslr-synth.txt
//	prep ingest /tmp/mslr-synth.txt --out /tmp/mslr10k
//	FEDBANDIT_BENCH_MSLR=/tmp/mslr10k go test -run '^$' -bench . -benchtime 3x ./lasso/
func benchDataset(b *testing.B) string {
	dir := os.Getenv("FEDBANDIT_BENCH_MSLR")
	if dir == "" {
		b.Skip("set FEDBANDIT_BENCH_MSLR to a prepared MSLR-shaped dataset directory (see docs/bench/lasso.md)")
	}
	return dir
}

func benchSource(b *testing.B) *DatasetSource {
	dir := benchDataset(b)
	set, err := features.Resolve(features.Title, features.MSLRFeatures, features.DefaultIntercept)
	if err != nil {
		b.Fatal(err)
	}
	ds, err := ingest.Load(dir, set.Columns)
	if err != nil {
		b.Fatal(err)
	}
	src, err := NewDatasetSource(ds, set, false)
	if err != nil {
		b.Fatal(err)
	}
	return src
}

// BenchmarkLoadTitle reads the title set's 56 columns from Parquet.
func BenchmarkLoadTitle(b *testing.B) {
	dir := benchDataset(b)
	set, _ := features.Resolve(features.Title, features.MSLRFeatures, features.DefaultIntercept)
	for i := 0; i < b.N; i++ {
		if _, err := ingest.Load(dir, set.Columns); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGramPass is the one streaming pass building the statistics of
// the title design (1.2M x 57) from the loaded dataset.
func BenchmarkGramPass(b *testing.B) {
	src := benchSource(b)
	for _, w := range []int{1, 2} {
		b.Run(map[int]string{1: "workers=1", 2: "workers=2"}[w], func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := ComputeMoments(context.Background(), src, nil, 1, w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAddBlock is the per-chunk work of the Gram pass without I/O: the
// moments of one chunk of chunkRows random rows of 58 columns (the title
// design with its target), on one core.
func BenchmarkAddBlock(b *testing.B) {
	const p = 58
	r := rand.New(rand.NewPCG(1, 2))
	z := make([]float64, chunkRows*p)
	for i := range z {
		z[i] = r.NormFloat64()
	}
	var s gramScratch
	m := NewMoments(p)
	b.SetBytes(int64(len(z) * 8))
	for i := 0; i < b.N; i++ {
		m.addBlock(z, chunkRows, &s)
	}
}

// BenchmarkSolve is the coordinate descent alone (alpha = 1, the reference).
func BenchmarkSolve(b *testing.B) {
	src := benchSource(b)
	ms, err := ComputeMoments(context.Background(), src, nil, 1, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := FitMoments(ms[0], Options{Alpha: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFitAlpha is `prep fit DIR --features title --alpha 1` end to
// end: load, statistics, solve, artifact.
func BenchmarkFitAlpha(b *testing.B) {
	dir := benchDataset(b)
	for i := 0; i < b.N; i++ {
		if _, err := FitDataset(context.Background(), dir, FitOptions{Log: quiet, Features: features.Title, Lasso: Options{Alpha: 1}}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCV is `prep fit DIR --features title --cv` (5 folds grouped by
// query, 10 alphas) end to end.
func BenchmarkCV(b *testing.B) {
	dir := benchDataset(b)
	for i := 0; i < b.N; i++ {
		if _, err := FitDataset(context.Background(), dir, FitOptions{Log: quiet, Features: features.Title, Lasso: Options{CV: &CVOptions{Folds: 5, NAlphas: 10}}}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDumpBenchDesign writes the title design of the benchmark dataset as
// raw little-endian float64 (X.f64 row-major n x 57, y.f64) into
// FEDBANDIT_BENCH_DUMP, for testdata/bench_sklearn.py. Skipped unless both
// variables are set.
func TestDumpBenchDesign(t *testing.T) {
	out := os.Getenv("FEDBANDIT_BENCH_DUMP")
	if out == "" || os.Getenv("FEDBANDIT_BENCH_MSLR") == "" {
		t.Skip("set FEDBANDIT_BENCH_MSLR and FEDBANDIT_BENCH_DUMP to dump the benchmark design")
	}
	dir := os.Getenv("FEDBANDIT_BENCH_MSLR")
	set, _ := features.Resolve(features.Title, features.MSLRFeatures, features.DefaultIntercept)
	ds, err := ingest.Load(dir, set.Columns)
	if err != nil {
		t.Fatal(err)
	}
	src, _ := NewDatasetSource(ds, set, false)
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	fx, err := os.Create(filepath.Join(out, "X.f64"))
	if err != nil {
		t.Fatal(err)
	}
	fy, err := os.Create(filepath.Join(out, "y.f64"))
	if err != nil {
		t.Fatal(err)
	}
	d := src.Dim()
	var buf []float64
	row := make([]byte, 8*d)
	for q := 0; q < src.Len(); q++ {
		n := src.Rows(q)
		if cap(buf) < n*(d+1) {
			buf = make([]float64, n*(d+1))
		}
		buf = buf[:n*(d+1)]
		src.Fill(q, buf)
		for r := 0; r < n; r++ {
			for j := 0; j < d; j++ {
				binary.LittleEndian.PutUint64(row[8*j:], math.Float64bits(buf[r*(d+1)+j]))
			}
			fx.Write(row)
			var yb [8]byte
			binary.LittleEndian.PutUint64(yb[:], math.Float64bits(buf[r*(d+1)+d]))
			fy.Write(yb[:])
		}
	}
	if err := fx.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fy.Close(); err != nil {
		t.Fatal(err)
	}
}
