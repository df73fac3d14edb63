package dpnoise

import (
	"math/bits"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/internal/mutation"
)

// GeometricExp returns a draw of the geometric law with
// P(k) = (1 - exp(-s/t)) exp(-k s/t), k = 0, 1, ... (CKS20 Algorithm 2,
// the fast variant): with U uniform on {0..t-1} accepted with probability
// exp(-U/t) and V the number of Bernoulli(exp(-1)) successes before the
// first failure, V t + U is geometric with parameter exp(-1/t), and its
// quotient by s is geometric with parameter exp(-s/t). s = 0 gives 0.
func GeometricExp(src rand.Source, s, t uint64) uint64 {
	if t == 0 {
		panic("dpnoise.GeometricExp: t = 0")
	}
	if s == 0 {
		return 0
	}
	var u uint64
	for {
		u = uniform(src, t)
		if BernoulliExp(src, u, t) {
			break
		}
	}
	var v uint64
	for BernoulliExp(src, 1, 1) {
		v++
	}
	hi, lo := bits.Mul64(v, t)
	lo, carry := bits.Add64(lo, u, 0)
	hi += carry
	if hi >= s {
		panic("dpnoise.GeometricExp: value overflows uint64")
	}
	q, _ := bits.Div64(hi, lo, s)
	return q
}

// DiscreteLaplace returns a draw of the discrete Laplace law with scale
// num/den: P(y) = (1 - b)/(1 + b) b^|y| for every integer y, b =
// exp(-den/num) (CKS20 Algorithm 2). A sign and a geometric magnitude are
// drawn, and (negative, 0) is rejected so that 0 is not counted twice.
// With b = exp(-eps/Delta) it is the eps-DP noise for an integer query of
// sensitivity Delta.
func DiscreteLaplace(src rand.Source, num, den uint64) int64 {
	if num == 0 || den == 0 {
		panic("dpnoise.DiscreteLaplace: scale must be a positive rational")
	}
	for {
		neg := src.Uint64()&1 == 1
		y := GeometricExp(src, den, num)
		if neg && y == 0 && !mutation.On("N26") { // N26: 0 counted twice
			continue
		}
		if y > 1<<62 {
			panic("dpnoise.DiscreteLaplace: value overflows int64")
		}
		if neg {
			return -int64(y)
		}
		return int64(y)
	}
}
