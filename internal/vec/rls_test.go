package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedbandit/fedbandit/internal/stattest"
)

// rlsCase is one input of the learner kernels: the width form p, theta,
// an observation (x, y) and a Gram/bias pair (w, u) for addObs.
type rlsCase struct {
	name        string
	p, theta, x []float64
	y           float64
	w, u        []float64
}

// The value regimes of rlsCases.
const (
	rlsRegimeSPD        = iota // SPD V^-1 from earlier steps, unit-scale x
	rlsRegimeWild              // random signs, magnitudes 1e-300..1e300: Inf, NaN, subnormals
	rlsRegimeSignedZero        // entries +-0 and +-1: signed-zero sums
	rlsRegimeSubnormal         // magnitudes near 1e-160 and subnormals: underflowing products
	rlsRegimeSpecial           // a few NaN (distinct payloads), +-Inf, +-0 among SPD values
	rlsRegimeNaNPairs          // NaNs of distinct payloads meeting in one operation: which propagates
	rlsRegimes
)

var rlsRegimeNames = [rlsRegimes]string{"spd", "wild", "signed0", "subnormal", "special", "nanpairs"}

// rlsCases returns the inputs of the kernel equivalence tests: every d in
// 1..64 in every regime, fixed by the seed.
func rlsCases() []rlsCase {
	r := rand.New(rand.NewPCG(21, 22))
	var cases []rlsCase
	for d := 1; d <= 64; d++ {
		for regime := 0; regime < rlsRegimes; regime++ {
			cases = append(cases, rlsFill(r, regime, d))
		}
	}
	return cases
}

// rlsFill returns one case of dimension d in the given regime.
func rlsFill(r *rand.Rand, regime, d int) rlsCase {
	np := d * (d + 1) / 2
	c := rlsCase{
		name: fmt.Sprintf("d=%d/%s", d, rlsRegimeNames[regime]),
		p:    make([]float64, np), theta: make([]float64, d), x: make([]float64, d),
		w: make([]float64, np), u: make([]float64, d),
	}
	gauss := func(s []float64, scale float64) {
		for i := range s {
			s[i] = scale * r.NormFloat64()
		}
	}
	pick := func(s []float64, pool []float64) {
		for i := range s {
			s[i] = pool[r.IntN(len(pool))]
		}
	}
	wild := func(s []float64) { fillWild(r, s) }
	all := [][]float64{c.p, c.theta, c.x, c.w, c.u}
	switch regime {
	case rlsRegimeSPD, rlsRegimeSpecial, rlsRegimeNaNPairs:
		// V = I plus a few observations: p is a valid width form.
		a := make([]float64, d*d)
		for i := 0; i < d; i++ {
			a[i*d+i] = 1
		}
		WidthForm(c.p, a, d)
		g := make([]float64, ScratchLen(d))
		for n := 0; n < 5; n++ {
			gauss(c.x, 1/math.Sqrt(float64(d)))
			rlsUpdateGo(c.p, c.theta, c.x, r.NormFloat64(), g)
		}
		gauss(c.x, 1/math.Sqrt(float64(d)))
		gauss(c.w, 1)
		gauss(c.u, 1)
		c.y = r.NormFloat64()
		if regime == rlsRegimeNaNPairs {
			// x_i, theta_i, a p entry of row i, w_ii and u_i NaN with
			// payloads 1..5 (signs mixed), y NaN with payload 6 or not.
			nan := func(payload uint64) float64 {
				b := uint64(0x7FF8000000000000) | payload
				if r.IntN(2) == 0 {
					b |= 1 << 63
				}
				return math.Float64frombits(b)
			}
			i := r.IntN(d)
			c.x[i], c.theta[i], c.u[i] = nan(1), nan(2), nan(5)
			row := i*d - i*(i-1)/2
			c.p[row+r.IntN(d-i)] = nan(3)
			c.w[row] = nan(4)
			if r.IntN(2) == 0 {
				c.y = nan(6)
			}
		}
		if regime == rlsRegimeSpecial {
			specials := []float64{
				math.Float64frombits(0x7FF8000000000001), math.Float64frombits(0xFFF8000000000abc),
				math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1),
			}
			for _, s := range all {
				if r.IntN(3) == 0 {
					s[r.IntN(len(s))] = specials[r.IntN(len(specials))]
				}
			}
		}
	case rlsRegimeWild:
		for _, s := range all {
			wild(s)
		}
		c.y = math.Pow(10, -300+600*r.Float64())
	case rlsRegimeSignedZero:
		pool := []float64{0, math.Copysign(0, -1), 1, -1}
		for _, s := range all {
			pick(s, pool)
		}
		c.y = pool[r.IntN(4)]
	case rlsRegimeSubnormal:
		pool := []float64{1e-160, -1e-160, 3e-162, -7e-161, 5e-324, -5e-324, 1e-310, 0}
		for _, s := range all {
			pick(s, pool)
		}
		c.y = pool[r.IntN(len(pool))]
	}
	return c
}

// learnFunc and addObsFunc are the signatures of the learner kernels.
type (
	learnFunc  = func(w, u, p, theta, x []float64, y float64, g []float64) float64
	addObsFunc = func(w, u, x []float64, y float64)
)

// checkLearnerKernels checks learn and obs against learnGo and addObsGo
// on every case, bit for bit (NaN payloads included) in every output: p,
// theta, g, w, u and the returned x^T V^-1 x.
func checkLearnerKernels(t *testing.T, learn learnFunc, obs addObsFunc) {
	t.Helper()
	clone := func(s []float64) []float64 { return append([]float64(nil), s...) }
	for _, c := range rlsCases() {
		d := len(c.x)
		w1, u1, p1, th1, g1 := clone(c.w), clone(c.u), clone(c.p), clone(c.theta), make([]float64, ScratchLen(d))
		w2, u2, p2, th2, g2 := clone(c.w), clone(c.u), clone(c.p), clone(c.theta), make([]float64, ScratchLen(d))
		q1 := learnGo(w1, u1, p1, th1, c.x, c.y, g1)
		q2 := learn(w2, u2, p2, th2, c.x, c.y, g2)
		if !stattest.SameBits([]float64{q1}, []float64{q2}) {
			t.Fatalf("%s: learn returns x^T V^-1 x = %v, learnGo %v", c.name, q2, q1)
		}
		if !stattest.SameBits(p1, p2) || !stattest.SameBits(th1, th2) || !stattest.SameBits(g1, g2) || !stattest.SameBits(w1, w2) || !stattest.SameBits(u1, u2) {
			t.Fatalf("%s: learn differs from learnGo:\np %v\nwant %v\ntheta %v\nwant %v\ng %v\nwant %v\nw %v\nwant %v\nu %v\nwant %v",
				c.name, p2, p1, th2, th1, g2, g1, w2, w1, u2, u1)
		}
		w1, u1, w2, u2 = clone(c.w), clone(c.u), clone(c.w), clone(c.u)
		addObsGo(w1, u1, c.x, c.y)
		obs(w2, u2, c.x, c.y)
		if !stattest.SameBits(w1, w2) || !stattest.SameBits(u1, u2) {
			t.Fatalf("%s: addObs differs from addObsGo:\nw %v\nwant %v\nu %v\nwant %v", c.name, w2, w1, u2, u1)
		}
	}
}

// TestLearnerKernelsDispatch: Best's Learn and AddObs (the assembly
// kernels where the CPU has AVX2/FMA) agree with the Go versions.
func TestLearnerKernelsDispatch(t *testing.T) {
	best := Best()
	checkLearnerKernels(t, best.Learn, best.AddObs)
}

// rlsUpdateRef is rlsUpdateGo written from its doc comment in the
// plainest way (one block entry at a time, positions computed from (i, j),
// no row bookkeeping): it pins the operation order that the kernels
// reproduce.
func rlsUpdateRef(p, theta, x []float64, y float64) (xVx float64) {
	d := len(x)
	pos := func(i, j int) int { // index of p_ij, i <= j
		return i*d - i*(i-1)/2 + j - i
	}
	nb := (d + 3) / 4
	g := make([]float64, d)
	var xg, xt [4]float64
	for r := 0; r < nb; r++ {
		s := make(map[[2]int]float64) // (i, l) -> s_il
		for m := r; m < nb; m++ {
			for j := 4 * m; j < 4*m+4 && j < d; j++ {
				var t float64
				first := true
				for i := 4 * r; i < 4*r+4 && i <= j; i++ {
					if first {
						t = mulPinned(p[pos(i, j)], x[i])
						first = false
					} else {
						t = math.FMA(p[pos(i, j)], x[i], t)
					}
					s[[2]int{i, j % 4}] = math.FMA(p[pos(i, j)], x[j], s[[2]int{i, j % 4}])
				}
				if r == 0 {
					g[j] = t
				} else {
					g[j] = addPinned(g[j], t)
				}
			}
		}
		for i := 4 * r; i < 4*r+4; i++ {
			if i >= d { // a lane past d
				xg[i%4] = math.FMA(0, 0, xg[i%4])
				xt[i%4] = math.FMA(0, 0, xt[i%4])
				continue
			}
			sl := func(l int) float64 { return s[[2]int{i, l}] }
			g[i] = 0.5 * addPinned(g[i], addPinned(addPinned(sl(0), sl(2)), addPinned(sl(1), sl(3))))
			xg[i%4] = math.FMA(x[i], g[i], xg[i%4])
			xt[i%4] = math.FMA(x[i], theta[i], xt[i%4])
		}
	}
	xVx = addPinned(addPinned(xg[0], xg[2]), addPinned(xg[1], xg[3]))
	c := 1 / (1 + xVx)
	f := mulPinned(c, y-addPinned(addPinned(xt[0], xt[2]), addPinned(xt[1], xt[3])))
	for i := 0; i < d; i++ {
		theta[i] = math.FMA(f, g[i], theta[i])
		cg := mulPinned(c, g[i])
		p[pos(i, i)] = math.FMA(-cg, g[i], p[pos(i, i)])
		for j := i + 1; j < d; j++ {
			p[pos(i, j)] = math.FMA(-(2 * cg), g[j], p[pos(i, j)])
		}
	}
	return xVx
}

// TestRLSUpdateGoOrder pins rlsUpdateGo to the operation order of its doc
// comment (rlsUpdateRef), bit for bit on every case.
func TestRLSUpdateGoOrder(t *testing.T) {
	for _, c := range rlsCases() {
		d := len(c.x)
		p1, th1 := append([]float64(nil), c.p...), append([]float64(nil), c.theta...)
		p2, th2 := append([]float64(nil), c.p...), append([]float64(nil), c.theta...)
		q1 := rlsUpdateGo(p1, th1, c.x, c.y, make([]float64, ScratchLen(d)))
		q2 := rlsUpdateRef(p2, th2, c.x, c.y)
		if !stattest.SameBits(p1, p2) || !stattest.SameBits(th1, th2) || !stattest.SameBits([]float64{q1}, []float64{q2}) {
			t.Fatalf("%s: rlsUpdateGo differs from its documented order:\np %v\nwant %v\ntheta %v\nwant %v", c.name, p1, p2, th1, th2)
		}
	}
}

// TestAddObs: AddObs adds exactly fma(x_i, x_j, w_ij) to every packed
// entry and fma(x_i, y, u_i) to the bias.
func TestAddObs(t *testing.T) {
	for _, d := range []int{1, 3, 4, 5, 10, 57} {
		r := rand.New(rand.NewPCG(uint64(d), 5))
		w, u, x := make([]float64, d*(d+1)/2), make([]float64, d), make([]float64, d)
		for i := range w {
			w[i] = r.NormFloat64()
		}
		for i := range x {
			x[i], u[i] = r.NormFloat64(), r.NormFloat64()
		}
		w0, u0 := append([]float64(nil), w...), append([]float64(nil), u...)
		y := r.NormFloat64()
		Best().AddObs(w, u, x, y)
		idx := 0
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				if want := math.FMA(x[i], x[j], w0[idx]); w[idx] != want {
					t.Fatalf("d=%d: w[%d,%d] = %v, want %v", d, i, j, w[idx], want)
				}
				idx++
			}
			if want := math.FMA(x[i], y, u0[i]); u[i] != want {
				t.Fatalf("d=%d: u[%d] = %v, want %v", d, i, u[i], want)
			}
		}
	}
}
