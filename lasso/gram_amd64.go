//go:build amd64 && !purego

package lasso

import "golang.org/x/sys/cpu"

// cpuHasAVX2FMA reports whether the machine runs gramTileAVX2.
func cpuHasAVX2FMA() bool { return cpu.X86.HasAVX2 && cpu.X86.HasFMA }

// useAVX2FMA selects the assembly gramTile kernel; otherwise gramTileGo
// runs (with math.FMA in software on CPUs without FMA: correct, but much
// slower). Tests switch it off to compare the two kernels.
var useAVX2FMA = cpuHasAVX2FMA()

// gramTileKernel is gramTile without the bounds checks.
func gramTileKernel(c []float64, ldc int, a, b []float64, rows int) {
	if useAVX2FMA {
		gramTileAVX2(c, ldc, a, b, rows)
		return
	}
	gramTileGo(c, ldc, a, b, rows)
}

// gramTileAVX2 is gramTileGo in AVX2+FMA assembly (gram_amd64.s). It needs
// rows >= 1 and the bounds gramTile checks.
//
//go:noescape
func gramTileAVX2(c []float64, ldc int, a, b []float64, rows int)
