package vec

// argmaxFirstGo is the portable ArgmaxFirst: the index of the first
// maximum of v (NaN entries are never selected; 0 if v[0] is NaN).
func argmaxFirstGo(v []float64) int {
	best, top := 0, v[0]
	for a, x := range v {
		if x > top {
			best, top = a, x
		}
	}
	return best
}
