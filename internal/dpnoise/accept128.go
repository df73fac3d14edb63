package dpnoise

import (
	"math/bits"
	"math/rand/v2"
)

// accept128 is acceptBig in 128-bit words, for the discrete Gaussian's
// acceptance test whose rationals outgrow a uint64 but not two (a
// variance parameter near 2^40 puts the denominator 2 num den t^2 near
// 2^82). It draws exactly what acceptBig draws, in the same order, so that
// every sample is the same whichever path decides it (TestAccept128
// compares them); ok is false, and nothing is drawn, when a quantity does
// not fit (then acceptBig decides).
func accept128(src rand.Source, a, t, num, den uint64) (accept, ok bool) {
	// numerator (a t den - num)^2
	h, at := bits.Mul64(a, t)
	if h != 0 {
		return false, false
	}
	h, atd := bits.Mul64(at, den)
	if h != 0 {
		return false, false
	}
	diff := atd - num
	if atd < num {
		diff = num - atd
	}
	nh, nl := bits.Mul64(diff, diff)
	// denominator 2 num den t^2
	h, nd := bits.Mul64(num, den)
	if h != 0 {
		return false, false
	}
	h, ndt := bits.Mul64(nd, t)
	if h != 0 {
		return false, false
	}
	dh, dl := bits.Mul64(ndt, t)
	if dh>>63 != 0 {
		return false, false
	}
	dh, dl = dh<<1|dl>>63, dl<<1
	// q = floor(n/d) by subtraction (x = n/d is small whenever the test
	// can pass; a large q falls back), r = n mod d.
	var q uint64
	for !less128(nh, nl, dh, dl) {
		if q == 64 {
			return false, false
		}
		var borrow uint64
		nl, borrow = bits.Sub64(nl, dl, 0)
		nh, _ = bits.Sub64(nh, dh, borrow)
		q++
	}
	// bernoulliExpBig from here, draw for draw.
	for ; q > 0; q-- {
		if !bernoulliExp1(src, 1, 1) {
			return false, true
		}
	}
	if dh == 0 {
		return bernoulliExp1(src, nl, dl), true
	}
	top := uint(bits.Len64(dh)) // bit length of d minus 64, in 1..63
	k := uint64(1)
	for {
		ul := src.Uint64()
		uh := src.Uint64() & (1<<top - 1)
		for !less128(uh, ul, dh, dl) { // uniformBig's rejection
			ul = src.Uint64()
			uh = src.Uint64() & (1<<top - 1)
		}
		if !less128(uh, ul, nh, nl) || !bernoulli(src, 1, k) {
			break
		}
		k++
	}
	return k%2 == 1, true
}

// less128 reports whether (ah, al) < (bh, bl) as 128-bit integers.
func less128(ah, al, bh, bl uint64) bool {
	return ah < bh || ah == bh && al < bl
}
