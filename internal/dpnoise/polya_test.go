package dpnoise

import (
	"math"
	"testing"
)

// nbPMF is the Polya pmf Gamma(k+r)/(k! Gamma(r)) p^k (1-p)^r.
func nbPMF(r, p float64) func(int64) float64 {
	lr, _ := math.Lgamma(r)
	return func(k int64) float64 {
		if k < 0 {
			return 0
		}
		a, _ := math.Lgamma(float64(k) + r)
		b, _ := math.Lgamma(float64(k) + 1)
		return math.Exp(a - b - lr + float64(k)*math.Log(p) + r*math.Log(1-p))
	}
}

// The share's law is approximate (floating-point Gamma), but far closer
// than any test of this size can see; the sum of n shares' differences must
// match the discrete Laplace with parameter p.
//
// Mutation control (run 2026-11-25): the authors' script's Gamma scale
// (1-p)/p instead of p/(1-p) fails both tests (chi-square 10900 > 56.5 for one
// share; the sum of shares collapses to a spread far below 14).
func TestPolya(t *testing.T) {
	const n = 100000
	src := source("polya")
	counts := map[int64]int{}
	for range n {
		counts[int64(Polya(src, 0.5, 0.6))]++
	}
	chiSquare(t, "polya(0.5, 0.6)", counts, n, nbPMF(0.5, 0.6), 0, 40)
}

func TestPolyaSharesSumToDiscreteLaplace(t *testing.T) {
	const n, users = 40000, 50
	p := math.Exp(-0.1) // scale 10
	src := source("polya-shares")
	counts := map[int64]int{}
	for range n {
		var s int64
		for range users {
			s += int64(Polya(src, 1.0/users, p)) - int64(Polya(src, 1.0/users, p))
		}
		counts[s]++
	}
	chiSquare(t, "sum of 50 Polya share differences", counts, n, dlapPMF(10), -200, 200)
}
