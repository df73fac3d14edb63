package dpnoise

import "math/rand/v2"

// Skellam returns a draw of the symmetric Skellam law with variance
// mu = num/den: the difference of two independent Poisson(mu/2), exact.
// Skellam laws are closed under addition, so n users each adding
// Skellam(mu/n) give exactly Skellam(mu) in total (Agarwal, Kairouz & Liu
// 2021). den * (mu/2 + offset) must fit a uint64, as for Poisson.
func Skellam(src rand.Source, num, den uint64) int64 {
	if den == 0 || den >= 1<<63 {
		panic("dpnoise.Skellam: denominator out of range")
	}
	a := Poisson(src, num, 2*den)
	b := Poisson(src, num, 2*den)
	return int64(a) - int64(b)
}
