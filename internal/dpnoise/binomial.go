package dpnoise

import (
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/internal/fmath"
)

// BinomialQuarter returns a draw of Binomial(n, 1/4) exactly, for every
// uint64 n: Binomial(Binomial(n, 1/2), 1/2). Thinning is exact: each of
// the n trials succeeds when two independent fair coins both do, and the
// second coin is tossed only for the first coin's successes. It is the
// noise of P_Vec (p = 1/4; Cheu, Joseph, Mao & Peng 2022).
func BinomialQuarter(src rand.Source, n uint64) uint64 {
	return BinomialHalf(src, BinomialHalf(src, n))
}

// BinomialHalf returns a draw of Binomial(n, 1/2) exactly, for every
// uint64 n, with no floating-point rounding in its law.
//
// Below popcountMax trials it counts the ones among n uniform bits. From
// there to rejectMax = 2^52 it samples by rejection (binomialReject);
// above, it adds independent exact draws of at most rejectMax trials
// each (a sum of independent binomials with p = 1/2 is binomial with the
// summed trials).
//
// The draws are a function of the stream alone (floating point only
// decides what it has proven; see binomialReject), so they are the same on
// every platform. Cost (docs/privacy.md section 8): O(n/64) uniform words
// below popcountMax; above, whatever n, about two proposals of three or
// four uniform words and one exp each (and, rarely at large n, a few
// log1p and another exp).
func BinomialHalf(src rand.Source, n uint64) uint64 {
	var total uint64
	for n > rejectMax {
		total += binomialReject(src, rejectMax, true)
		n -= rejectMax
	}
	if n < popcountMax {
		return total + binomialPopcount(src, n)
	}
	return total + binomialReject(src, n, true)
}

const (
	// popcountMax is the size from which rejection is cheaper than
	// counting bits (BenchmarkBinomialHalfSmall); it must be at least
	// rejectMin.
	popcountMax = 2048
	// rejectMin and rejectMax bound the sizes binomialReject accepts:
	// m >= 64 keeps the Stirling series' remainder negligible, n <= 2^52
	// keeps every integer of logAccept exact in a float64.
	rejectMin = 128
	rejectMax = 1 << 52
)

// binomialPopcount is Binomial(n, 1/2) as the number of ones among n
// uniform bits.
func binomialPopcount(src rand.Source, n uint64) uint64 {
	var k uint64
	for ; n >= 64; n -= 64 {
		k += uint64(bits.OnesCount64(src.Uint64()))
	}
	if n > 0 {
		k += uint64(bits.OnesCount64(src.Uint64() & (1<<n - 1)))
	}
	return k
}

// binomialReject is Binomial(n, 1/2) for rejectMin <= n <= rejectMax by
// rejection from a proposal that is exact to sample, after Bringmann,
// Kuhn, Panagiotou, Peter and Thomas, "Internal DLA: efficient simulation
// of a physical growth model" (ICALP 2014), as Google's secure-noise
// Gaussian uses it, but with an acceptance test that is decided exactly
// (Google's is approximate).
//
// Let m = floor(n/2) (a mode), a = n - m, and r(i) = C(n, m+i)/C(n, m)
// <= 1 the pmf relative to the mode. A proposal draws a fair sign and s
// ~ Geometric(1/2) (P(s) = 2^-(s+1)), picks block j = s (sign +) or
// j = -s-1 (sign -) of width w, and an offset i = j w + U, U uniform on
// {0..w-1}; so P(i) = 2^-(s+2)/w. It is accepted with probability
// A(i) = r(i) 2^s, so P(i proposed and accepted) = r(i)/(4w), proportional
// to the target; i with m+i outside [0, n] (r = 0) are rejected outright.
// A proposal is accepted with probability 1/(4 w P(m)), about 0.53.
//
// Envelope (A <= 1). For i = t >= 1, a <= m+1 gives
// r(t) = prod_{j=1..t} (a-j+1)/(m+j) <= prod (1 - (2j-2)/(m+j)) <=
// exp(-t(t-1)/(m+t)); for i = -t, a >= m gives r(-t) = prod_{j=0..t-1}
// (m-j)/(a+j+1) <= exp(-t^2/(m+t)), so r(i) <= exp(-f(t)) with f(t) =
// t(t-1)/(m+t), increasing for t >= 1. Block s holds offsets with
// t = |i| >= s w, and for s >= 1, f(s w) >= s ln 2 reduces (the
// difference of the two sides grows with s) to w^2 - w >= ln2 (m + w),
// which blockWidth guarantees with the rational 355/512 > ln 2. Block 0
// has s = 0 and A = r <= 1. The tests check the lemma exhaustively for
// small n; the code panics if an acceptance probability is ever found
// above 1 rather than bias the law.
//
// Exact acceptance. U' = k 2^-53 + (more bits) is a lazy uniform on
// [0, 1); accept iff U' < A. acceptHalf decides from k alone when its
// interval [k, k+1) 2^-53 lies outside an interval proven to hold A:
// first the squeeze, bounds on r(i) within a factor 1 + O(|i|/m +
// |i|^3/m^2) of each other (it leaves 3% of proposals undecided at
// n = 3072, 0.2% at 1e6, 4e-5 at 1e9 and 1e-6 at 6e12); then logAccept,
// ln A to within a proven b (1e-18 to 4e-13 in the first blocks; it
// leaves about 2e-12 of the proposals it sees). Otherwise (or always when filter is false, the
// tests' hook) acceptExact brackets A between products of rationals
// rounded down and up in math/big at growing precision, drawing 64 more
// bits of U' per round, until the two intervals part. The filters decide
// only when k already does, so filter on and off give the same draws
// (TestBinomialFilter).
func binomialReject(src rand.Source, n uint64, filter bool) uint64 {
	if n < rejectMin || n > rejectMax {
		panic("dpnoise.binomialReject: n out of range")
	}
	m := n / 2
	a := n - m
	w := blockWidth(m)
	for {
		x := src.Uint64()
		neg := x&1 == 1
		s := uint64(bits.TrailingZeros64(x>>1 | 1<<63)) // Geometric(1/2) from 63 bits
		if s == 63 {
			for {
				y := src.Uint64()
				if y != 0 {
					s += uint64(bits.TrailingZeros64(y))
					break
				}
				s += 64
			}
		}
		if s >= n/w {
			continue // |i| >= s w >= n - w + 1 > a: r = 0
		}
		u := uniform(src, w)
		var i int64
		if neg {
			t := (s+1)*w - u
			if t > m {
				continue
			}
			i = -int64(t)
		} else {
			t := s*w + u
			if t > a {
				continue
			}
			i = int64(t)
		}
		if acceptHalf(src, m, a, i, s, filter) {
			return uint64(int64(m) + i)
		}
	}
}

// blockWidth is the least w >= 1 with 512 (w^2 - w) >= 355 (m + w), the
// envelope condition with ln 2 < 355/512 (binomialReject). For m <=
// 2^51 every product fits a uint64.
func blockWidth(m uint64) uint64 {
	w := max(isqrt(m>>9*355), 1)
	for 512*(w*w-w) < 355*(m+w) {
		w++
	}
	return w
}

// acceptHalf returns true with probability A(i) = r(i) 2^s exactly
// (binomialReject).
func acceptHalf(src rand.Source, m, a uint64, i int64, s uint64, filter bool) bool {
	k := src.Uint64() >> 11 // U' in [k 2^-53, (k+1) 2^-53)
	t := uint64(i)
	if i < 0 {
		t = uint64(-i)
	}
	if filter {
		uLo, uHi := float64(k)*0x1p-53, float64(k+1)*0x1p-53
		// Squeeze: exp(-t(t+1)/(m-t+1)) <= r(i) <= exp(-t(t-1)/(m+t))
		// (squeezeBounds), within a factor 1 + O(|i|/m + |i|^3/m^2):
		// it decides all but 1e-6 of proposals at n = 6e12.
		// Margins of 2^-48 on each term make xHi >= ln of the upper
		// bound and xLo <= ln of the lower whatever the roundings
		// (each term errs by at most 3u); math.Exp errs by less than
		// 2^-41 relatively (2^11 ulps), and 2^-50 covers the last
		// products' roundings. exp(xLo) >= exp(xHi) (1 - (xHi - xLo)).
		lnLo, lnHi := squeezeBounds(m, t)
		sl := float64(s) * math.Ln2
		xHi := float64(sl*(1+0x1p-48)) + float64(lnHi*(1-0x1p-48))
		e := fmath.Exp(xHi)
		if uLo >= math.Max(e*(1+0x1p-40), 0x1p-1000) {
			return false
		}
		if t <= m/2 {
			xLo := float64(sl*(1-0x1p-48)) + float64(lnLo*(1+0x1p-48))
			lo := e * (1 - 0x1p-40) * (1 - float64((xHi-xLo)*(1+0x1p-50))) * (1 - 0x1p-50)
			if lo > 1 {
				panic("dpnoise.BinomialHalf: acceptance probability above 1 (envelope violated)")
			}
			if uHi <= lo {
				return true
			}
			// logAccept: ln A to within b.
			l, b := logAccept(m, a, i, s)
			el := fmath.Exp(l - b) // within 2^-41 of exp(l-b), relatively
			lo = el * (1 - 0x1p-40)
			var hi float64
			if b <= 0x1p-10 {
				// exp(l+b) = exp(l-b) exp(2b) <= el (1+2^-40)(1+4b); 2^-50
				// covers the two roundings.
				hi = el * (1 + 0x1p-40) * (1 + float64(4*b)) * (1 + 0x1p-50)
			} else {
				hi = fmath.Exp(l+b) * (1 + 0x1p-40)
			}
			if lo > 1 {
				panic("dpnoise.BinomialHalf: acceptance probability above 1 (envelope violated)")
			}
			if uHi <= lo {
				return true
			}
			if uLo >= math.Max(hi, 0x1p-1000) {
				return false
			}
		}
	}
	return acceptExact(src, m, a, i, s, k)
}

// squeezeBounds returns float64 values of the squeeze's bounds on
// ln r(i), t = |i|: lnHi = -t(t-1)/(m+t) >= ln r(i) (binomialReject's
// envelope lemma) and, for t <= m/2, lnLo = -t(t+1)/(m-t+1) <= ln r(i),
// since ln(1-x) >= -x/(1-x): for i = t > 0 each factor (a-j+1)/(m+j) >=
// 1 - (2j-1)/(m+j), whose x/(1-x) = (2j-1)/(m-j+1) <= (2j-1)/(m-t+1),
// summing to t^2/(m-t+1); for i = -t, (m-j)/(a+j+1) >= 1 - (2j+2)/(m+j+2),
// x/(1-x) = (2j+2)/(m-j) <= (2j+2)/(m-t+1), summing to t(t+1)/(m-t+1).
// Each errs by at most 2u relatively (t-1, t+1, m+t, m-t+1 are exact).
// TestBinomialEnvelope checks both bounds exhaustively at small n.
func squeezeBounds(m, t uint64) (lnLo, lnHi float64) {
	ft, fm := float64(t), float64(m)
	return -ft * (ft + 1) / (fm - ft + 1), -ft * (ft - 1) / (fm + ft)
}

// logAccept returns l, a float64 value of ln A(i) = ln r(i) + s ln 2, and
// b with |l - ln A(i)| <= b, for |i| <= m/2, 64 <= m <= 2^51.
//
// With k = m+i, l = a-i, e1 = i/m, e2 = -i/a, Stirling's formula
// ln x! = (x+1/2) ln x - x + ln(2 pi)/2 + D(x) gives exactly
//
//	ln r(i) = i ln(a/m) - m phi(e1) - a phi(e2) - (log1p(e1) + log1p(e2))/2
//	          + D(m) + D(a) - D(k) - D(l),
//
// phi(e) = (1+e) log1p(e) - e, in which no two large terms cancel.
//
// Error bound, with u = 2^-53 and every integer exact in a float64 (n <=
// 2^52): each operation errs by at most u relatively and math.Log1p by
// one ulp, 2u (its FreeBSD original's documented bound). Rounding e by u
// moves m phi(e) by at most m |e log1p(e)| u <= m mag u, and log1p(e) by
// at most 1.5 u |log1p(e)| (|e| <= 1/2). phi's series, by Horner's rule
// over J <= 17 coefficients, errs by at most 2J u times the sum of its
// terms' magnitudes, under 0.55 e^2 = 0.55 mag: at most 19u mag; the
// formula at most 7u mag. So each term errs by at most 25u times its
// magnitude (D's five-term series by about 12u), and the final sum of
// seven terms adds at most 7u M, M the sum of all magnitudes: in all at
// most 32u M = 2^-48 M. b = 2^-44 M + 2^-60 is 16 times that (the largest
// error TestLogAcceptBound finds is 0.5% of b), and its 2^-60 covers the
// Stirling series' remainders (below 6e-20 each for x >= 32). The
// caller's margins of 2^-40 on math.Exp allow it 2^11 ulps
// (TestExpAccuracy: at most 19 on amd64).
func logAccept(m, a uint64, i int64, s uint64) (l, b float64) {
	fm, fa, fi := float64(m), float64(a), float64(i)
	e1, e2 := fi/fm, -fi/fa
	p1, mag1 := phi(e1)
	p2, mag2 := phi(e2)
	l1, l2 := fmath.Log1p(e1), fmath.Log1p(e2)
	var t5 float64
	if a != m {
		t5 = float64(fi * fmath.Log1p(1/fm)) // i ln(a/m), a = m+1
	}
	d1, d2, d3, d4 := stirlingErr(fm), stirlingErr(fa), stirlingErr(fm+fi), stirlingErr(fa-fi)
	sl := float64(float64(s) * math.Ln2)
	l = sl + t5 - float64(fm*p1) - float64(fa*p2) - float64(0.5*(l1+l2)) + ((d1 + d2) - (d3 + d4))
	mag := sl + math.Abs(t5) + float64(fm*mag1) + float64(fa*mag2) + float64(0.5*(math.Abs(l1)+math.Abs(l2))) + d1 + d2 + d3 + d4
	return l, float64(mag*0x1p-44) + 0x1p-60
}

// phi returns phi(e) = (1+e) log1p(e) - e for |e| <= 1/2, and a magnitude
// bounding its intermediates: for |e| < 1/16 the series
// sum_{j>=2} (-e)^j/(j(j-1)) to j = J, J = 5, 9 or 17 for |e| below 2^-20,
// 2^-8 or 2^-4 (the remainder, below 2.1 |e|^(J-1)/(J(J+1)) phi(e), is
// under 2^-60 phi(e)); the formula otherwise.
func phi(e float64) (v, mag float64) {
	ae := math.Abs(e)
	if ae < 1.0/16 {
		top := 17.0
		switch {
		case ae < 0x1p-20:
			top = 5
		case ae < 0x1p-8:
			top = 9
		}
		var h float64
		for j := top; j >= 2; j-- {
			h = float64(h*(-e)) + 1/(j*(j-1))
		}
		return e * e * h, e * e
	}
	lp := float64((1 + e) * fmath.Log1p(e))
	return lp - e, math.Abs(lp) + ae
}

// stirlingErr is D(x) = ln x! - (x+1/2) ln x + x - ln(2 pi)/2 for x >= 32
// by its Stirling series to the x^-9 term (the remainder is below the
// first omitted term, 691/(360360 x^11) < 6e-20).
func stirlingErr(x float64) float64 {
	y := 1 / x
	y2 := y * y
	return float64(y * (1.0/12 - float64(y2*(1.0/360-float64(y2*(1.0/1260-float64(y2*(1.0/1680-y2/1188))))))))
}

// acceptExact decides U' < A(i) = r(i) 2^s, where U' is the lazy uniform
// whose first 53 bits are k, by interval arithmetic in math/big: r(i) is
// a product of |i| rationals, bracketed by rounding every quotient and
// product down (lo) and up (hi); U' lies in [u 2^-K, (u+1) 2^-K). While
// the intervals overlap, 64 more bits of U' are drawn and the precision
// grows. A(i) is a fixed real, so this ends with probability 1.
func acceptExact(src rand.Source, m, a uint64, i int64, s uint64, k uint64) bool {
	u := new(big.Int).SetUint64(k)
	K := 53
	one := big.NewFloat(1)
	v := new(big.Int)
	for prec := uint(128); ; prec += 64 {
		lo, hi := ratioBounds(m, a, i, prec)
		lo.SetMantExp(lo, int(s))
		hi.SetMantExp(hi, int(s))
		if lo.Cmp(one) > 0 {
			panic("dpnoise.BinomialHalf: acceptance probability above 1 (envelope violated)")
		}
		uLo := new(big.Float).SetInt(u) // exact: precision max(64, bit length)
		uLo.SetMantExp(uLo, -K)
		uHi := new(big.Float).SetInt(v.Add(u, big.NewInt(1)))
		uHi.SetMantExp(uHi, -K)
		if uHi.Cmp(lo) <= 0 {
			return true
		}
		if uLo.Cmp(hi) >= 0 {
			return false
		}
		u.Lsh(u, 64).Or(u, v.SetUint64(src.Uint64()))
		K += 64
	}
}

// ratioBounds returns lo <= r(i) = C(m+a, m+i)/C(m+a, m) <= hi at
// precision prec, for -m <= i <= a: the product of (a-j+1)/(m+j),
// j = 1..i, for i > 0, of (m-j)/(a+j+1), j = 0..-i-1, for i < 0.
func ratioBounds(m, a uint64, i int64, prec uint) (lo, hi *big.Float) {
	lo = new(big.Float).SetPrec(prec).SetMode(big.ToZero).SetInt64(1)
	hi = new(big.Float).SetPrec(prec).SetMode(big.AwayFromZero).SetInt64(1)
	qLo := new(big.Float).SetPrec(prec).SetMode(big.ToZero)
	qHi := new(big.Float).SetPrec(prec).SetMode(big.AwayFromZero)
	num, den := new(big.Float), new(big.Float) // exact: precision 64
	step := func(p, q uint64) {
		num.SetUint64(p)
		den.SetUint64(q)
		lo.Mul(lo, qLo.Quo(num, den))
		hi.Mul(hi, qHi.Quo(num, den))
	}
	if i > 0 {
		for j := uint64(1); j <= uint64(i); j++ {
			step(a-j+1, m+j)
		}
	} else {
		for j := uint64(0); j < uint64(-i); j++ {
			step(m-j, a+j+1)
		}
	}
	return lo, hi
}
