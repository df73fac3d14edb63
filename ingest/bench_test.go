package ingest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

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

// BenchmarkIngestSynth ingests a 500-query MSLR-shaped file (~60k rows).
func BenchmarkIngestSynth(b *testing.B) {
	dir := b.TempDir()
	in := synthFile(b, dir, 500)
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
