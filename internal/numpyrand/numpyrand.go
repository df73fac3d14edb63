// Package numpyrand is numpy's legacy random stream, the one behind
// np.random.seed(s) with an integer s and np.random.randn, bit for bit:
// MT19937, legacy_double, the polar method's legacy_gauss, and the
// natural logarithm as numpy's C gets it from glibc. The published code's
// synthetic instance is drawn from it (federate's ContextsNumPy).
package numpyrand

import (
	"math"
	"math/big"
	"math/bits"
)

// MT is numpy's legacy random stream, the one behind np.random.seed(s)
// with an integer s and np.random.randn: MT19937 seeded by init_genrand
// (numpy's mt19937_seed), doubles from two 32-bit outputs as
// (a>>5 * 2^26 + b>>6) / 2^53 (legacy_double), and Gaussians by the polar
// method, which draws pairs and keeps the second value for the next call
// (legacy_gauss). It reproduces numpy's numbers bit for bit (the golden
// test in federate compares with Debian's python3-numpy).
//
// The state is refilled a block of 624 words at a time and the block is
// tempered at once; Fill draws many normals in one pass (the pairs first,
// without branches on the rejections, then their logarithms), Skip
// advances the stream without computing the normals it passes.
type MT struct {
	mt       [624]uint32
	out      [624]uint32 // the tempered outputs of the current block
	pos      int         // next output in out
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
	y := m.out[m.pos]
	m.pos++
	return y
}

// generate refills the state (mt19937_gen) and tempers the new block
// into out: the words are computed eight at a time by twist (i < 224 from
// the old words 397 ahead, 227 <= i < 619 from the new ones 227 behind),
// the few others one by one.
func (m *MT) generate() {
	mt := &m.mt
	twist(mt[0:224], mt[1:225], mt[397:621])
	for i := 224; i < 227; i++ {
		mt[i] = twistWord(mt[i], mt[i+1], mt[i+397])
	}
	twist(mt[227:619], mt[228:620], mt[0:392])
	for i := 619; i < 623; i++ {
		mt[i] = twistWord(mt[i], mt[i+1], mt[i-227])
	}
	mt[623] = twistWord(mt[623], mt[0], mt[396])
	temper(&m.out, mt)
	m.pos = 0
}

// twistWord is MT19937's recurrence for one word: cur is the word
// replaced, next the one after it, far the word 397 places ahead.
func twistWord(cur, next, far uint32) uint32 {
	const upper, lower, matrixA = 0x80000000, 0x7fffffff, 0x9908b0df
	y := cur&upper | next&lower
	return far ^ y>>1 ^ (y&1)*matrixA
}

// twist sets dst[j] = twistWord(dst[j], next[j], far[j]) for j <
// len(dst), a multiple of 8, in increasing j (next may be dst shifted by
// one). It is the AVX2 kernel where the CPU has it, else twistGo.
var twist = twistGo

func twistGo(dst, next, far []uint32) {
	next, far = next[:len(dst)], far[:len(dst)]
	for j := range dst {
		dst[j] = twistWord(dst[j], next[j], far[j])
	}
}

// temper writes MT19937's tempering of mt[i] to out[i]; the AVX2 kernel
// where the CPU has it, else temperGo.
var temper = temperGo

func temperGo(out, mt *[624]uint32) {
	for i, y := range mt {
		y ^= y >> 11
		y ^= (y << 7) & 0x9d2c5680
		y ^= (y << 15) & 0xefc60000
		y ^= y >> 18
		out[i] = y
	}
}

// Double is legacy_double: a uniform in [0, 1) with 53 random bits.
func (m *MT) Double() float64 {
	a, b := m.Uint32()>>5, m.Uint32()>>6
	return (float64(float64(a)*67108864.0) + float64(b)) / 9007199254740992.0
}

// signed is 2 legacy_double - 1 from the outputs a and b: the same bits,
// as (a>>5 * 2^26 + b>>6) * 2^-52 - 1 is exact (an integer below 2^53
// scaled by a power of two, then a difference of multiples of 2^-52 in
// [-1, 1)).
func signed(a, b uint32) float64 {
	// int64, not uint64: the integer is below 2^53, and Go converts a
	// signed integer in one instruction, an unsigned one with a test.
	return float64(float64(int64(a>>5)<<26|int64(b>>6))*0x1p-52) - 1
}

// accepted is 1 when the polar method keeps a candidate of sum of squares
// s (finite, >= 0), s < 1 and s != 0, else 0, without a branch: for such
// s the bit patterns order as the values, so with u = bits(s) - 1 (all
// ones for s = 0) s is kept exactly when u < bits(1) - 1; ^u clears the
// sign of the difference for s = 0. A branch here is mispredicted for
// about one candidate in five (the rejection rate 1 - pi/4).
func accepted(s float64) int {
	const one = 0x3ff0000000000000 // bits(1.0)
	u := math.Float64bits(s) - 1
	return int((u - (one - 1)) & ^u >> 63)
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

// pairBatch is the number of polar pairs Fill collects before taking
// their logarithms.
const pairBatch = 64

// Fill writes the next len(dst) normals of the stream to dst: exactly
// what len(dst) calls of Gauss would return, leaving the same state.
func (m *MT) Fill(dst []float64) {
	n := 0
	if m.hasGauss && len(dst) > 0 {
		dst[0] = m.Gauss()
		n = 1
	}
	var x1, x2, r2 [pairBatch]float64
	for len(dst)-n >= 2 {
		k := m.pairs(&x1, &x2, &r2, min((len(dst)-n)/2, pairBatch))
		out := dst[n : n+2*k]
		k4 := k &^ 3
		undecided := polar(out[:2*k4], x1[:k4], x2[:k4], r2[:k4])
		for undecided != 0 {
			j := bits.TrailingZeros64(undecided)
			undecided &= undecided - 1
			polarPair(out[2*j:], x1[j], x2[j], r2[j])
		}
		for j := k4; j < k; j++ {
			polarPair(out[2*j:], x1[j], x2[j], r2[j])
		}
		n += 2 * k
	}
	if n < len(dst) {
		dst[n] = m.Gauss()
	}
}

// polarPair writes the polar method's two normals of an accepted pair to
// out[0] and out[1], in Gauss's order.
func polarPair(out []float64, x1, x2, r2 float64) {
	f := math.Sqrt(-2 * Log(r2) / r2)
	out[0] = float64(f * x2)
	out[1] = float64(f * x1)
}

// polar writes the normals of the accepted pairs j < len(r2) (a multiple
// of 4, at most 64) as polarPair does, with logFast's logarithm, and
// returns the pairs where logFast is undecided (bit j; their outputs are
// left for polarPair). It is the AVX2 kernel where the CPU has AVX2 and
// FMA, else polarGo, with identical results.
var polar = polarGo

func polarGo(dst, x1, x2, r2 []float64) (undecided uint64) {
	for j, x := range r2 {
		y, ok := logFast(x)
		if !ok {
			undecided |= 1 << j
			continue
		}
		f := math.Sqrt(-2 * y / x)
		dst[2*j] = float64(f * x2[j])
		dst[2*j+1] = float64(f * x1[j])
	}
	return undecided
}

// polarConsts is the length of polarConstTable.
const polarConsts = 27

// polarConstTable holds the constants of the polar kernel, as bits, at
// the offsets mt_amd64.s reads them (8 bytes each).
var polarConstTable [polarConsts]uint64

func makePolarConsts() (c [polarConsts]uint64) {
	f := math.Float64bits
	c = [polarConsts]uint64{
		1<<52 - 1, 1023 << 52, 0x433 << 52, f(1<<52 + 1023),
		f(math.Sqrt2), f(0.5), f(1), f(128), f(1.0 / 128),
		f(1.0 / 3), f(-1.0 / 4), f(1.0 / 5), f(-1.0 / 6), f(1.0 / 7), f(-1.0 / 8), f(1.0 / 9), f(-1.0 / 10),
		f(ln2Hi), f(ln2Lo), f(-0.5), 1<<63 - 1, f(0x1p-50), f(0x1p-64), 0x7ff << 52, f(0x1p-53), f(-2),
		logTableBase,
	}
	return c
}

// Skip advances the stream by n normals, as n calls of Gauss would,
// computing only the last pair's values (if its second one is left for
// the next call).
func (m *MT) Skip(n int) {
	if n > 0 && m.hasGauss {
		m.Gauss()
		n--
	}
	var x1, x2, r2 [pairBatch]float64
	for n >= 2 {
		n -= 2 * m.pairs(&x1, &x2, &r2, min(n/2, pairBatch))
	}
	if n == 1 {
		m.Gauss()
	}
}

// pairs draws up to want (<= pairBatch) accepted polar pairs into x1, x2
// and r2 and returns their number (at least 1 if want >= 1). Within a
// block it reads the outputs directly and keeps every candidate, moving
// on only past accepted ones (no branch on the rejection); candidates
// that straddle two blocks go through Uint32.
func (m *MT) pairs(x1, x2, r2 *[pairBatch]float64, want int) int {
	k := 0
	for k < want {
		if m.pos > 624-4 {
			a := signed(m.Uint32(), m.Uint32())
			b := signed(m.Uint32(), m.Uint32())
			s := float64(a*a) + float64(b*b)
			if s < 1 && s != 0 {
				x1[k], x2[k], r2[k] = a, b, s
				k++
			}
			continue
		}
		out := &m.out
		p := m.pos
		for k < want && p <= 624-4 {
			w := (*[4]uint32)(out[p : p+4])
			a := signed(w[0], w[1])
			b := signed(w[2], w[3])
			p += 4
			s := float64(a*a) + float64(b*b)
			j := k & (pairBatch - 1) // k < want <= pairBatch
			x1[j], x2[j], r2[j] = a, b, s
			k += accepted(s)
		}
		m.pos = p
	}
	return k
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

// Log is the natural logarithm as numpy's C gets it from glibc: logSlow's
// result, bit for bit, in a fraction of its time. logFast computes log(x)
// to about 2^-62 with an error bound and returns its rounding when the
// bound shows that logSlow rounds to the same double; the rest (about 1
// argument in 1000) goes to logSlow. Only for x > 0, finite.
func Log(x float64) float64 {
	if y, ok := logFast(x); ok {
		return y
	}
	return logSlow(x)
}

// logFast is logSlow's reduction (x = 2^e m, c = m rounded to k/128,
// r = (m - c)/c = rh + rl, |rh| < 2^-7.4) with the large terms
// e ln2 + log(c) + rh - rh^2/2 added exactly (twoSum, rh^2 split by an
// FMA) and log1p(r) - r + r^2/2 as a polynomial in rh in plain double.
// The sum is y + l exactly, with y = fl(y + l); the true logarithm is
// within E = 2^-50 |rh|^3 + 2^-64 (|s| + |y|) of it, s being
// e ln2 + log(c): the polynomial's rounding errors are below
// 2^-51 |rh|^3 and its truncation below 2^-80 |rh|^3, the small terms'
// sum rounds within 2^-52 |rh|^3 + 2^-100 (|s| + |y|), and the second
// term also covers logSlow's own error, at most 2^-70 |y|. logSlow
// returns the rounding of its value A, and |A - y| <= |l| + E, so if
// |l| + E is below half an ulp of y, A rounds to y: ok. A y with an
// all-zero mantissa (a power of two: the ulp below is half the ulp
// above), arguments that are not positive normal numbers and the
// undecided cases return ok = false. TestLog compares Log with logSlow
// on 10^7 arguments and counts the fallbacks.
func logFast(x float64) (y float64, ok bool) {
	b := math.Float64bits(x)
	if b-(1<<52) >= 0x7fe<<52 { // zero, subnormal, negative, Inf or NaN
		return 0, false
	}
	e := int(b>>52) - 1023
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52) // [1, 2)
	if m >= math.Sqrt2 {
		m *= 0.5
		e++
	}
	k := int(float64(m*128) + 0.5)
	t := &logTable[k-logTableBase]
	c := float64(float64(k) * (1.0 / 128))
	d := m - c // exact
	rh := float64(d * t[2])
	rl := float64(math.FMA(-rh, c, d) * t[2])
	r2 := rh * rh
	r2l := math.FMA(rh, rh, -r2) // rh^2 = r2 + r2l exactly
	// log1p(r) - r + r^2/2 = r^3 q(r), q(r) = 1/3 - r/4 + r^2/5 - ... -
	// r^7/10, by Estrin's scheme (a short dependency chain).
	r4 := r2 * r2
	q01 := math.FMA(-1.0/4, rh, 1.0/3)
	q23 := math.FMA(-1.0/6, rh, 1.0/5)
	q45 := math.FMA(-1.0/8, rh, 1.0/7)
	q67 := math.FMA(-1.0/10, rh, 1.0/9)
	q := math.FMA(r4, math.FMA(r2, q67, q45), math.FMA(r2, q23, q01))
	r3 := r2 * rh
	p := float64(q * r3)
	fe := float64(e)
	eh := float64(fe * ln2Hi)
	el := math.FMA(fe, ln2Hi, -eh) + float64(fe*ln2Lo)
	s, s1 := twoSum(eh, t[0])
	h1, s2 := twoSum(s, rh)
	h, s3 := twoSum(h1, float64(-0.5*r2))
	low := (p + (rl - float64(rl*rh))) + ((s1 + s2) + (s3 - float64(0.5*r2l)) + (el + t[1]))
	y = h + low
	l := low - (y - h)
	yb := math.Float64bits(y)
	if yb&(1<<52-1) == 0 {
		return 0, false
	}
	half := math.Float64frombits(yb&(0x7ff<<52)) * 0x1p-53
	bound := float64(0x1p-50*math.Abs(r3)) + float64(0x1p-64*(math.Abs(s)+math.Abs(y)))
	return y, math.Abs(l)+bound < half
}

// logSlow is the natural logarithm as numpy's C gets it from glibc,
// which Go's math.Log is not: math.Log is within 1 ulp and differs from
// glibc's in the last bit for about 1 argument in 40. glibc's log is
// correctly rounded except within about 2^-15 ulp of a rounding boundary
// (relative error 2^-68 before rounding), so logSlow computes log(x) in
// double-double arithmetic to about 2^-77 and rounds it once: it agrees
// with glibc wherever glibc is correctly rounded, i.e. for all but about 1
// argument in 10^4 to 10^5. Only for x > 0, finite (the polar
// method's r2 in (0, 1)).
//
// x = 2^e m with m in [sqrt(1/2), sqrt 2); c = m rounded to a multiple of
// 1/128, r = (m - c)/c as a double-double, log(x) = e ln2 + log(c) +
// log1p(r) with |r| < 1/180, log(c) from a table computed once with
// math/big, log1p by its series (the first three terms in double-double).
func logSlow(x float64) float64 {
	m, e := math.Frexp(x) // x = m 2^e, m in [0.5, 1)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	k := int(float64(m*128) + 0.5)
	c := float64(float64(k) / 128)
	d := m - c // exact: m and c are within 1/256 and share the ulp grid of 2^-53
	inv := logTable[k-logTableBase][2]
	rh := float64(d * inv)
	rl := float64(math.FMA(-rh, c, d) * inv)
	// log1p(r) = r - r^2/2 + r^3/3 - r^4 (1/4 - r/5 + r^2/6 - ...).
	s2h := float64(rh * rh)
	s2l := math.FMA(rh, rh, -s2h)
	t3h := s2h * rh
	t3l := math.FMA(s2h, rh, -t3h) + float64(s2l*rh)
	q3 := float64(t3h * (1.0 / 3))
	q3l := float64((math.FMA(-q3, 3, t3h) + t3l) * (1.0 / 3))
	var tail float64
	for _, c := range log1pTail {
		tail = float64(tail*rh) + c
	}
	tail = float64(tail * (s2h * s2h))
	small := tail + q3l - float64(0.5*s2l) - float64(rl*rh)
	// The large terms, added exactly (twoSum) from the largest.
	lh, ll := twoSum(rh, float64(-0.5*s2h))
	lh, err := twoSum(lh, q3)
	ll += err + rl + small
	lh, ll = twoSum(lh, ll)
	// + log(c) + e ln2.
	ch, cl := logTable[k-logTableBase][0], logTable[k-logTableBase][1]
	fe := float64(e)
	eh := float64(fe * ln2Hi)
	el := math.FMA(fe, ln2Hi, -eh) + float64(fe*ln2Lo)
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
	// logTable[k-logTableBase] is log(k/128) as a double-double, and 128/k.
	logTable     [93][3]float64
	ln2Hi, ln2Lo float64
)

func init() {
	makeLogTable()
	polarConstTable = makePolarConsts()
}

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
