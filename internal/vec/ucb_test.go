package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedbandit/fedbandit/internal/stattest"
)

// ucbKernelFunc is the signature of Kernels.UCBScores.
type ucbKernelFunc = func(dst, x []float64, nb, d int, p, theta []float64, beta float64)

// ucbScoresRef is Kernels.UCBScores written from its doc comment, one action at a
// time: the operation order the kernels must reproduce exactly.
func ucbScoresRef(dst, x []float64, nb, d int, p, theta []float64, beta float64) {
	xa := make([]float64, d)
	for a := 0; a < Lanes*nb; a++ {
		PanelRow(xa, x, a)
		var m float64
		for j := 0; j < d; j++ {
			m = math.FMA(theta[j], xa[j], m)
		}
		w := refWidth(xa, p)
		w0 := 0.0
		if w > 0 {
			w0 = w
		}
		dst[a] = math.FMA(beta, math.Sqrt(w0), m)
	}
}

// ucbCase is one kernel input.
type ucbCase struct {
	name     string
	nb, d    int
	x        []float64 // panel, PanelLen(4nb, d) values
	p, theta []float64
	beta     float64
}

// ucbCases returns the kernel inputs of the equivalence tests: every d in
// 1..64 with 1 to 40 blocks, each in one of several value regimes (see
// ucbFill). The cases are fixed by the seed.
func ucbCases() []ucbCase {
	r := rand.New(rand.NewPCG(7, 8))
	var cases []ucbCase
	for d := 1; d <= 64; d++ {
		nbs := []int{1, 2, 3, 4, 5, 6, 7, 8, 9 + r.IntN(32)}
		if d <= 12 || d%8 == 1 {
			nbs = append(nbs, 23, 25, 30, 40)
		}
		for k, nb := range nbs {
			regime := (d + k) % ucbRegimes
			c := ucbCase{nb: nb, d: d}
			c.name = fmt.Sprintf("d=%d/nb=%d/%s", d, nb, ucbRegimeNames[regime])
			c.x, c.p, c.theta, c.beta = ucbFill(r, regime, nb, d)
			cases = append(cases, c)
		}
	}
	return cases
}

// The value regimes of ucbFill.
const (
	regimeSPD        = iota // unit-scale actions, SPD width form, beta 1.5
	regimePadded            // as regimeSPD, with 1-3 zero padding lanes in the last block
	regimeWild              // random signs, magnitudes 1e-300..1e300: Inf, NaN w, subnormals
	regimeNegDef            // negative-definite width form: w < 0, clamped to 0
	regimeInfMinus          // w = Inf - Inf = NaN in some lanes
	regimeBetaZero          // beta = 0 (and beta = -0 for odd d)
	regimeSignedZero        // entries +-0 and +-1: signed-zero sums
	regimeSubnormal         // magnitudes near 1e-160: subnormal products
	regimeNaN               // a few NaN inputs with distinct payloads: which NaN propagates
	ucbRegimes
)

var ucbRegimeNames = [ucbRegimes]string{"spd", "padded", "wild", "negdef", "inf-inf", "beta0", "signed0", "subnormal", "nan"}

// ucbFill returns a random panel of nb blocks of dimension d, a width form,
// theta and beta in the given regime.
func ucbFill(r *rand.Rand, regime, nb, d int) (x, p, theta []float64, beta float64) {
	n := Lanes * nb
	rows := make([]float64, n*d)
	p = make([]float64, d*(d+1)/2)
	theta = make([]float64, d)
	beta = 1.5
	gauss := func(s []float64, scale float64) {
		for i := range s {
			s[i] = scale * r.NormFloat64()
		}
	}
	wild := func(s []float64) { fillWild(r, s) }
	spd := func(sign float64) {
		// A = sign (G G^T / d + I), G d x d Gaussian.
		g := make([]float64, d*d)
		gauss(g, 1)
		a := make([]float64, d*d)
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				var s float64
				for k := 0; k < d; k++ {
					s += g[i*d+k] * g[j*d+k]
				}
				a[i*d+j] = sign * s / float64(d)
			}
			a[i*d+i] += sign
		}
		WidthForm(p, a, d)
	}
	switch regime {
	case regimeSPD, regimePadded:
		gauss(rows, 1/math.Sqrt(float64(d)))
		spd(1)
		gauss(theta, 1)
		if regime == regimePadded {
			n -= 1 + r.IntN(3)
			clear(rows[n*d:])
		}
	case regimeWild:
		wild(rows)
		wild(p)
		wild(theta)
		beta = -math.Pow(10, -300+600*r.Float64())
	case regimeNegDef:
		gauss(rows, 1)
		spd(-1)
		gauss(theta, 1)
	case regimeInfMinus:
		// x_0 huge: the diagonal term x_0^2 p_00 overflows to +Inf, the
		// cross term x_0 x_1 p_01 to -Inf in the lanes where x_1 > 0.
		gauss(rows, 1)
		for a := 0; a < n; a++ {
			rows[a*d] = 1e200
		}
		gauss(p, 1)
		p[0] = 1e200
		if d > 1 {
			p[1] = -1e200
		}
		gauss(theta, 1)
	case regimeBetaZero:
		gauss(rows, 1)
		spd(1)
		gauss(theta, 1)
		beta = 0
		if d%2 == 1 {
			beta = math.Copysign(0, -1)
		}
	case regimeSignedZero:
		pick := func(s []float64) {
			vals := []float64{0, math.Copysign(0, -1), 1, -1}
			for i := range s {
				s[i] = vals[r.IntN(len(vals))]
			}
		}
		pick(rows)
		pick(p)
		pick(theta)
		beta = -1
	case regimeSubnormal:
		gauss(rows, 1e-160)
		spd(1e-150)
		gauss(theta, 1e-160)
	case regimeNaN:
		gauss(rows, 1)
		spd(1)
		gauss(theta, 1)
		nan := func(s []float64) {
			for k := 0; k < 1+len(s)/50; k++ {
				bits := uint64(0x7ff8000000000000) | r.Uint64()&0x8007ffffffffffff
				s[r.IntN(len(s))] = math.Float64frombits(bits)
			}
		}
		nan(rows)
		nan(p)
		nan(theta)
		if d%3 == 0 {
			beta = math.Float64frombits(0xfff80000000000be)
		}
	}
	x = make([]float64, PanelLen(n, d))
	ToPanel(x, rows, n, d)
	return x, p, theta, beta
}

// checkUCBKernel checks that kernel returns bit-identical scores to want on
// every ucbCases input, writes nothing past dst[4nb] and reads its inputs
// only. It returns the number of lanes whose w is NaN and negative, to
// show that the regimes reach them.
func checkUCBKernel(t *testing.T, kernel, want ucbKernelFunc) (nanW, negW int) {
	t.Helper()
	const sentinel = 12345.678
	for _, c := range ucbCases() {
		n := Lanes * c.nb
		wantDst := make([]float64, n)
		want(wantDst, c.x, c.nb, c.d, c.p, c.theta, c.beta)

		// Inputs longer than needed: the extra values must not matter.
		x := append(c.x[:len(c.x):len(c.x)], 99, 99, 99, 99)
		p := append(c.p[:len(c.p):len(c.p)], 99)
		theta := append(c.theta[:len(c.theta):len(c.theta)], 99)
		x0 := append([]float64(nil), x...)
		p0 := append([]float64(nil), p...)
		th0 := append([]float64(nil), theta...)
		dst := make([]float64, n+5)
		for i := range dst {
			dst[i] = sentinel
		}
		kernel(dst, x, c.nb, c.d, p, theta, c.beta)
		for i := 0; i < n; i++ {
			if math.Float64bits(dst[i]) != math.Float64bits(wantDst[i]) {
				t.Fatalf("%s: lane %d: got %v (%#x), want %v (%#x)", c.name, i,
					dst[i], math.Float64bits(dst[i]), wantDst[i], math.Float64bits(wantDst[i]))
			}
		}
		for i := n; i < len(dst); i++ {
			if dst[i] != sentinel {
				t.Fatalf("%s: dst[%d] = %v written past 4nb = %d", c.name, i, dst[i], n)
			}
		}
		if !stattest.SameBits(x, x0) || !stattest.SameBits(p, p0) || !stattest.SameBits(theta, th0) {
			t.Fatalf("%s: kernel modified its inputs", c.name)
		}
		nw, ng := wStats(c)
		nanW += nw
		negW += ng
	}
	return nanW, negW
}

// refWidth returns w = x^T A x for the width form p in UCBScores' order.
func refWidth(xa, p []float64) float64 {
	d := len(xa)
	var w float64
	rowStart := 0 // index of p_ii in the packed upper triangle
	for i := 0; i < d; i++ {
		var s float64
		for j := i; j < d; j++ {
			s = math.FMA(p[rowStart+j-i], xa[j], s)
		}
		w = math.FMA(xa[i], s, w)
		rowStart += d - i
	}
	return w
}

// wStats counts the lanes of c whose w is NaN or negative.
func wStats(c ucbCase) (nanW, negW int) {
	xa := make([]float64, c.d)
	for a := 0; a < Lanes*c.nb; a++ {
		PanelRow(xa, c.x, a)
		switch w := refWidth(xa, c.p); {
		case math.IsNaN(w):
			nanW++
		case w < 0:
			negW++
		}
	}
	return nanW, negW
}

// TestUCBScoresGoOrder pins ucbScoresGo to the operation order stated on
// Kernels.UCBScores (ucbScoresRef), bit for bit.
func TestUCBScoresGoOrder(t *testing.T) {
	nanW, negW := checkUCBKernel(t, ucbScoresGo, ucbScoresRef)
	if nanW == 0 || negW == 0 {
		t.Fatalf("cases reach %d NaN and %d negative w lanes; want some of each", nanW, negW)
	}
}

// TestUCBScoresMatchesGo checks Best's kernel (the assembly one on
// AVX2/FMA machines) against ucbScoresGo, bit for bit.
func TestUCBScoresMatchesGo(t *testing.T) {
	best := Best()
	t.Logf("kernels in use: %s", best.Name)
	checkUCBKernel(t, best.UCBScores, ucbScoresGo)
}
