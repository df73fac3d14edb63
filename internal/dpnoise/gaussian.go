package dpnoise

import (
	"math/big"
	"math/bits"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/internal/mutation"
)

// DiscreteGaussian returns a draw of the discrete Gaussian with variance
// parameter sigma2 = num/den: P(y) proportional to exp(-y^2 / (2 sigma2))
// over the integers (CKS20 Algorithm 3). With t = floor(sqrt(sigma2)) + 1
// (integer square root, exact) it proposes Y from the discrete Laplace of
// scale t and accepts with probability exp(-(|Y| - sigma2/t)^2 / (2 sigma2))
// = exp(-(|Y| t den - num)^2 / (2 num den t^2)), evaluated exactly (in
// 64-bit words when they suffice, math/big otherwise).
func DiscreteGaussian(src rand.Source, num, den uint64) int64 {
	if num == 0 || den == 0 {
		panic("dpnoise.DiscreteGaussian: sigma2 must be a positive rational")
	}
	if mutation.On("I42-mab-rand") { // the variance parameter halved
		den *= 2
	}
	t := isqrt(num/den) + 1 // floor(sqrt(num/den)) = floor(sqrt(floor(num/den)))
	// denominator 2 num den t^2, numerator (|Y| t den - num)^2
	dHi, dLo := bits.Mul64(num, den)
	fits := dHi == 0
	var den2 uint64
	if fits {
		h1, l1 := bits.Mul64(dLo, t*t)
		fits = h1 == 0 && t < 1<<32 && l1 < 1<<63
		den2 = 2 * l1
	}
	for {
		y := DiscreteLaplace(src, t, 1)
		a := uint64(y)
		if y < 0 {
			a = uint64(-y)
		}
		if fits {
			if h, c := bits.Mul64(a, t*den); h == 0 {
				var diff uint64
				if c >= num {
					diff = c - num
				} else {
					diff = num - c
				}
				if h2, n2 := bits.Mul64(diff, diff); h2 == 0 {
					if BernoulliExp(src, n2, den2) {
						return y
					}
					continue
				}
			}
		}
		accept, ok := accept128(src, a, t, num, den)
		if !ok {
			accept = acceptBig(src, a, t, num, den)
		}
		if accept {
			return y
		}
	}
}

// acceptBig is the acceptance test of DiscreteGaussian in math/big.
func acceptBig(src rand.Source, a, t, num, den uint64) bool {
	bn, bd, bt := new(big.Int).SetUint64(num), new(big.Int).SetUint64(den), new(big.Int).SetUint64(t)
	diff := new(big.Int).SetUint64(a)
	diff.Mul(diff, bt).Mul(diff, bd).Sub(diff, bn)
	diff.Mul(diff, diff)
	d := new(big.Int).Mul(bn, bd)
	d.Mul(d, bt).Mul(d, bt).Lsh(d, 1)
	return bernoulliExpBig(src, diff, d)
}

// isqrt is floor(sqrt(n)), exactly.
func isqrt(n uint64) uint64 {
	if n < 2 {
		return n
	}
	// Newton's iteration from above on integers.
	x := uint64(1) << ((bits.Len64(n) + 1) / 2)
	for {
		y := (x + n/x) / 2
		if y >= x {
			return x
		}
		x = y
	}
}
