//go:build amd64 && !purego

package federate

import (
	"fmt"
	"unsafe"
)

// The AVX2/FMA kernels of the synthetic contexts (contexts_amd64.s). They
// give bit-identical results to the portable zigFastGo and normalizeGo,
// which define them.

// The kernels hard-code zigBits = 10 (layer mask 0x3FF, position shift
// 10): this fails to compile for any other value.
var _ = [1]struct{}{}[zigBits-10]

// The kernel addresses zigEntry{w, k} as 16 bytes, w at offset 0.
var _ = [1]struct{}{}[unsafe.Sizeof(zigEntry{})-16+unsafe.Offsetof(zigEntry{}.w)]

// It writes zigRejStep{pos, mask, draws} as 40 bytes at offsets 0, 4, 8.
var _ = [1]struct{}{}[unsafe.Sizeof(zigRejStep{})-40+unsafe.Offsetof(zigRejStep{}.mask)-4+unsafe.Offsetof(zigRejStep{}.draws)-8]

// zigFastAsm is zigFast by the assembly kernel, after checking the slices
// the kernel writes (it has no bounds checks of its own): it panics where
// zigFastGo could write out of range.
func zigFastAsm(z []float64, s *[16]uint64, rej []zigRejStep, t *[zigLayers]zigEntry) int {
	if len(z)%8 != 0 || len(rej) < len(z)/8 {
		panic(fmt.Sprintf("federate: zigFast with len(z) = %d, len(rej) = %d", len(z), len(rej)))
	}
	return zigFastAVX2(z, s, rej, t)
}

// normalizeAsm is normalize by the assembly kernel, after checking the
// slices' lengths (the kernel has no bounds checks of its own).
func normalizeAsm(x, mu, z []float64, nb int, theta []float64) {
	d := len(theta)
	if nb < 0 || d < 2 || len(x) < panelLen(nb*panelLanes, d) || len(mu) < nb*panelLanes || len(z) < nb*panelLanes*(d-1) {
		panic(fmt.Sprintf("federate: normalize with nb = %d, d = %d, len(x) = %d, len(mu) = %d, len(z) = %d", nb, d, len(x), len(mu), len(z)))
	}
	if nb == 0 {
		return
	}
	normalizeAVX2(x, mu, z, nb, theta)
}

// zigFastAVX2 is zigFast on the table t (zigTable; tests pass others to
// force the slow path). It relies on the layouts of zigEntry and
// zigRejStep, checked above.
//
//go:noescape
func zigFastAVX2(z []float64, s *[16]uint64, rej []zigRejStep, t *[zigLayers]zigEntry) int

// normalizeAVX2 is normalize.
//
//go:noescape
func normalizeAVX2(x, mu, z []float64, nb int, theta []float64)
