package federate

import "math"

// ClipX writes into dst the feature vector x made safe for aggregation:
// non-finite entries (NaN, +-Inf) become 0, then the vector is projected
// onto the unit ball. The guarantee, which bounds a user's Gram
// contribution ||x x^T||_F = ||x||^2 <= 1, is that the result's exact
// Euclidean norm is at most 1, whatever the input (huge, tiny, subnormal
// or non-finite entries included). A vector whose squared norm is below
// 1 - (d+10) 2^-52 is returned unchanged (after the NaN/Inf
// replacement); a longer one is scaled by one factor to a norm in
// [1 - 2(d+10) 2^-52, 1] (for d < 2^40). Huge finite entries (1e308),
// whose squares overflow, are first scaled by a power of two.
//
// Why the bound holds: the sum of squares ss is accumulated with fused
// multiply-adds (sumSquares), so it is within a relative (d+1) 2^-53 of
// the exact sum, plus at most d 2^-1075 absolute from underflow. A vector
// is kept only if ss <= 1 - eps with eps = (d+10) 2^-52, so its exact
// squared norm is below 1. Otherwise (ss > 1/2, so underflow is
// negligible) every entry is multiplied by s = (1 - eps)/sqrt(ss), which
// takes three roundings, and rounded once more: the exact norm of the
// result is at most (1 - eps)(1 + 2^-53)^4 sqrt(1 + (d+1) 2^-52) < 1.
// The common case divides once, not d times.
func ClipX(dst, x []float64) {
	dst = dst[:len(x)]
	// The NaN/Inf replacement and sumSquares(dst) in one pass: the same
	// two interleaved sums.
	var s0, s1 float64
	j := 0
	for ; j+1 < len(x); j += 2 {
		a, b := finite(x[j]), finite(x[j+1])
		dst[j], dst[j+1] = a, b
		s0 = math.FMA(a, a, s0)
		s1 = math.FMA(b, b, s1)
	}
	if j < len(x) {
		a := finite(x[j])
		dst[j] = a
		s0 = math.FMA(a, a, s0)
	}
	ss := s0 + s1
	eps := float64(float64(len(x)+10) * 0x1p-52)
	if ss <= 1-eps {
		return
	}
	if ss > math.MaxFloat64 {
		// The squares overflowed (the partial sums only grow, so a finite
		// ss means none did): scale by the power of two k = 2^-e, m < 2^e
		// for the largest magnitude m. That is exact except for entries
		// that underflow, and the bound below is argued on the scaled
		// vector itself, so the rounding does not matter.
		var m float64
		for _, v := range dst {
			m = max(m, math.Abs(v))
		}
		_, e := math.Frexp(m)
		k := math.Ldexp(1, -e)
		for j, v := range dst {
			dst[j] = v * k
		}
		ss = sumSquares(dst)
	}
	s := (1 - eps) / math.Sqrt(ss)
	for j, v := range dst {
		dst[j] = v * s
	}
}

// finite returns v, or 0 if v is NaN or +-Inf.
func finite(v float64) float64 {
	// !(|v| <= MaxFloat64) is true for NaN and +-Inf only.
	if !(math.Abs(v) <= math.MaxFloat64) {
		return 0
	}
	return v
}

// sumSquares returns sum_j v_j^2 accumulated with fused multiply-adds in
// two interleaved sums (even and odd j), added at the end: each partial
// sum, and so the total, is within a relative (len(v)+1) 2^-53 of exact.
func sumSquares(v []float64) float64 {
	var s0, s1 float64
	j := 0
	for ; j+1 < len(v); j += 2 {
		s0 = math.FMA(v[j], v[j], s0)
		s1 = math.FMA(v[j+1], v[j+1], s1)
	}
	if j < len(v) {
		s0 = math.FMA(v[j], v[j], s0)
	}
	return s0 + s1
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
