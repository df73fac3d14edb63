package dpnoise

import (
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/internal/mutation"
)

// Skellam returns a draw of the symmetric Skellam law with variance
// mu = num/den: the difference of two independent Poisson(mu/2), exact.
// Skellam laws are closed under addition, so n users each adding
// Skellam(mu/n) give exactly Skellam(mu) in total (Agarwal, Kairouz & Liu
// 2021). den * (mu/2 + offset) must fit a uint64, as for Poisson.
func Skellam(src rand.Source, num, den uint64) int64 {
	if den == 0 || den >= 1<<63 {
		panic("dpnoise.Skellam: denominator out of range")
	}
	half := 2 * den
	if mutation.On("N1") { // variance halved: Poisson means mu/4
		half = 4 * den
	}
	a := Poisson(src, num, half)
	b := Poisson(src, num, half)
	return int64(a) - int64(b)
}
