//go:build amd64 && !purego

package lasso

import "golang.org/x/sys/cpu"

// cpuHasAVX2FMA reports whether the machine runs gramTileAVX2.
func cpuHasAVX2FMA() bool { return cpu.X86.HasAVX2 && cpu.X86.HasFMA }

// init hands gramTileKernel the assembly kernel where the CPU has AVX2
// and FMA (the same dispatch as package federate's kernels: a variable
// holding the Go twin, set once; -tags purego keeps the Go twin).
func init() {
	if cpuHasAVX2FMA() {
		gramTileKernel = gramTileAVX2
	}
}

// gramTileAVX2 is gramTileGo in AVX2+FMA assembly (gram_amd64.s). It needs
// rows >= 1 and the bounds gramTile checks.
//
//go:noescape
func gramTileAVX2(c []float64, ldc int, a, b []float64, rows int)
