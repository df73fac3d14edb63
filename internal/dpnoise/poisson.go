package dpnoise

import (
	"math/bits"
	"math/rand/v2"
)

// Poisson returns a draw of the Poisson law with mean lambda = num/den
// exactly, in expected O(sqrt(lambda) + 1) uniform draws.
//
// With m = floor(lambda) the mode, the ratio r(d) = P(m+d)/P(m) is a
// product of rationals, each at most 1: lambda/(m+j) for j = 1..d when
// d > 0, (m-j)/lambda for j = 0..|d|-1 when d < 0. It is sampled by
// rejection from the envelope e(d) = 1 on the window |d| <= W (W =
// floor(sqrt(m)) + 1) and a geometric tail beyond it on either side, with
// ratio rho+ = lambda/(m+W+1) on the right and rho- = (m-W)/lambda on the
// left; since the factors decrease away from the mode, r(d) <= e(d)
// everywhere. A tail of mass M = rho/(1-rho) is chosen through
// ceil(M) unit slots, the last accepted with probability frac(M); a tail
// offset is 1 plus a count of Bernoulli(rho) successes; and a proposal d
// is accepted with probability r(d)/e(d), a product of rational Bernoulli
// trials. No floating point is involved.
//
// den * (lambda + |d|) must fit a uint64 for every offset drawn (lambda up
// to about 2^40 with den up to 2^20 is safe); Poisson panics otherwise.
func Poisson(src rand.Source, num, den uint64) uint64 {
	if den == 0 {
		panic("dpnoise.Poisson: zero denominator")
	}
	if num == 0 {
		return 0
	}
	m := num / den
	w := isqrt(m) + 1
	// Right tail: rho+ = num / (den (m+w+1)); M+ = num / (den(m+w+1) - num).
	rDen := mulCheck(den, m+w+1)
	pR, qR := num, rDen-num
	// Left tail exists when m > w: rho- = den (m-w) / num;
	// M- = den (m-w) / (num - den (m-w)).
	var pL, qL uint64
	if m > w {
		pL = mulCheck(den, m-w)
		qL = num - pL
	}
	slotsR := ceilDiv(pR, qR)
	slotsL := uint64(0)
	if pL > 0 {
		slotsL = ceilDiv(pL, qL)
	}
	window := 2*w + 1
	for {
		u := uniform(src, window+slotsR+slotsL)
		var d int64
		switch {
		case u < window:
			d = int64(u) - int64(w)
		case u < window+slotsR:
			if !tailSlot(src, u-window, pR, qR) {
				continue
			}
			e := uint64(1)
			for bernoulli(src, num, rDen) {
				e++
			}
			d = int64(w + e)
		default:
			if !tailSlot(src, u-window-slotsR, pL, qL) {
				continue
			}
			e := uint64(1)
			for bernoulli(src, pL, num) {
				e++
			}
			d = -int64(w + e)
		}
		if int64(m)+d < 0 {
			continue // below zero: P = 0
		}
		if acceptPoisson(src, num, den, m, w, d) {
			return uint64(int64(m) + d)
		}
	}
}

// tailSlot accepts slot i of the ceil(p/q) slots of a tail of mass p/q:
// every whole slot, and the last with probability frac(p/q).
func tailSlot(src rand.Source, i, p, q uint64) bool {
	if i < p/q {
		return true
	}
	return bernoulli(src, p%q, q)
}

// acceptPoisson accepts offset d with probability r(d)/e(d).
func acceptPoisson(src rand.Source, num, den, m, w uint64, d int64) bool {
	switch {
	case d > 0:
		n := min(uint64(d), w)
		for j := uint64(1); j <= n; j++ { // lambda/(m+j)
			if !bernoulli(src, num, mulCheck(den, m+j)) {
				return false
			}
		}
		for j := w + 1; j <= uint64(d); j++ { // (lambda/(m+j)) / rho+
			if !bernoulli(src, m+w+1, m+j) {
				return false
			}
		}
	case d < 0:
		a := uint64(-d)
		n := min(a, w)
		for j := uint64(0); j < n; j++ { // (m-j)/lambda
			if !bernoulli(src, mulCheck(den, m-j), num) {
				return false
			}
		}
		for j := w; j < a; j++ { // ((m-j)/lambda) / rho-
			if !bernoulli(src, m-j, m-w) {
				return false
			}
		}
	}
	return true
}

func mulCheck(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 || lo >= 1<<63 {
		panic("dpnoise.Poisson: mean too large for its denominator (den * (lambda + offset) overflows)")
	}
	return lo
}

func ceilDiv(p, q uint64) uint64 { return (p + q - 1) / q }
