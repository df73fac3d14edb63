//go:build amd64 && !purego

package ziggurat

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// The AVX2/FMA kernel of the fast path (fast_amd64.s). It gives
// bit-identical results to the portable zigFastGo, which defines it.

// useAVX2 reports whether the machine runs the assembly kernel: the CPU
// has AVX2 and FMA (and the OS saves the ymm registers, which cpu checks).
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// Assembly returns the assembly kernel and true where the CPU has AVX2
// and FMA; elsewhere, and in builds with the purego tag, the portable
// kernel and false.
func Assembly() (Kernel, bool) {
	if !useAVX2 {
		return Portable(), false
	}
	return Kernel{"avx2+fma", zigFastAsm}, true
}

// The kernel hard-codes zigBits = 10 (layer mask 0x3FF, position shift
// 10): this fails to compile for any other value.
var _ = [1]struct{}{}[zigBits-10]

// The kernel addresses zigEntry{w, k} as 16 bytes, w at offset 0.
var _ = [1]struct{}{}[unsafe.Sizeof(zigEntry{})-16+unsafe.Offsetof(zigEntry{}.w)]

// It writes RejStep{pos, mask, draws} as 40 bytes at offsets 0, 4, 8.
var _ = [1]struct{}{}[unsafe.Sizeof(RejStep{})-40+unsafe.Offsetof(RejStep{}.mask)-4+unsafe.Offsetof(RejStep{}.draws)-8]

// zigFastAsm is zigFastGo by the assembly kernel, after checking the
// slices the kernel writes (it has no bounds checks of its own): it
// panics where zigFastGo could write out of range.
func zigFastAsm(z []float64, s *[16]uint64, rej []RejStep, t *[zigLayers]zigEntry) int {
	if len(z)%8 != 0 || len(rej) < len(z)/8 {
		panic(fmt.Sprintf("ziggurat: fast path with len(z) = %d, len(rej) = %d", len(z), len(rej)))
	}
	return zigFastAVX2(z, s, rej, t)
}

// zigFastAVX2 is zigFastGo on the table t (zigTable; tests pass others to
// force the slow path). It relies on the layouts of zigEntry and
// RejStep, checked above.
//
//go:noescape
func zigFastAVX2(z []float64, s *[16]uint64, rej []RejStep, t *[zigLayers]zigEntry) int
