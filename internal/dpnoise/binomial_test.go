package dpnoise

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// binomPMF is the Binomial(n, p) pmf by log-gamma (relative error below
// 1e-7 for n <= 1e7, far inside what 1e5 draws resolve).
func binomPMF(n uint64, p float64) func(int64) float64 {
	fn := float64(n)
	ln, _ := math.Lgamma(fn + 1)
	return func(k int64) float64 {
		if k < 0 || uint64(k) > n {
			return 0
		}
		fk := float64(k)
		lk, _ := math.Lgamma(fk + 1)
		lnk, _ := math.Lgamma(fn - fk + 1)
		return math.Exp(ln - lk - lnk + fk*math.Log(p) + (fn-fk)*math.Log1p(-p))
	}
}

// binomChi draws n values of draw and runs the package's chi-square test
// (false-alarm rate alpha) against Binomial(size, p), with the mean and
// variance z-tests (alpha each).
func binomChi(t *testing.T, name string, size uint64, p float64, n int, draw func() uint64) {
	t.Helper()
	counts := map[int64]int{}
	xs := make([]float64, n)
	for i := range xs {
		k := draw()
		if k > size {
			t.Fatalf("%s: draw %d > n = %d", name, k, size)
		}
		counts[int64(k)]++
		xs[i] = float64(k)
	}
	mu, sd := float64(size)*p, math.Sqrt(float64(size)*p*(1-p))
	lo, hi := int64(math.Max(0, mu-8*sd-2)), int64(mu+8*sd+2)
	if sd == 0 {
		if len(counts) != 1 || counts[0] != n {
			t.Errorf("%s: n = 0 gave %v", name, counts)
		}
		return
	}
	chiSquare(t, fmt.Sprintf("%s n=%d", name, size), counts, n, binomPMF(size, p), lo, hi)
	c := cumulants(float64(size), p)
	meanVar(t, fmt.Sprintf("%s n=%d moments", name, size), xs, mu, c[2], c[4]+3*c[2]*c[2])
}

// cumulants returns kappa_1..kappa_6 of Binomial(n, p) (index = order).
func cumulants(n, p float64) [7]float64 {
	q := 1 - p
	v := n * p * q
	return [7]float64{0, n * p, v, v * (q - p), v * (1 - 6*p*q), v * (q - p) * (1 - 12*p*q), v * (1 - 30*p*q*(1-4*p*q))}
}

// Mutation controls (run 2026-11-27, each injected alone and reverted):
//   - offset off by one (t = s w + U + 1 on the positive side of
//     binomialReject): chi-square fails from n = 128 to 1e5 (n = 128:
//     7618 > 103.7; n = 1000: 2697 > 203.3; n = 2048 through BinomialHalf:
//     1952 > 262.4; n = 1e5: 1217 > 1185) and the variance (z = 15.9 at
//     n = 128); at 1e6 the shift (a fraction of a unit against a standard
//     deviation of 500) is beyond 1e5 draws;
//   - the 2^s factor dropped from the acceptance (A = r(i), in the squeeze,
//     logAccept and acceptExact): chi-square 6123 > 262.4 at n = 2048,
//     variance z = -65 to -69 at n = 2048 to 1e6;
//   - block width w/2 (envelope violated): the envelope check panics at
//     once, and with the check removed as well the chi-square fails at
//     every size (n = 1000: 2815 > 203.3; n = 1e6: 6354 > 3000);
//   - thinning with the second coin's p = 1/2 + 2^-17 (BinomialQuarter's
//     failures thinned 16 more times and added back): TestBinomialMoments
//     fails the mean at n = 1e9 (z = 89) and everything at 6e12; at
//     n = 1e6 the bias (3.8 against a standard error of 1.4) is below
//     what TestBinomialQuarter's 1e5 draws resolve.
//
// The float filter's controls are with TestBinomialFilter.
func TestBinomialHalf(t *testing.T) {
	const n = 100000
	for _, size := range []uint64{0, 1, 2, 7, 64, 65, 1000, popcountMax - 1, popcountMax, popcountMax + 1, 100000, 1000001} {
		src := source("binomial-half")
		binomChi(t, "BinomialHalf", size, 0.5, n, func() uint64 { return BinomialHalf(src, size) })
	}
}

// The rejection branch on its own, from its smallest size up, with n
// even (a = m) and odd (a = m+1).
func TestBinomialReject(t *testing.T) {
	const n = 100000
	for _, size := range []uint64{rejectMin, rejectMin + 1, 1000, 1001, 10000, 1000000} {
		src := source("binomial-reject")
		binomChi(t, "binomialReject", size, 0.5, n, func() uint64 { return binomialReject(src, size, true) })
	}
}

func TestBinomialQuarter(t *testing.T) {
	const n = 100000
	for _, size := range []uint64{1, 10, 1000, 100000, 1000000} {
		src := source("binomial-quarter")
		binomChi(t, "BinomialQuarter", size, 0.25, n, func() uint64 { return BinomialQuarter(src, size) })
	}
}

// The exact path alone (filter off: every acceptance decided in math/big)
// has the same law. More: both paths decide the same event U' < A, and
// the filter decides only when the first 53 bits of U' already do, so the same
// stream gives the same draws, draw for draw; they could part only if
// A fell within about 2^-120 of an end of the 53-bit interval of U', where the
// 128-bit bracket cannot decide. So draws do not depend on the platform's
// math.Exp either.
//
// Mutation controls (run 2026-11-27): dropping the Stirling correction
// D(m) + D(a) - D(k) - D(l) from logAccept makes a filtered draw differ
// from the exact one at n = 128 (draw 2911: 53 against 63) and fails
// TestLogAcceptBound (n = 128, i = 2: error 2.6e-6 > bound 9.2e-15);
// 2^-60 instead of 2^-44 as b's factor fails TestLogAcceptBound (n = 128,
// i = -10: error 1.2e-15 > bound 3.6e-17). Unmutated, the largest
// error is 0.5% of the bound. The squeeze: a lower bound too high
// (-t(t-1)/(m-t+1)) fails TestBinomialEnvelope, the chi-square at
// n = 129 (278 > 102.2) and the identity at n = 128 (draw 28: 69
// against 63); half the (1 - (xHi - xLo)) correction fails the identity
// at n = 1001 (draw 36) and the mean at n = 129 (z = -5.8).
func TestBinomialFilter(t *testing.T) {
	for _, c := range []struct {
		size uint64
		n    int
	}{{rejectMin, 30000}, {1001, 30000}, {10000, 5000}} {
		src := source("binomial-exact")
		binomChi(t, "exact path", c.size, 0.5, c.n, func() uint64 { return binomialReject(src, c.size, false) })
		a, b := source("binomial-same"), source("binomial-same")
		for i := range c.n {
			x, y := binomialReject(a, c.size, true), binomialReject(b, c.size, false)
			if x != y {
				t.Fatalf("n = %d, draw %d: filtered %d, exact %d", c.size, i, x, y)
			}
		}
	}
}

// logAccept's interval [l - b, l + b] must contain ln A(i) (bracketed in
// math/big at 256 bits), and be narrow (so that acceptExact is rare).
// A deterministic check over offsets spread across the range it serves.
func TestLogAcceptBound(t *testing.T) {
	sizes := []uint64{rejectMin, 129, 1000, 1001, 1000000, 1000001, 1000000000}
	if !testing.Short() {
		sizes = append(sizes, 6000000000000, 6000000000001)
	}
	var worst float64
	for _, n := range sizes {
		m, a := n/2, n-n/2
		w := blockWidth(m)
		r := rand.New(source("logaccept"))
		// Offsets in the first blocks (where acceptance is likely) and
		// up to |i| = m/2; large offsets only at moderate n (the big
		// product costs |i| steps).
		var offs []int64
		switch {
		case n <= 1000001:
			for range 30 {
				offs = append(offs, r.Int64N(int64(3*w)), -1-r.Int64N(int64(3*w)))
			}
		case n <= 1000000000:
			for range 8 {
				offs = append(offs, r.Int64N(int64(3*w)), -1-r.Int64N(int64(3*w)))
			}
		default: // a few offsets up to the first block's end (about 1 s each)
			offs = append(offs, 1, -1, 1000, -1000, int64(w/3), -int64(w/3), int64(w-1), -int64(w))
		}
		if n <= 1000001 {
			for range 10 {
				offs = append(offs, r.Int64N(int64(m/2)+1), -r.Int64N(int64(m/2)+1))
			}
		}
		for _, i := range offs {
			t0 := i
			if t0 < 0 {
				t0 = -i - 1
			}
			s := uint64(t0) / w
			l, b := logAccept(m, a, i, s)
			lo, hi := ratioBounds(m, a, i, 256)
			lo.SetMantExp(lo, int(s))
			hi.SetMantExp(hi, int(s))
			// ln A is within [ln lo, ln hi], each computed to about
			// 2^-52 relative by refLog.
			rlo, rhi := refLog(lo), refLog(hi)
			err := math.Max(math.Abs(l-rlo), math.Abs(l-rhi))
			slack := 0x1p-50 * math.Max(math.Abs(rlo), 0x1p-20)
			if err > b+slack {
				t.Errorf("n = %d, i = %d, s = %d: |l - ln A| = %.3g > bound %.3g", n, i, s, err, b)
			}
			worst = math.Max(worst, err/b)
			if i != 0 && b > 1e-10 && math.Abs(float64(i)) < 3*float64(w) {
				t.Errorf("n = %d, i = %d: band %.3g too wide", n, i, b)
			}
		}
	}
	t.Logf("largest error/bound %.3g", worst)
}

// refLog is ln x for x > 0, accurate to a few ulps of the result: log1p
// of x - 1 (exact in math/big) near 1, ln mant + exp ln 2 elsewhere.
func refLog(x *big.Float) float64 {
	d := new(big.Float).SetPrec(x.Prec()).Sub(x, big.NewFloat(1))
	if fd, _ := d.Float64(); math.Abs(fd) < 0.25 {
		return math.Log1p(fd)
	}
	mant := new(big.Float)
	exp := x.MantExp(mant)
	fm, _ := mant.Float64()
	return math.Log(fm) + float64(exp)*math.Ln2
}

// The envelope lemma, checked exhaustively: A(i) = r(i) 2^s <= 1 for
// every offset of every n in [rejectMin, 400] and of n = 10^4, 10^4+1,
// 10^6 and 10^6+1, with r(i) rounded up in math/big; the squeeze's bounds
// (squeezeBounds), up to float64 rounding, at every offset for n <= 400
// and every 97th above; and blockWidth is the least width that satisfies
// its condition.
func TestBinomialEnvelope(t *testing.T) {
	sizes := []uint64{10000, 10001, 1000000, 1000001}
	for n := uint64(rejectMin); n <= 400; n++ {
		sizes = append(sizes, n)
	}
	one := big.NewFloat(1)
	for _, n := range sizes {
		m, a := n/2, n-n/2
		w := blockWidth(m)
		for _, neg := range []bool{false, true} {
			lo := new(big.Float).SetPrec(128).SetMode(big.ToZero).SetInt64(1)
			hi := new(big.Float).SetPrec(128).SetMode(big.AwayFromZero).SetInt64(1)
			qLo := new(big.Float).SetPrec(128).SetMode(big.ToZero)
			qHi := new(big.Float).SetPrec(128).SetMode(big.AwayFromZero)
			x := new(big.Float)
			last := a
			if neg {
				last = m
			}
			for tt := uint64(1); tt <= last; tt++ {
				// r(t) = r(t-1) (a-t+1)/(m+t); r(-t) = r(-t+1) (m-t+1)/(a+t);
				// offset t is in block t/w, offset -t in block (t-1)/w.
				num, den, s := a-tt+1, m+tt, tt/w
				if neg {
					num, den, s = m-tt+1, a+tt, (tt-1)/w
				}
				nf, df := new(big.Float).SetUint64(num), new(big.Float).SetUint64(den)
				lo.Mul(lo, qLo.Quo(nf, df))
				hi.Mul(hi, qHi.Quo(nf, df))
				if x.SetMantExp(hi, int(s)).Cmp(one) > 0 {
					t.Fatalf("n = %d, neg %v: A(%d) > 1", n, neg, tt)
				}
				if n > 400 && tt%97 != 0 {
					continue // the squeeze's bounds at every 97th offset
				}
				lnLo, lnHi := squeezeBounds(m, tt)
				tol := 1e-14 * math.Max(1, -lnLo)
				if rh := refLog(hi); rh > lnHi+tol {
					t.Fatalf("n = %d, neg %v, t = %d: ln r = %v above the squeeze's %v", n, neg, tt, rh, lnHi)
				}
				if rl := refLog(lo); tt <= m/2 && rl < lnLo-tol {
					t.Fatalf("n = %d, neg %v, t = %d: ln r = %v below the squeeze's %v", n, neg, tt, rl, lnLo)
				}
			}
		}
	}
	for _, m := range []uint64{64, 65, 500, 1 << 20, 3000000000000, 1 << 51} {
		w := blockWidth(m)
		if 512*(w*w-w) < 355*(m+w) || w > 1 && 512*((w-1)*(w-1)-(w-1)) >= 355*(m+w-1) {
			t.Errorf("blockWidth(%d) = %d is not the least width", m, w)
		}
		if float64(w) < math.Sqrt(math.Ln2*float64(m)) {
			t.Errorf("blockWidth(%d) = %d below sqrt(m ln 2)", m, w)
		}
	}
}

// An acceptance probability above 1 (which the envelope lemma rules out)
// panics on both paths rather than being clipped: offset 1 with s = 5
// has A = 32 r(1) > 1.
func TestBinomialEnvelopePanics(t *testing.T) {
	for _, filter := range []bool{true, false} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("filter %v: A > 1 did not panic", filter)
				}
			}()
			acceptHalf(source("envelope-panic"), 500, 500, 1, 5, filter)
		}()
	}
}

// Moments at the sizes P_TVec uses, where the pmf has too many values for
// a chi-square: mean, variance and third central moment, each a z-test
// at alpha (the third through mu_6 = k6 + 15 k4 k2 + 10 k3^2 + 15 k2^3).
func TestBinomialMoments(t *testing.T) {
	const n = 100000
	for _, size := range []uint64{1000000000, 6000000000000, 1<<53 + 3} {
		for _, c := range []struct {
			name string
			p    float64
			draw func(rand.Source, uint64) uint64
		}{{"BinomialHalf", 0.5, BinomialHalf}, {"BinomialQuarter", 0.25, BinomialQuarter}} {
			nn := n
			if size > rejectMax {
				nn = n / 10
			}
			src := source("binomial-moments")
			xs := make([]float64, nn)
			for i := range xs {
				xs[i] = float64(c.draw(src, size))
			}
			k := cumulants(float64(size), c.p)
			mu := k[1]
			name := fmt.Sprintf("%s n=%d", c.name, size)
			meanVar(t, name, xs, mu, k[2], k[4]+3*k[2]*k[2])
			var m3 float64
			for _, x := range xs {
				d := x - mu
				m3 += d * d * d
			}
			m3 /= float64(nn)
			mu6 := k[6] + 15*k[4]*k[2] + 10*k[3]*k[3] + 15*k[2]*k[2]*k[2]
			if z := (m3 - k[3]) / math.Sqrt((mu6-k[3]*k[3])/float64(nn)); math.Abs(z) > zAlpha {
				t.Errorf("%s: third central moment %.4g, want %.4g (z = %.2f, false-alarm rate %g)", name, m3, k[3], z, alpha)
			}
		}
	}
}

// Symmetry of Binomial(n, 1/2) about n/2: for n even, draws above m
// against draws below, Binomial(above+below, 1/2); for n odd, P(k <= m)
// = 1/2 exactly. z-tests at alpha.
func TestBinomialSymmetry(t *testing.T) {
	const n = 200000
	for _, size := range []uint64{1000000, 1000001, 6000000000000, 6000000000001} {
		src := source("binomial-symmetry")
		m := size / 2
		var up, down int
		for range n {
			k := BinomialHalf(src, size)
			switch {
			case k > m:
				up++
			case k < m || size%2 == 1:
				down++
			}
		}
		if tot := float64(up + down); tot > 0 {
			if z := (float64(up) - tot/2) / math.Sqrt(tot/4); math.Abs(z) > zAlpha {
				t.Errorf("n = %d: %d above vs %d below (z = %.2f)", size, up, down, z)
			}
		}
	}
}

// pinnedBinomial are the first draws of BinomialQuarter on the
// "binomial-pin" test stream at n = 1e3, 1e6, 1e9 and 6e12.
var pinnedBinomial = [][]uint64{
	{229, 235, 272, 254, 245, 248},
	{249861, 250289, 250326, 251116, 250324, 250492},
	{249995654, 250009139, 250010297, 250035224, 250010263, 250015535},
	{1499999663471, 1500000707876, 1500000797579, 1500002728186, 1500000795027, 1500001203304},
}

// Deterministic given the stream: two sources with the same key give the
// same draws, and the pinned draws catch any change to the algorithm or
// to the order in which it consumes the stream.
func TestBinomialDeterminism(t *testing.T) {
	var got [][]uint64
	for _, size := range []uint64{1000, 1000000, 1000000000, 6000000000000} {
		a, b := source("binomial-pin"), source("binomial-pin")
		var row []uint64
		for range 6 {
			x, y := BinomialQuarter(a, size), BinomialQuarter(b, size)
			if x != y {
				t.Fatalf("n = %d: %d and %d from the same stream", size, x, y)
			}
			row = append(row, x)
		}
		got = append(got, row)
	}
	t.Logf("pinned draws %v", got)
	if len(pinnedBinomial) != len(got) {
		t.Fatalf("pinned draws %v, want %v", got, pinnedBinomial)
	}
	for i := range got {
		for j := range got[i] {
			if got[i][j] != pinnedBinomial[i][j] {
				t.Fatalf("pinned draws %v, want %v", got, pinnedBinomial)
			}
		}
	}
}

// The largest n: 4096 exact chunks, a draw within 2^40 of the mean
// (64 standard deviations).
func TestBinomialMaxN(t *testing.T) {
	if testing.Short() {
		t.Skip("4096 chunks")
	}
	k := BinomialHalf(source("binomial-max"), math.MaxUint64)
	if d := math.Abs(float64(k) - 0x1p63); d > 0x1p40 {
		t.Errorf("BinomialHalf(2^64-1) = %d", k)
	}
}

var sink uint64

func BenchmarkBinomialQuarter(b *testing.B) {
	for _, n := range []uint64{1000, 1000000, 1000000000, 6000000000000} {
		b.Run(fmt.Sprintf("n=%.0e", float64(n)), func(b *testing.B) {
			src := source("bench")
			for b.Loop() {
				sink += BinomialQuarter(src, n)
			}
		})
	}
}

func BenchmarkBinomialHalf(b *testing.B) {
	for _, n := range []uint64{1000, 1000000, 1000000000, 6000000000000} {
		b.Run(fmt.Sprintf("n=%.0e", float64(n)), func(b *testing.B) {
			src := source("bench")
			for b.Loop() {
				sink += BinomialHalf(src, n)
			}
		})
	}
}

// BenchmarkBinomialHalfSmall places popcountMax: counting bits against
// rejection around it.
func BenchmarkBinomialHalfSmall(b *testing.B) {
	for _, n := range []uint64{256, 1024, 2048, 4096} {
		b.Run(fmt.Sprintf("popcount/n=%d", n), func(b *testing.B) {
			src := source("bench")
			for b.Loop() {
				sink += binomialPopcount(src, n)
			}
		})
		b.Run(fmt.Sprintf("reject/n=%d", n), func(b *testing.B) {
			src := source("bench")
			for b.Loop() {
				sink += binomialReject(src, n, true)
			}
		})
	}
}

// The sampler federate/vecsum.go uses today, for comparison.
func BenchmarkGonumBinomialQuarter(b *testing.B) {
	for _, n := range []uint64{1000, 1000000, 1000000000, 6000000000000} {
		b.Run(fmt.Sprintf("n=%.0e", float64(n)), func(b *testing.B) {
			d := distuv.Binomial{N: float64(n), P: 0.25, Src: source("bench")}
			for b.Loop() {
				sink += uint64(d.Rand())
			}
		})
	}
}

// logAccept's bound and acceptHalf's margins rest on math.Log1p erring by
// less than one ulp (its FreeBSD original's documented bound; b allows
// about 100) and math.Exp by less than 2^11 ulps (amd64 uses a SLEEF-based
// assembly version with no documented bound: 19 ulp at worst here, growing
// with |x|). Both are checked against 200-bit references on the ranges
// the sampler uses; the test fails at 2 and 64 ulps.
func TestExpAccuracy(t *testing.T) {
	const prec = 200
	ln2 := new(big.Float).SetPrec(prec) // sum of 1/(k 2^k)
	for k := 1; k <= 230; k++ {
		term := new(big.Float).SetPrec(prec).SetMantExp(big.NewFloat(1), -k)
		ln2.Add(ln2, term.Quo(term, new(big.Float).SetInt64(int64(k))))
	}
	ulps := func(got float64, ref *big.Float) float64 {
		r, _ := ref.Float64()
		d := new(big.Float).SetPrec(prec).Sub(new(big.Float).SetFloat64(got), ref)
		fd, _ := d.Float64()
		return math.Abs(fd) / (math.Nextafter(math.Abs(r), math.Inf(1)) - math.Abs(r))
	}
	r := rand.New(source("math-accuracy"))
	var worstExp, worstLog float64
	for range 3000 {
		// exp(x) = 2^k exp(y), y = x - k ln 2 in [-0.35, 0.35], by Taylor.
		x := -700 * r.Float64()
		k := math.Round(x / math.Ln2)
		y := new(big.Float).SetPrec(prec).SetFloat64(x)
		y.Sub(y, new(big.Float).SetPrec(prec).Mul(ln2, big.NewFloat(k)))
		sum, term := new(big.Float).SetPrec(prec).SetInt64(1), new(big.Float).SetPrec(prec).SetInt64(1)
		for j := int64(1); j <= 60; j++ {
			term.Mul(term, y).Quo(term, new(big.Float).SetInt64(j))
			sum.Add(sum, term)
		}
		sum.SetMantExp(sum, int(k))
		worstExp = math.Max(worstExp, ulps(math.Exp(x), sum))

		// log1p(e) = 2 atanh(z), z = e/(2+e), |z| <= 1/3.
		e := r.Float64() - 0.5
		z := new(big.Float).SetPrec(prec).SetFloat64(e)
		z.Quo(z, new(big.Float).SetPrec(prec).Add(big.NewFloat(2), big.NewFloat(e)))
		z2 := new(big.Float).SetPrec(prec).Mul(z, z)
		lsum, pow := new(big.Float).SetPrec(prec), new(big.Float).SetPrec(prec).Set(z)
		for j := int64(1); j <= 261; j += 2 {
			lsum.Add(lsum, new(big.Float).SetPrec(prec).Quo(pow, new(big.Float).SetInt64(j)))
			pow.Mul(pow, z2)
		}
		lsum.SetMantExp(lsum, 1)
		if e != 0 {
			worstLog = math.Max(worstLog, ulps(math.Log1p(e), lsum))
		}
	}
	t.Logf("largest errors: math.Exp %.2f ulp, math.Log1p %.2f ulp", worstExp, worstLog)
	if worstExp > 64 || worstLog > 2 {
		t.Errorf("math.Exp errs by %.2f ulp (margin allows 2^11), math.Log1p by %.2f (assumed < 1)", worstExp, worstLog)
	}
}
