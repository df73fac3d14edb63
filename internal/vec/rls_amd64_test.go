//go:build amd64 && !purego

package vec

import (
	"testing"
)

// TestLearnerKernelsAsm checks the assembly kernels themselves (not the
// dispatch) against the Go versions, bit for bit, and that d = 0 leaves
// everything untouched.
func TestLearnerKernelsAsm(t *testing.T) {
	skipWithoutAVX2(t)
	checkLearnerKernels(t, learnAsm, addObsAsm)

	p, th, g := []float64{7}, []float64{7}, []float64{7}
	w, u := []float64{7}, []float64{7}
	learnAsm(w, u, p, th, nil, 1, g)
	addObsAsm(w, u, nil, 1)
	if p[0] != 7 || th[0] != 7 || g[0] != 7 || w[0] != 7 || u[0] != 7 {
		t.Errorf("d = 0 wrote: %v %v %v %v %v", p, th, g, w, u)
	}
}

// TestLearnerKernelsAsmChecksLengths: the wrappers panic, as the Go
// versions do, on a slice too short for d instead of touching memory past
// it.
func TestLearnerKernelsAsmChecksLengths(t *testing.T) {
	const d, np = 5, 15
	full := [6]int{np, d, np, d, d, 8} // w, u, p, theta, x, g (padded to 8)
	for short, name := range []string{"w", "u", "p", "theta", "", "g"} {
		if name == "" {
			continue // x sets d
		}
		n := full
		n[short]--
		for kernel, f := range map[string]learnFunc{"go": learnGo, "asm": learnAsm} {
			checkPanics(t, "learn "+kernel+": "+name+" one short", func() {
				f(make([]float64, n[0]), make([]float64, n[1]), make([]float64, n[2]), make([]float64, n[3]), make([]float64, n[4]), 1, make([]float64, n[5]))
			})
		}
		if short > 1 {
			continue
		}
		for kernel, f := range map[string]addObsFunc{"go": addObsGo, "asm": addObsAsm} {
			checkPanics(t, "addObs "+kernel+": "+name+" one short", func() {
				f(make([]float64, n[0]), make([]float64, n[1]), make([]float64, n[4]), 1)
			})
		}
	}
}
