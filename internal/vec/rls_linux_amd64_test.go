//go:build !purego

package vec

import (
	"testing"

	"github.com/fedbandit/fedbandit/internal/stattest"
)

// TestLearnerKernelsAsmStayInBounds runs the assembly kernels on slices
// that end (then start) at an inaccessible page: a read or write outside
// p[:d(d+1)/2], theta[:d], x[:d], g[:d], w[:d(d+1)/2] or u[:d] crashes
// the test (the column sums' masked loads run up to 3 entries past p's
// end and their diagonal blocks start up to 3 entries before a row).
func TestLearnerKernelsAsmStayInBounds(t *testing.T) {
	skipWithoutAVX2(t)
	for _, c := range rlsCases() {
		d := len(c.x)
		wantP, wantTh := append([]float64(nil), c.p...), append([]float64(nil), c.theta...)
		wantW, wantU := append([]float64(nil), c.w...), append([]float64(nil), c.u...)
		learnGo(wantW, wantU, wantP, wantTh, c.x, c.y, make([]float64, ScratchLen(d)))
		obsW, obsU := append([]float64(nil), c.w...), append([]float64(nil), c.u...)
		addObsGo(obsW, obsU, c.x, c.y)
		for _, atEnd := range []bool{true, false} {
			guarded := func(v []float64) []float64 {
				s := guardedFloats(t, len(v), atEnd)
				copy(s, v)
				return s
			}
			w, u, p, th, x, g := guarded(c.w), guarded(c.u), guarded(c.p), guarded(c.theta), guarded(c.x), guardedFloats(t, ScratchLen(d), atEnd)
			learnAsm(w, u, p, th, x, c.y, g)
			ow, ou := guarded(c.w), guarded(c.u)
			addObsAsm(ow, ou, x, c.y)
			if !stattest.SameBits(p, wantP) || !stattest.SameBits(th, wantTh) || !stattest.SameBits(w, wantW) || !stattest.SameBits(u, wantU) ||
				!stattest.SameBits(ow, obsW) || !stattest.SameBits(ou, obsU) {
				t.Fatalf("%s (guard at end %v): results differ from the Go versions", c.name, atEnd)
			}
		}
	}
}
