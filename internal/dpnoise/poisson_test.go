package dpnoise

import (
	"math"
	"testing"
)

func poissonPMF(lambda float64) func(int64) float64 {
	return func(k int64) float64 {
		if k < 0 {
			return 0
		}
		lg, _ := math.Lgamma(float64(k) + 1)
		return math.Exp(float64(k)*math.Log(lambda) - lambda - lg)
	}
}

// Mutation controls (run 2026-11-25): skipping the last window factor for
// d > 0 (j < n instead of j <= n in acceptPoisson) fails the chi-square
// (40878 > 33.4 at lambda = 0.3); drawing the right tail's geometric with
// rho = lambda/(m+W) (envelope and acceptance out of step) fails it too
// (489 > 33.4).
func TestPoisson(t *testing.T) {
	const n = 100000
	for _, c := range []struct{ num, den uint64 }{{3, 10}, {5, 2}, {17, 1}, {4001, 4}, {1 << 36, 1 << 16}} {
		lambda := float64(c.num) / float64(c.den)
		src := source("poisson")
		counts := map[int64]int{}
		xs := make([]float64, n)
		for i := range xs {
			k := Poisson(src, c.num, c.den)
			counts[int64(k)]++
			xs[i] = float64(k)
		}
		sd := math.Sqrt(lambda)
		lo, hi := int64(math.Max(0, lambda-8*sd-3)), int64(lambda+8*sd+5)
		chiSquare(t, "poisson", counts, n, poissonPMF(lambda), lo, hi)
		meanVar(t, "poisson moments", xs, lambda, lambda, lambda*(1+3*lambda))
	}
}

// A huge mean (the aggregate Skellam noise of a large batch): moments only.
func TestPoissonLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large mean")
	}
	const n = 400
	lambda := float64(uint64(1)<<40+12345) / (1 << 10) // about 1.07e9
	src := source("poisson-large")
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(Poisson(src, 1<<40+12345, 1<<10))
	}
	meanVar(t, "poisson 1e9", xs, lambda, lambda, lambda*(1+3*lambda))
}
