package dpnoise

import (
	"math"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/internal/fmath"
	"github.com/fedbandit/fedbandit/internal/mutation"
)

// Polya returns a draw of the Polya (negative binomial) law with
// parameters r > 0 and p in (0, 1): P(k) = Gamma(k+r)/(k! Gamma(r))
// p^k (1-p)^r, drawn as Poisson(lambda) with lambda ~ Gamma(shape r,
// scale p/(1-p)). n users each adding Polya(1/n, p) - Polya(1/n, p) give
// in total the discrete Laplace with parameter p (Goryczka & Xiong 2015,
// Theorem 5.1), the share of Dist-DP-SE.
//
// NOT EXACT: the Gamma variate is drawn in floating point (Marsaglia &
// Tsang) and lambda is rounded to a multiple of 2^-32 (2^-20 above 2^8) before the exact
// Poisson draw, so the law of a share, and of a sum of shares, is only
// approximately the stated one. Where the sum's law is what matters, draw
// the total once with DiscreteLaplace, which is exact.
func Polya(src rand.Source, r, p float64) uint64 {
	if !(r > 0) || !(p > 0 && p < 1) {
		panic("dpnoise.Polya: need r > 0 and 0 < p < 1")
	}
	lambda := gamma(rand.New(src), r) * p / (1 - p)
	if mutation.On("N2") { // the Gamma scale inverted, (1-p)/p (the authors' script's)
		lambda = lambda / p * (1 - p) / p * (1 - p)
	}
	const scale = 1 << 32
	if lambda*scale < 1<<40 {
		return Poisson(src, uint64(math.Round(lambda*scale)), scale)
	}
	if lambda >= 1<<40 {
		panic("dpnoise.Polya: Gamma draw too large")
	}
	return Poisson(src, uint64(math.Round(lambda*(1<<20))), 1<<20)
}

// gamma draws Gamma(shape a, scale 1) by Marsaglia & Tsang (2000); for
// a < 1 it uses Gamma(a+1) U^(1/a).
func gamma(rng *rand.Rand, a float64) float64 {
	if a < 1 {
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		return gamma(rng, a+1) * fmath.Pow(u, 1/a)
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		var x, v float64
		for {
			x = rng.NormFloat64()
			v = 1 + float64(c*x)
			if v > 0 {
				break
			}
		}
		v = float64(v * v * v)
		u := rng.Float64()
		if u < 1-float64(0.0331*x*x*x*x) || fmath.Log(u) < float64(0.5*x*x)+float64(d*(1-v+fmath.Log(v))) {
			return d * v
		}
	}
}
