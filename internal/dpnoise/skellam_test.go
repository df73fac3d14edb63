package dpnoise

import (
	"math"
	"testing"
)

// skellamPMF convolves two Poisson(mu/2) pmfs: P(k) = e^-mu I_|k|(mu).
func skellamPMF(mu float64) func(int64) float64 {
	p := poissonPMF(mu / 2)
	lim := int64(mu/2 + 40*math.Sqrt(mu/2+1) + 20)
	return func(k int64) float64 {
		var s float64
		for a := max(k, 0); a <= lim; a++ {
			s += p(a) * p(a-k)
		}
		return s
	}
}

// Mutation control (run 2026-11-25): drawing the two Poissons with mean mu
// instead of mu/2 (variance 2 mu, the wrong parametrisation privacy.md T10
// warns about) fails the chi-square (49129 > 54.6) and the variance.
func TestSkellam(t *testing.T) {
	const n = 100000
	for _, c := range []struct{ num, den uint64 }{{3, 1}, {101, 2}} {
		mu := float64(c.num) / float64(c.den)
		src := source("skellam")
		counts := map[int64]int{}
		xs := make([]float64, n)
		for i := range xs {
			y := Skellam(src, c.num, c.den)
			counts[y]++
			xs[i] = float64(y)
		}
		hi := int64(8*math.Sqrt(mu)) + 3
		chiSquare(t, "skellam", counts, n, skellamPMF(mu), -hi, hi)
		meanVar(t, "skellam moments", xs, 0, mu, mu+3*mu*mu)
	}
}

// M users each adding Skellam(mu/M) give Skellam(mu): chi-square of the
// sum of 16 shares of variance 25/8 against Skellam(50).
func TestSkellamShares(t *testing.T) {
	const n, m = 50000, 16
	src := source("skellam-shares")
	counts := map[int64]int{}
	for range n {
		var s int64
		for range m {
			s += Skellam(src, 25, 8)
		}
		counts[s]++
	}
	chiSquare(t, "sum of 16 Skellam(50/16)", counts, n, skellamPMF(50), -60, 60)
}
