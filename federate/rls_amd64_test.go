//go:build amd64 && !purego

package federate

import (
	"slices"
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

// TestRunSameWithGoLearner checks end to end that runs are bit-identical
// (results and every chosen arm) with all assembly kernels (learn, addObs,
// argmaxFirst, the UCB scores, the contexts) and with all their Go twins,
// for the eager and the lazy learner. Mutation control: a run whose learner skips the RLS
// step's theta update differs.
func TestRunSameWithGoLearner(t *testing.T) {
	skipWithoutAVX2(t)
	specs := kernelRunSpecs()
	lazy := smallSpec(AlgFedLinUCB)
	lazy.Lazy = true
	specs["lazy"] = lazy
	noclip := smallSpec(AlgFedLinUCB)
	noclip.NoClip = true
	specs["noclip"] = noclip
	run := func(s Spec, asm bool) (bits []uint64, arms []int) {
		withKernels(asm, func() { bits, arms = runBitsAndArms(t, s) })
		return bits, arms
	}
	for name, s := range specs {
		gotBits, gotArms := run(s, true)
		wantBits, wantArms := run(s, false)
		if !slices.Equal(gotBits, wantBits) || !slices.Equal(gotArms, wantArms) {
			t.Errorf("%s: results or chosen arms differ between the assembly and Go learners", name)
		}
	}
	// Mutation control: the same comparison sees a broken learner.
	s := smallSpec(AlgFedLinUCB)
	want, _ := run(s, true)
	sm := newTestSim(t, s, hooks{})
	el := eager(t, sm)
	for tt := 1; tt <= sm.s.T; tt++ {
		sm.round(tt)
		for i := range el.theta {
			clear(el.theta[i]) // the learner without theta
		}
	}
	if slices.Equal(resultBits(sm.result()), want) {
		t.Error("mutation control: a learner without theta gives the same results")
	}
}
