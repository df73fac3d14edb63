//go:build amd64 && !purego

package federate

import "unsafe"

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

func init() {
	if useAVX2 {
		zigFast = zigFastAVX2
		normalize = normalizeAVX2
	}
}

// zigFastAVX2 is zigFast on the table t (zigTable; tests pass others to
// force the slow path). It relies on the layouts of zigEntry and
// zigRejStep, checked below.
//
//go:noescape
func zigFastAVX2(z []float64, s *[16]uint64, rej []zigRejStep, t *[zigLayers]zigEntry) int

// normalizeAVX2 is normalize.
//
//go:noescape
func normalizeAVX2(x, mu, z []float64, nb int, theta []float64)
