//go:build amd64 && !purego

package numpyrand

import "golang.org/x/sys/cpu"

// useAVX2 reports whether the refill runs the AVX2 kernels (mt_amd64.s).
var useAVX2 = cpu.X86.HasAVX2

func init() {
	if useAVX2 {
		twist, temper = twistAsm, temperAVX2
	}
	if useAVX2 && cpu.X86.HasFMA {
		polar = polarAsm
	}
}

// twistAsm is twist by the AVX2 kernel, after checking the lengths (the
// kernel has no bounds checks of its own).
func twistAsm(dst, next, far []uint32) {
	n := len(dst)
	if n%8 != 0 || len(next) < n || len(far) < n {
		panic("numpyrand: twist with ragged slices")
	}
	if n > 0 {
		twistAVX2(&dst[0], &next[0], &far[0], n)
	}
}

// twistAVX2 is the kernel of twist (n a multiple of 8).
//
//go:noescape
func twistAVX2(dst, next, far *uint32, n int)

// temperAVX2 is the kernel of temper.
//
//go:noescape
func temperAVX2(out, mt *[624]uint32)

// polarAVX2 is the kernel of polar (mt_amd64.s).
//
//go:noescape
func polarAVX2(dst, x1, x2, r2 *float64, n int, tab *[93][3]float64, c *[polarConsts]uint64) (undecided uint64)

// polarAsm is polar by the AVX2 kernel, after checking the lengths.
func polarAsm(dst, x1, x2, r2 []float64) uint64 {
	n := len(r2)
	if n%4 != 0 || n > 64 || len(x1) < n || len(x2) < n || len(dst) < 2*n {
		panic("numpyrand: polar with ragged slices")
	}
	if n == 0 {
		return 0
	}
	return polarAVX2(&dst[0], &x1[0], &x2[0], &r2[0], n, &logTable, &polarConstTable)
}
