//go:build amd64 && !purego

package vec

import "golang.org/x/sys/cpu"

// useAVX2 reports whether the machine runs the assembly kernels: the CPU
// has AVX2 and FMA (and the OS saves the ymm registers, which cpu checks).
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// Assembly returns the assembly kernels and true where the CPU has AVX2
// and FMA; elsewhere, and in builds with the purego tag, the Go twins and
// false.
func Assembly() (Kernels, bool) {
	if !useAVX2 {
		return Portable(), false
	}
	return Kernels{
		Name:        "avx2+fma",
		UCBScores:   ucbScoresAsm,
		Normalize:   normalizeAsm,
		ArgmaxFirst: argmaxFirstAsm,
		AddObs:      addObsAsm,
		Learn:       learnAsm,
	}, true
}
