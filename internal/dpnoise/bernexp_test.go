package dpnoise

import (
	"math"
	"math/big"
	"testing"
)

// Mutation controls (run 2026-11-25): returning k%2 == 0 in bernoulliExp1
// (Bernoulli(1 - exp(-x))) fails with |z| > 100; Bernoulli(x/(k+1))
// instead of Bernoulli(x/k) fails x = 1/3 and 1 with z = 134 and 245.
func TestBernoulliExp(t *testing.T) {
	cases := []struct{ num, den uint64 }{{0, 1}, {1, 3}, {1, 1}, {5, 2}, {7, 1}, {123456789, 1 << 40}}
	const n = 200000
	for _, c := range cases {
		src := source("bernexp")
		hits := 0
		for range n {
			if BernoulliExp(src, c.num, c.den) {
				hits++
			}
		}
		p := math.Exp(-float64(c.num) / float64(c.den))
		got := float64(hits) / n
		sd := math.Sqrt(p * (1 - p) / n)
		if sd == 0 {
			if got != p {
				t.Errorf("exp(-%d/%d): got %v, want %v", c.num, c.den, got, p)
			}
			continue
		}
		if z := (got - p) / sd; math.Abs(z) > zAlpha {
			t.Errorf("exp(-%d/%d): frequency %.5f, want %.5f (z = %.2f, false-alarm rate %g)", c.num, c.den, got, p, z, alpha)
		}
	}
}

// The math/big path must give the same law as the 64-bit one.
func TestBernoulliExpBig(t *testing.T) {
	const n = 100000
	num := new(big.Int).Lsh(big.NewInt(3), 70) // x = 3/2 with 2^71-sized words
	den := new(big.Int).Lsh(big.NewInt(1), 71)
	src := source("bernexp-big")
	hits := 0
	for range n {
		if bernoulliExpBig(src, num, den) {
			hits++
		}
	}
	p := math.Exp(-1.5)
	if z := (float64(hits)/n - p) / math.Sqrt(p*(1-p)/n); math.Abs(z) > zAlpha {
		t.Errorf("big exp(-3/2): frequency %.5f, want %.5f (z = %.2f)", float64(hits)/n, p, z)
	}
}

func TestUniform(t *testing.T) {
	src := source("uniform")
	counts := map[int64]int{}
	const n, k = 70000, 7
	for range n {
		counts[int64(uniform(src, k))]++
	}
	chiSquare(t, "uniform(7)", counts, n, func(int64) float64 { return 1.0 / k }, 0, k-1)
}
