// Package stattest holds the small statistical checks that the tests of
// several packages share (the ziggurat sampler's and the simulator's
// context streams, the kernels' portable and assembly twins), so that
// each is written once.
package stattest

import (
	"fmt"
	"math"
	"sort"
)

// KS is the one-sample Kolmogorov-Smirnov test of x against the CDF cdf at
// alpha = 1e-6: an error when the KS distance D exceeds 2.6905/sqrt(n), the
// large-sample critical value.
func KS(x []float64, cdf func(float64) float64) error {
	y := append([]float64(nil), x...)
	sort.Float64s(y)
	n := float64(len(y))
	var dmax float64
	for i, v := range y {
		c := cdf(v)
		dmax = max(dmax, math.Abs(c-float64(i)/n), math.Abs(c-float64(i+1)/n))
	}
	if crit := 2.6905 / math.Sqrt(n); dmax > crit {
		return fmt.Errorf("KS distance %.5f > %.5f", dmax, crit)
	}
	return nil
}

// SameBits reports whether a and b hold the same float64s bit for bit
// (NaNs with the same payload equal, +0 and -0 not).
func SameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
