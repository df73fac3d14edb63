package lasso

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGramNotFused: the coordinate descent's residual and duality gap round
// each product on its own (float64(x*y)), on every architecture, so theta*
// is the same on amd64 and arm64. arm64 (and amd64 built with GOAMD64=v3)
// would otherwise fuse s + x*y into one multiply-add; the test builds Gram
// problems where the two roundings differ and fails if rss or dualGap
// returns anything but the unfused value. It can only fail on such a
// build: scripts/crossarch.sh runs it under qemu-aarch64 and with
// GOAMD64=v3 (mutation check: without the float64() in rss it fails there).
func TestGramNotFused(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 2))
	const d = 4
	differ := 0
	for trial := 0; trial < 100; trial++ {
		g := &gram{d: d, n: 10, Q: make([]float64, d*d), q: make([]float64, d), yy: 10 + r.Float64()}
		w, H := make([]float64, d), make([]float64, d)
		for i := range g.q {
			g.q[i], w[i] = r.NormFloat64(), r.NormFloat64()
			for j := 0; j <= i; j++ {
				v := r.NormFloat64()
				g.Q[i*d+j], g.Q[j*d+i] = v, v
			}
		}
		// rss = yy - 2 w.q + w.Q w, every product rounded on its own.
		var wq, wQw, fwq, fwQw float64
		for i := 0; i < d; i++ {
			wq += float64(w[i] * g.q[i])
			fwq = math.FMA(w[i], g.q[i], fwq)
			var s, fs float64
			for j := 0; j < d; j++ {
				s += float64(g.Q[i*d+j] * w[j])
				fs = math.FMA(g.Q[i*d+j], w[j], fs)
			}
			H[i] = s
			wQw += float64(w[i] * s)
			fwQw = math.FMA(w[i], fs, fwQw)
		}
		want := g.yy - 2*wq + wQw
		if fused := g.yy - 2*fwq + fwQw; fused != want {
			differ++
		}
		if got := g.rss(w); got != want {
			t.Fatalf("trial %d: rss %v, want the unfused %v", trial, got, want)
		}
		// dualGap with l1 above every |X^T r|: gap = rNorm2 + l1 |w|_1 - rDotY.
		var wH, l1norm float64
		for i := range w {
			wH += float64(w[i] * H[i])
			l1norm += math.Abs(w[i])
		}
		l1 := 1e6
		rNorm2 := g.yy - 2*wq + wH
		wantGap := rNorm2 + float64(l1*l1norm) - float64(1*(g.yy-wq))
		if got := g.dualGap(w, H, l1, false); got != wantGap {
			t.Fatalf("trial %d: dualGap %v, want the unfused %v", trial, got, wantGap)
		}
	}
	if differ < 10 {
		t.Fatalf("only %d of 100 problems tell a fused rss from an unfused one: the test would not see a fusion", differ)
	}
}
