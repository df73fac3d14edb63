// Package dpnoise holds exact samplers for discrete privacy noise: every
// draw is decided exactly (uniform integers from a seeded math/rand/v2
// source, comparisons of exact rationals, and for the binomial
// floating-point comparisons with proven error bounds), so the law of
// every sample is exactly the stated one and no floating-point rounding
// can leave holes in its support (Mironov 2012).
//
// The samplers follow Canonne, Kamath and Steinke, "The Discrete Gaussian
// for Differential Privacy" (NeurIPS 2020, arXiv 2004.00010), Algorithms
// 1-3: Bernoulli(exp(-x)) for rational x, the discrete Laplace and the
// discrete Gaussian; Poisson and Skellam are built on the same rational
// Bernoulli trials.
//
// The binomial samplers (binomial.go: BinomialHalf, and BinomialQuarter
// for P_Vec's noise bits) are exact at every uint64 n by another route:
// rejection whose acceptance test U < A is decided first in float64, with
// a proven bound on the error of A, and in math/big with directed
// rounding whenever U falls within that bound of A. Floating point there
// only decides events whose outcome it has proven, so the law is exactly
// the stated one (assuming, as documented there, that math.Log1p errs by
// less than one ulp and math.Exp by less than 2^11).
//
// The one exception is the Polya share (polya.go), which draws a Gamma
// variate in floating point: its law is only approximately the stated
// one, and its doc says so.
//
// Every function takes its own rand.Source (callers give each component
// its own ChaCha8 stream from internal/rng) and is deterministic given that
// stream. One sampler per file, beside its statistical test.
package dpnoise

import (
	"math/bits"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/internal/mutation"
)

// uniform returns an integer uniform on [0, n) for n >= 1 (Lemire's
// multiply-and-reject: exact, no modulo bias).
func uniform(src rand.Source, n uint64) uint64 {
	if n&(n-1) == 0 { // power of two (n = 1 gives 0)
		return src.Uint64() & (n - 1)
	}
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n && !mutation.On("P5-10") { // P5-10: no rejection (modulo bias)
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// bernoulli returns true with probability num/den exactly (num <= den,
// den >= 1).
func bernoulli(src rand.Source, num, den uint64) bool {
	return uniform(src, den) < num
}
