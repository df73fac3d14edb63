package dpnoise

import (
	"math/big"
	"math/rand/v2"
)

// BernoulliExp returns true with probability exp(-num/den) exactly, for
// den >= 1 (CKS20 Algorithm 1). For x = num/den in [0, 1] it counts
// successes of Bernoulli(x/k), k = 1, 2, ..., and reports whether the count
// is even: P(first k trials succeed) = x^k/k!, so P(even) = sum over k of
// (-x)^k/k! = exp(-x). Bernoulli(x/k) is drawn as Bernoulli(x) and
// Bernoulli(1/k), independent, which keeps every denominator a uint64. For
// x > 1 it is floor(x) independent Bernoulli(exp(-1)) and one
// Bernoulli(exp(-frac(x))), stopping at the first failure.
func BernoulliExp(src rand.Source, num, den uint64) bool {
	if den == 0 {
		panic("dpnoise.BernoulliExp: zero denominator")
	}
	for q := num / den; q > 0; q-- {
		if !bernoulliExp1(src, 1, 1) {
			return false
		}
	}
	return bernoulliExp1(src, num%den, den)
}

// bernoulliExp1 is Bernoulli(exp(-num/den)) for num <= den.
func bernoulliExp1(src rand.Source, num, den uint64) bool {
	k := uint64(1)
	for bernoulli(src, num, den) && bernoulli(src, 1, k) {
		k++
	}
	return k%2 == 1
}

// bernoulliExpBig is BernoulliExp for a rational whose numerator or
// denominator does not fit a uint64 (the discrete Gaussian's acceptance
// test at large |y|).
func bernoulliExpBig(src rand.Source, num, den *big.Int) bool {
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	// floor(x) independent Bernoulli(exp(-1)); the loop almost surely
	// ends at the first failure, long before q counts down.
	one := big.NewInt(1)
	for q.Sign() > 0 {
		if !bernoulliExp1(src, 1, 1) {
			return false
		}
		q.Sub(q, one)
	}
	if den.IsUint64() {
		return bernoulliExp1(src, r.Uint64(), den.Uint64())
	}
	k := uint64(1)
	u := new(big.Int)
	for {
		if uniformBig(src, den, u).Cmp(r) >= 0 || !bernoulli(src, 1, k) {
			break
		}
		k++
	}
	return k%2 == 1
}

// uniformBig sets u to an integer uniform on [0, n) (n >= 1) by rejection
// on the bit length of n, and returns u.
func uniformBig(src rand.Source, n, u *big.Int) *big.Int {
	bitLen := n.BitLen()
	words := (bitLen + 63) / 64
	buf := make([]big.Word, words)
	top := uint(bitLen - 64*(words-1))
	for {
		for i := range buf {
			buf[i] = big.Word(src.Uint64())
		}
		if top < 64 {
			buf[words-1] &= big.Word(1)<<top - 1
		}
		u.SetBits(buf)
		if u.Cmp(n) < 0 {
			return new(big.Int).Set(u)
		}
		buf = make([]big.Word, words)
	}
}
