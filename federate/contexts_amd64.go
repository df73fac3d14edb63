//go:build amd64 && !purego

package federate

// The AVX2/FMA kernels of the synthetic contexts (contexts_amd64.s). They
// give bit-identical results to the portable zigFastGo and normalizeGo,
// which define them.

// The kernels hard-code zigBits = 10 (layer mask 0x3FF, position shift
// 10): this fails to compile for any other value.
var _ = [1]struct{}{}[zigBits-10]

func init() {
	if useAVX2 {
		zigFast = zigFastAVX2
		normalize = normalizeAVX2
	}
}

// zigFastAVX2 is zigFast on the tables k and w (zigK and zigW; tests pass
// others to force the slow path).
//
//go:noescape
func zigFastAVX2(z []float64, s *[16]uint64, rej []uint32, k *[zigLayers]uint32, w *[zigLayers]float64) int

// normalizeAVX2 is normalize.
//
//go:noescape
func normalizeAVX2(x, mu, z []float64, nb int, theta []float64)
