//go:build amd64 && !purego

package federate

// argmaxFirst returns the index of the first maximum of v (NaN entries
// are never selected; 0 if v[0] is NaN). Where the CPU has AVX2 it
// searches with SIMD and falls back to argmaxFirstGo if v holds a NaN.
func argmaxFirst(v []float64) int {
	if useAVX2 && len(v) > 0 {
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
