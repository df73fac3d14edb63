//go:build amd64 && !purego

package vec

// argmaxFirstAsm is Kernels.ArgmaxFirst by SIMD search: argmaxAVX2, falling back to
// argmaxFirstGo if v holds a NaN.
func argmaxFirstAsm(v []float64) int {
	if len(v) > 0 {
		if a := argmaxAVX2(v); a >= 0 {
			return a
		}
	}
	return argmaxFirstGo(v)
}

// argmaxAVX2 is the SIMD search (argmax_amd64.s): the first maximum of v
// (len(v) >= 1), or -1 if v holds a NaN.
//
//go:noescape
func argmaxAVX2(v []float64) int
