package ltr

import (
	"os"
	"testing"

	"github.com/fedbandit/fedbandit/lasso"
)

// BenchmarkBuildMSLR builds the paper's instance (title set, reference
// model, M = 10 contiguous) from a prepared MSLR-shaped dataset named by
// FEDBANDIT_BENCH_MSLR, after `prep fit DIR --features title --alpha 1`
// (see docs/bench/lasso.md).
func BenchmarkBuildMSLR(b *testing.B) {
	dir := os.Getenv("FEDBANDIT_BENCH_MSLR")
	if dir == "" {
		b.Skip("set FEDBANDIT_BENCH_MSLR to a prepared MSLR-shaped dataset directory")
	}
	for i := 0; i < b.N; i++ {
		d, err := Build(Options{Dataset: dir, Features: "title", Model: lasso.ModelReference, Silos: 10})
		if err != nil {
			b.Fatal(err)
		}
		if d.Dim != 57 {
			b.Fatalf("d = %d", d.Dim)
		}
	}
}
