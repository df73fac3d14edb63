package federate

import "math"

// ClipX writes into dst the feature vector x made safe for aggregation:
// non-finite entries (NaN, +-Inf) become 0, then the vector is projected
// onto the unit ball (scaled to ||x|| = 1 if longer). The norm is computed
// with scaling so that huge finite entries (1e308) do not overflow. This
// is what bounds a user's Gram contribution ||x x^T||_F = ||x||^2 <= 1.
func ClipX(dst, x []float64) {
	var m float64
	for j, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			v = 0
		}
		dst[j] = v
		m = max(m, math.Abs(v))
	}
	if m == 0 {
		return
	}
	var ss float64
	for _, v := range dst {
		r := v / m
		ss += r * r
	}
	nrm := m * math.Sqrt(ss)
	if nrm <= 1 {
		return
	}
	// Divide by m first, then by the scaled norm, so that no intermediate
	// overflows or underflows for extreme inputs.
	s := math.Sqrt(ss)
	for j, v := range dst {
		dst[j] = v / m / s
	}
}

// ClipY clamps an observed reward to [lo, hi]; NaN maps to lo (a fixed
// valid value: the record is kept, never skipped, so that the schedule and
// counts do not depend on data).
func ClipY(y, lo, hi float64) float64 {
	if math.IsNaN(y) {
		return lo
	}
	return min(max(y, lo), hi)
}
