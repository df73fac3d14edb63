package federate

import (
	"github.com/fedbandit/fedbandit/internal/vec"
	"github.com/fedbandit/fedbandit/internal/ziggurat"
)

// kernelTable is the set of hand-written kernels a run computes with: the
// vector kernels (UCB scores, learner steps, first maximum, context
// normalisation; package vec) and the fast path of the ContextsFast
// ziggurat (package ziggurat). Each is either the AVX2/FMA assembly
// kernel or its portable Go twin, with the same bits.
type kernelTable struct {
	vec.Kernels
	zig ziggurat.Kernel
}

// kern is the table every run uses: the assembly kernels where the build
// and the CPU run them, else the Go twins (-tags purego keeps the Go
// twins on every machine). Tests swap the whole table to compare the two
// (withKernels); nothing else assigns it.
var kern = bestKernels()

// bestKernels returns the assembly kernels where the CPU has them.
func bestKernels() kernelTable { return kernelTable{vec.Best(), ziggurat.Best()} }

// portableKernels returns the Go twins.
func portableKernels() kernelTable { return kernelTable{vec.Portable(), ziggurat.Portable()} }
