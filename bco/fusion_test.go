package bco

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKernelsNotFused: the inner products and targets every loss value is
// made of round each product on its own (float64(x*y)), on every
// architecture. arm64 (and amd64 built with GOAMD64=v3) would otherwise
// fuse s + u*v into one multiply-add; the test picks inputs where the two
// roundings differ and fails if a kernel returns the fused result. It can
// only fail on such a build: scripts/crossarch.sh runs it under
// qemu-aarch64 and with GOAMD64=v3 (mutation check: without the float64()
// in dot it fails there).
func TestKernelsNotFused(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 1))
	dotDiffer, bDiffer := 0, 0
	for trial := 0; trial < 200; trial++ {
		u, v := make([]float64, 5), make([]float64, 5)
		for i := range u {
			u[i], v[i] = r.NormFloat64(), r.NormFloat64()
		}
		var unfused, fused float64
		for i := range u {
			unfused += float64(u[i] * v[i])
			fused = math.FMA(u[i], v[i], fused)
		}
		if unfused != fused {
			dotDiffer++
		}
		if got := dot(u, v); got != unfused {
			t.Fatalf("trial %d: dot %v, want the unfused %v (fused: %v)", trial, got, unfused, fused)
		}
		var d2 float64
		for i := range u {
			e := u[i] - v[i]
			d2 += float64(e * e)
		}
		if got := dist2(u, v); got != d2 {
			t.Fatalf("trial %d: dist2 %v, want the unfused %v", trial, got, d2)
		}
		g := &geometry{r: 1 + r.Float64(), b0: r.Float64() - 0.5, nu: 0.3 * r.Float64()}
		for k := 0; k < levels; k++ {
			l := -1 + float64(2*float64(k)/(levels-1))
			want := g.b0 + float64(g.nu*g.r*l)
			if math.FMA(g.nu*g.r, l, g.b0) != want {
				bDiffer++
			}
			if got := g.b(k); got != want {
				t.Fatalf("trial %d: b(%d) = %v, want the unfused %v", trial, k, got, want)
			}
		}
	}
	if dotDiffer < 10 || bDiffer < 10 {
		t.Fatalf("only %d dot products and %d targets tell fused from unfused: the test would not see a fusion", dotDiffer, bDiffer)
	}
}
