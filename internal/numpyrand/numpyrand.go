// Package numpyrand is numpy's legacy random stream, the one behind
// np.random.seed(s) with an integer s and np.random.randn, bit for bit:
// MT19937, legacy_double, the polar method's legacy_gauss, and the
// natural logarithm as numpy's C gets it from glibc. The published code's
// synthetic instance is drawn from it (federate's ContextsNumPy).
package numpyrand

import (
	"math"
	"math/big"
	"sync"
)

// MT is numpy's legacy random stream, the one behind np.random.seed(s)
// with an integer s and np.random.randn: MT19937 seeded by init_genrand
// (numpy's mt19937_seed), doubles from two 32-bit outputs as
// (a>>5 * 2^26 + b>>6) / 2^53 (legacy_double), and Gaussians by the polar
// method, which draws pairs and keeps the second value for the next call
// (legacy_gauss). It reproduces numpy's numbers bit for bit (the golden
// test compares with Debian's python3-numpy).
type MT struct {
	mt       [624]uint32
	pos      int
	hasGauss bool
	cached   float64 // the polar method's second value, if hasGauss
}

// New is np.random.seed(seed).
func New(seed uint32) *MT {
	m := &MT{pos: 624}
	m.mt[0] = seed
	for i := 1; i < 624; i++ {
		m.mt[i] = 1812433253*(m.mt[i-1]^(m.mt[i-1]>>30)) + uint32(i)
	}
	return m
}

// Uint32 is mt19937_next32.
func (m *MT) Uint32() uint32 {
	if m.pos == 624 {
		m.generate()
	}
	y := m.mt[m.pos]
	m.pos++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// generate refills the state (mt19937_gen).
func (m *MT) generate() {
	const upper, lower, matrixA = 0x80000000, 0x7fffffff, 0x9908b0df
	mt := &m.mt
	for i := 0; i < 624-397; i++ {
		y := mt[i]&upper | mt[i+1]&lower
		mt[i] = mt[i+397] ^ y>>1 ^ (y&1)*matrixA
	}
	for i := 624 - 397; i < 623; i++ {
		y := mt[i]&upper | mt[i+1]&lower
		mt[i] = mt[i+397-624] ^ y>>1 ^ (y&1)*matrixA
	}
	y := mt[623]&upper | mt[0]&lower
	mt[623] = mt[396] ^ y>>1 ^ (y&1)*matrixA
	m.pos = 0
}

// Double is legacy_double: a uniform in [0, 1) with 53 random bits.
func (m *MT) Double() float64 {
	a, b := m.Uint32()>>5, m.Uint32()>>6
	return (float64(a)*67108864.0 + float64(b)) / 9007199254740992.0
}

// Gauss is legacy_gauss: a standard normal by the polar method. The
// explicit float64 conversions keep every product rounded on its own, as
// numpy's C does (Go may otherwise fuse x*x + y into one FMA).
func (m *MT) Gauss() float64 {
	if m.hasGauss {
		m.hasGauss = false
		g := m.cached
		m.cached = 0
		return g
	}
	var x1, x2, r2 float64
	for {
		x1 = 2*m.Double() - 1
		x2 = 2*m.Double() - 1
		r2 = float64(x1*x1) + float64(x2*x2)
		if r2 < 1 && r2 != 0 {
			break
		}
	}
	f := math.Sqrt(-2 * Log(r2) / r2)
	m.cached = float64(f * x1)
	m.hasGauss = true
	return float64(f * x2)
}

// RowNorm is np.sqrt(np.square(z).sum()) for one row z as numpy
// computes it: squares summed pairwise (numpy's pairwise_sum: below 8
// terms in order; from 8 to 128, eight running sums r[0..7] over the
// multiples of 8, combined as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then
// the remaining terms in order).
func RowNorm(z []float64) float64 {
	n := len(z)
	if n < 8 {
		var s float64
		for _, v := range z {
			s += float64(v * v)
		}
		return math.Sqrt(s)
	}
	if n > 128 {
		panic("numpyrand: RowNorm beyond numpy's first pairwise block")
	}
	var r [8]float64
	for j := range r {
		r[j] = float64(z[j] * z[j])
	}
	i := 8
	for ; i < n-n%8; i += 8 {
		for j := range r {
			r[j] += float64(z[i+j] * z[i+j])
		}
	}
	s := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
	for ; i < n; i++ {
		s += float64(z[i] * z[i])
	}
	return math.Sqrt(s)
}

// Log is the natural logarithm as numpy's C gets it from glibc,
// which Go's math.Log is not: math.Log is within 1 ulp and differs from
// glibc's in the last bit for about 1 argument in 40. glibc's log is
// correctly rounded except within about 2^-15 ulp of a rounding boundary
// (relative error 2^-68 before rounding), so Log computes log(x) in
// double-double arithmetic to about 2^-77 and rounds it once: it agrees
// with glibc wherever glibc is correctly rounded, i.e. for all but about 1
// argument in 10^4 to 10^5 (TestNumpyLog measures it against the
// platform's libm through Python). Only for x > 0, finite (the polar
// method's r2 in (0, 1)).
//
// x = 2^e m with m in [sqrt(1/2), sqrt 2); c = m rounded to a multiple of
// 1/128, r = (m - c)/c as a double-double, log(x) = e ln2 + log(c) +
// log1p(r) with |r| < 1/180, log(c) from a table computed once with
// math/big, log1p by its series (the first three terms in double-double).
func Log(x float64) float64 {
	logTableOnce.Do(makeLogTable)
	m, e := math.Frexp(x) // x = m 2^e, m in [0.5, 1)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	k := int(m*128 + 0.5)
	c := float64(k) / 128
	d := m - c // exact: m and c are within 1/256 and share the ulp grid of 2^-53
	inv := logTable[k-logTableBase][2]
	rh := d * inv
	rl := math.FMA(-rh, c, d) * inv
	// log1p(r) = r - r^2/2 + r^3/3 - r^4 (1/4 - r/5 + r^2/6 - ...).
	s2h := rh * rh
	s2l := math.FMA(rh, rh, -s2h)
	t3h := s2h * rh
	t3l := math.FMA(s2h, rh, -t3h) + s2l*rh
	q3 := t3h * (1.0 / 3)
	q3l := (math.FMA(-q3, 3, t3h) + t3l) * (1.0 / 3)
	var tail float64
	for _, c := range log1pTail {
		tail = tail*rh + c
	}
	tail *= s2h * s2h
	small := tail + q3l - 0.5*s2l - rl*rh
	// The large terms, added exactly (twoSum) from the largest.
	lh, ll := twoSum(rh, -0.5*s2h)
	lh, err := twoSum(lh, q3)
	ll += err + rl + small
	lh, ll = twoSum(lh, ll)
	// + log(c) + e ln2.
	ch, cl := logTable[k-logTableBase][0], logTable[k-logTableBase][1]
	fe := float64(e)
	eh := fe * ln2Hi
	el := math.FMA(fe, ln2Hi, -eh) + fe*ln2Lo
	h, l := twoSum(eh, ch)
	h2, err2 := twoSum(h, lh)
	l += err2 + el + cl + ll
	return h2 + l
}

// log1pTail are the coefficients of log1p's series from r^4 on, highest
// first: (-1)^(n+1)/n for n = 14 down to 4.
var log1pTail = [...]float64{-1.0 / 14, 1.0 / 13, -1.0 / 12, 1.0 / 11, -1.0 / 10, 1.0 / 9, -1.0 / 8, 1.0 / 7, -1.0 / 6, 1.0 / 5, -1.0 / 4}

// twoSum returns s = fl(a+b) and the exact error a + b - s.
func twoSum(a, b float64) (s, err float64) {
	s = a + b
	bb := s - a
	err = (a - (s - bb)) + (b - bb)
	return s, err
}

// logTableBase is the first k of logTable: c = k/128 runs over
// [sqrt(1/2), sqrt 2) rounded, k = 91..181.
const logTableBase = 90

var (
	logTableOnce sync.Once
	// logTable[k-logTableBase] is log(k/128) as a double-double, and 128/k.
	logTable     [93][3]float64
	ln2Hi, ln2Lo float64
)

// makeLogTable computes log(k/128) and ln 2 to 200 bits with math/big:
// log(c) = 2 atanh((c-1)/(c+1)), atanh z = z + z^3/3 + z^5/5 + ...
func makeLogTable() {
	const prec = 200
	atanh2 := func(num, den int64) *big.Float {
		z := new(big.Float).SetPrec(prec).Quo(big.NewFloat(float64(num)).SetPrec(prec), big.NewFloat(float64(den)).SetPrec(prec))
		z2 := new(big.Float).SetPrec(prec).Mul(z, z)
		sum := new(big.Float).SetPrec(prec)
		term := new(big.Float).SetPrec(prec).Set(z)
		eps := new(big.Float).SetMantExp(big.NewFloat(1), -prec)
		for n := int64(1); ; n += 2 {
			t := new(big.Float).SetPrec(prec).Quo(term, big.NewFloat(float64(n)).SetPrec(prec))
			sum.Add(sum, t)
			if t.Abs(t).Cmp(eps) < 0 {
				break
			}
			term.Mul(term, z2)
		}
		return sum.Mul(sum, big.NewFloat(2))
	}
	split := func(v *big.Float) (hi, lo float64) {
		hi, _ = v.Float64()
		r := new(big.Float).SetPrec(prec).Sub(v, big.NewFloat(hi))
		lo, _ = r.Float64()
		return hi, lo
	}
	ln2Hi, ln2Lo = split(atanh2(1, 3)) // log 2 = 2 atanh(1/3)
	for i := range logTable {
		k := int64(logTableBase + i)
		logTable[i][0], logTable[i][1] = split(atanh2(k-128, k+128)) // log(k/128)
		logTable[i][2] = 128 / float64(k)
	}
}
