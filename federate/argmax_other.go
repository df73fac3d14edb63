//go:build !amd64 || purego

package federate

// argmaxFirst returns the index of the first maximum of v (NaN entries
// are never selected; 0 if v[0] is NaN).
func argmaxFirst(v []float64) int { return argmaxFirstGo(v) }
