package accountant

import (
	"math"
	"math/big"
)

// High-precision reference implementations (400-bit big.Float) used to
// check that the float64 accountant rounds toward the safe side.

const bigPrec = 800

func bf(x float64) *big.Float { return new(big.Float).SetPrec(bigPrec).SetFloat64(x) }

func bnew() *big.Float { return new(big.Float).SetPrec(bigPrec) }

// bigExp computes e^x by argument halving and a Taylor series.
func bigExp(x *big.Float) *big.Float {
	r := bnew().Set(x)
	m := 0
	for r.Sign() != 0 && r.MantExp(nil) > -12 { // until |r| < 2^-12
		r.Quo(r, bf(2))
		m++
	}
	sum, term := bf(1), bf(1)
	for n := 1; n < 80; n++ {
		term.Mul(term, r)
		term.Quo(term, bf(float64(n)))
		sum.Add(sum, term)
	}
	for ; m > 0; m-- {
		sum.Mul(sum, sum)
	}
	return sum
}

// bigLog computes ln x (x > 0) by Halley iterations on e^y = x.
func bigLog(x *big.Float) *big.Float {
	xf, _ := x.Float64()
	y := bf(math.Log(xf))
	for i := 0; i < 6; i++ {
		ey := bigExp(y)
		num := bnew().Sub(x, ey)
		den := bnew().Add(x, ey)
		num.Quo(num, den)
		num.Mul(num, bf(2))
		y.Add(y, num)
	}
	return y
}

// bigSqrt is big.Float.Sqrt at bigPrec.
func bigSqrt(x *big.Float) *big.Float { return bnew().Sqrt(x) }

var bigPi, _ = new(big.Float).SetPrec(bigPrec).SetString("3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651328230664709384460955058223172535940812848111745028410270193852110555964462294895493038196")

// bigPhi is the standard normal CDF for |x| <= ~12, from the all-positive
// series erf(z) = 2/sqrt(pi) e^{-z^2} sum_n 2^n z^{2n+1}/(2n+1)!!.
func bigPhi(x *big.Float) *big.Float {
	z := bnew().Quo(x, bigSqrt(bf(2)))
	neg := z.Sign() < 0
	z.Abs(z)
	z2 := bnew().Mul(z, z)
	term := bnew().Set(z)
	sum := bnew().Set(z)
	for n := 1; n < 2000; n++ {
		term.Mul(term, z2)
		term.Mul(term, bf(2))
		term.Quo(term, bf(float64(2*n+1)))
		sum.Add(sum, term)
		if term.MantExp(nil) < sum.MantExp(nil)-bigPrec-8 {
			break
		}
	}
	erf := bnew().Mul(sum, bigExp(bnew().Neg(z2)))
	erf.Mul(erf, bf(2))
	erf.Quo(erf, bigSqrt(bigPi))
	// Phi(x) = (1 + erf(x/sqrt2))/2 with the sign of x.
	if neg {
		erf.Neg(erf)
	}
	r := bnew().Add(bf(1), erf)
	return r.Quo(r, bf(2))
}

// bigGDPDelta is the exact GDP delta in high precision.
func bigGDPDelta(mu, eps float64) *big.Float {
	m, e := bf(mu), bf(eps)
	a := bnew().Quo(e, m)
	a.Neg(a)
	b := bnew().Set(a)
	half := bnew().Quo(m, bf(2))
	a.Add(a, half)
	b.Sub(b, half)
	t1 := bigPhi(a)
	t2 := bnew().Mul(bigExp(e), bigPhi(b))
	return t1.Sub(t1, t2)
}

func f64(x *big.Float) float64 { v, _ := x.Float64(); return v }
