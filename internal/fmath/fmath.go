// Package fmath holds the elementary functions whose results must not
// depend on the machine: Exp, Log, Log10, Pow, Log1p, Expm1 and Erfc, bit
// for bit the same on amd64 (any CPU, any GOAMD64), arm64 and every other
// architecture.
//
// The standard library's are not: math.Exp is assembly on amd64 with one
// path for CPUs with FMA and another without (GODEBUG=cpu.fma=off changes
// the bco family's curves), and a third algorithm on arm64; math.Log is
// assembly on amd64 and Go elsewhere, where the compiler fuses its
// multiply-adds. Here every operation is either a rounded IEEE operation
// (each product converted, float64(x*y), so that no compiler fuses it) or
// an explicit math.FMA, which is exact everywhere. The results are those of
// math's functions on an amd64 CPU with FMA (every CPU the project's pins
// were measured on), so switching to this package leaves those bytes
// unchanged; TestMatchesStd checks it on millions of arguments. The
// standard library's Log1p, Expm1, Erfc and Pow are Go, whose multiply-adds
// the compiler fuses on arm64 and with GOAMD64=v3.
package fmath

import "math"

// Exp returns e**x: Go's amd64 assembly algorithm (Shibata's, with the
// multiply-adds its FMA path uses), in portable Go.
func Exp(x float64) float64 {
	const (
		log2e    = 1.4426950408889634073599246810018920
		ln2U     = 0.69314718055966295651160180568695068359375
		ln2L     = 0.28235290563031577122588448175013436025525412068e-12
		overflow = 7.09782712893384e+02
	)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case math.IsInf(x, -1):
		return 0
	case x > overflow:
		return math.Inf(1)
	}
	// k = round-to-nearest-even(x log2e), as CVTSD2SL does; out of int32
	// range (only far below -2^31/log2e) CVTSD2SL gives -2^31.
	kf := math.RoundToEven(float64(log2e * x))
	k := int64(-1 << 31)
	if kf >= -(1<<31) && kf < 1<<31 {
		k = int64(kf)
	}
	fk := float64(int32(k))
	r := math.FMA(-fk, ln2U, x)
	r = math.FMA(-fk, ln2L, r)
	r = float64(r * 0.0625)
	p := 2.4801587301587301587e-5
	p = math.FMA(p, r, 1.9841269841269841270e-4)
	p = math.FMA(p, r, 1.3888888888888888889e-3)
	p = math.FMA(p, r, 8.3333333333333333333e-3)
	p = math.FMA(p, r, 4.1666666666666666667e-2)
	p = math.FMA(p, r, 1.6666666666666666667e-1)
	p = math.FMA(p, r, 0.5)
	p = math.FMA(p, r, 1.0)
	r = float64(r * p)
	for range 3 {
		r = float64(r * (r + 2))
	}
	r = math.FMA(r, r+2, 1)
	// r * 2**k, with the assembly's handling of the subnormal range.
	b := k + 0x3ff
	if b <= 0 {
		if b < -52 {
			return 0
		}
		r = float64(r * math.Float64frombits(uint64(b+0x3fe)<<52))
		return float64(r * math.Float64frombits(1<<52))
	}
	if b >= 0x7ff {
		return math.Inf(1)
	}
	return float64(r * math.Float64frombits(uint64(b)<<52))
}

// Log returns the natural logarithm of x: Go's algorithm (FreeBSD's
// e_log.c), every product rounded on its own, as amd64's assembly does.
func Log(x float64) float64 {
	const (
		ln2Hi = 6.93147180369123816490e-01 /* 3fe62e42 fee00000 */
		ln2Lo = 1.90821492927058770002e-10 /* 3dea39ef 35793c76 */
		l1    = 6.666666666666735130e-01   /* 3FE55555 55555593 */
		l2    = 3.999999999940941908e-01   /* 3FD99999 9997FA04 */
		l3    = 2.857142874366239149e-01   /* 3FD24924 94229359 */
		l4    = 2.222219843214978396e-01   /* 3FCC71C5 1D8E78AF */
		l5    = 1.818357216161805012e-01   /* 3FC74664 96CB03DE */
		l6    = 1.531383769920937332e-01   /* 3FC39A09 D078C69F */
		l7    = 1.479819860511658591e-01   /* 3FC2F112 DF3E5244 */
	)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	}
	f1, ki := math.Frexp(x)
	if f1 < math.Sqrt2/2 {
		f1 *= 2
		ki--
	}
	f := f1 - 1
	k := float64(ki)
	s := f / (2 + f)
	s2 := float64(s * s)
	s4 := float64(s2 * s2)
	t1 := float64(s2 * (l1 + float64(s4*(l3+float64(s4*(l5+float64(s4*l7)))))))
	t2 := float64(s4 * (l2 + float64(s4*(l4+float64(s4*l6)))))
	R := t1 + t2
	hfsq := float64(0.5 * f * f)
	return float64(k*ln2Hi) - ((hfsq - (float64(s*(hfsq+R)) + float64(k*ln2Lo))) - f)
}

// Log10 returns the decimal logarithm of x, as math.Log10 defines it.
func Log10(x float64) float64 { return float64(Log(x) * (1 / math.Ln10)) }

// Pow returns x**y: Go's math.Pow with this package's Exp and Log.
func Pow(x, y float64) float64 {
	switch {
	case y == 0 || x == 1:
		return 1
	case y == 1:
		return x
	case math.IsNaN(x) || math.IsNaN(y):
		return math.NaN()
	case (y == 0.5 || y == -0.5) && x < 0:
		return math.NaN() // not Sqrt's: a hardware NaN's sign bit differs between amd64 and arm64
	case x == 0 || math.IsInf(y, 0) || math.IsInf(x, 0) || y == 0.5 || y == -0.5:
		return math.Pow(x, y) // exact special cases (signed zeros, infinities, a square root)
	}
	yi, yf := math.Modf(math.Abs(y))
	if yf != 0 && x < 0 {
		return math.NaN()
	}
	if yi >= 1<<63 {
		return math.Pow(x, y) // a huge even integer power: 0, 1 or an infinity, exactly
	}
	a1 := 1.0
	ae := 0
	if yf != 0 {
		if yf > 0.5 {
			yf--
			yi++
		}
		a1 = Exp(float64(yf * Log(x)))
	}
	x1, xe := math.Frexp(x)
	for i := int64(yi); i != 0; i >>= 1 {
		if xe < -1<<12 || 1<<12 < xe {
			ae += xe
			break
		}
		if i&1 == 1 {
			a1 = float64(a1 * x1)
			ae += xe
		}
		x1 = float64(x1 * x1)
		xe <<= 1
		if x1 < .5 {
			x1 += x1
			xe--
		}
	}
	if y < 0 {
		a1 = 1 / a1
		ae = -ae
	}
	return math.Ldexp(a1, ae)
}
