package federate

import (
	"math"
	"slices"
	"testing"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/rng"
	"github.com/fedbandit/fedbandit/internal/vec"
	"github.com/fedbandit/fedbandit/internal/ziggurat"
)

// asmKernels returns the table of assembly kernels and true where the
// CPU runs them (vec.Assembly, ziggurat.Assembly).
func asmKernels() (kernelTable, bool) {
	v, ok1 := vec.Assembly()
	z, ok2 := ziggurat.Assembly()
	return kernelTable{v, z}, ok1 && ok2
}

// allKernels returns the kernel tables to test on this CPU: the Go twins
// and, where the CPU has them, the assembly kernels.
func allKernels(t testing.TB) []kernelTable {
	ks := []kernelTable{portableKernels()}
	if asm, ok := asmKernels(); ok {
		ks = append(ks, asm)
	} else {
		t.Log("no assembly kernels on this CPU: testing the Go twins only")
	}
	return ks
}

// withKernels runs f with the kernel table k, and restores the table
// after.
func withKernels(k kernelTable, f func()) {
	saved := kern
	defer func() { kern = saved }()
	kern = k
	f()
}

// TestKernelTable: runs use the best kernels of both packages (the
// packages' own tests check that Best is the assembly on AVX2/FMA
// machines), and Kernels reports them.
func TestKernelTable(t *testing.T) {
	if kern.Name != vec.Best().Name || kern.zig.Name() != ziggurat.Best().Name() {
		t.Errorf("kernel table %q/%q, want %q/%q", kern.Name, kern.zig.Name(), vec.Best().Name, ziggurat.Best().Name())
	}
	if Kernels() != kern.Name {
		t.Errorf("Kernels() = %q, table %q", Kernels(), kern.Name)
	}
	t.Logf("kernels: %s", Kernels())
}

// TestRunSameWithGoKernel checks end to end that runs are bit-identical
// (regret curves, per-silo totals and every chosen arm) with the table's
// UCB kernel and with the Go twin's.
func TestRunSameWithGoKernel(t *testing.T) {
	type ucbKernel = func(dst, x []float64, nb, d int, p, theta []float64, beta float64)
	runWith := func(s Spec, kernel ucbKernel) (bits []uint64, arms []int) {
		k := kern
		k.UCBScores = kernel
		withKernels(k, func() { bits, arms = runBitsAndArms(t, s) })
		return bits, arms
	}
	for name, s := range kernelRunSpecs() {
		run := func(kernel ucbKernel) ([]uint64, []int) { return runWith(s, kernel) }
		gotBits, gotArms := run(kern.UCBScores)
		wantBits, wantArms := run(vec.Portable().UCBScores)
		if !slices.Equal(gotBits, wantBits) {
			t.Errorf("%s: results differ from the Go kernel's", name)
		}
		if !slices.Equal(gotArms, wantArms) {
			t.Errorf("%s: chosen arms differ from the Go kernel's", name)
		}
	}
	// Mutation control: the runs go through the table. A UCB kernel that
	// ignores the exploration bonus (beta = 0) changes the chosen arms.
	s := kernelRunSpecs()["small-fedlinucb"]
	_, want := runWith(s, vec.Portable().UCBScores)
	_, got := runWith(s, func(dst, x []float64, nb, d int, p, theta []float64, beta float64) {
		vec.Portable().UCBScores(dst, x, nb, d, p, theta, 0)
	})
	if slices.Equal(got, want) {
		t.Error("mutation control: a UCB kernel without the exploration bonus chose the same arms")
	}
}

// TestRunSameWithGoLearner checks end to end that runs are bit-identical
// (results and every chosen arm) with all assembly kernels (learn, addObs,
// argmaxFirst, the UCB scores, the contexts) and with all their Go twins,
// for the eager and the lazy learner. Mutation control: a run whose learner skips the RLS
// step's theta update differs.
func TestRunSameWithGoLearner(t *testing.T) {
	asm, ok := asmKernels()
	if !ok {
		t.Skip("no assembly kernels on this CPU")
	}
	specs := kernelRunSpecs()
	lazy := smallSpec(AlgFedLinUCB)
	lazy.Lazy = true
	specs["lazy"] = lazy
	noclip := smallSpec(AlgFedLinUCB)
	noclip.NoClip = true
	specs["noclip"] = noclip
	run := func(s Spec, k kernelTable) (bits []uint64, arms []int) {
		withKernels(k, func() { bits, arms = runBitsAndArms(t, s) })
		return bits, arms
	}
	for name, s := range specs {
		gotBits, gotArms := run(s, asm)
		wantBits, wantArms := run(s, portableKernels())
		if !slices.Equal(gotBits, wantBits) || !slices.Equal(gotArms, wantArms) {
			t.Errorf("%s: results or chosen arms differ between the assembly and Go learners", name)
		}
	}
	// Mutation control: the same comparison sees a broken learner.
	s := smallSpec(AlgFedLinUCB)
	want, _ := run(s, asm)
	var sm *sim
	withKernels(asm, func() { sm = newTestSim(t, s, hooks{}) })
	el := eager(t, sm)
	withKernels(asm, func() {
		for tt := 1; tt <= sm.s.T; tt++ {
			sm.round(tt)
			for i := range el.theta {
				clear(el.theta[i]) // the learner without theta
			}
		}
	})
	if slices.Equal(resultBits(sm.result(core.Result{})), want) {
		t.Error("mutation control: a learner without theta gives the same results")
	}
}

// TestContextsMatchGo checks that whole silo-rounds of contexts (panel and
// means) are bit-identical with the assembly and the portable kernels, for
// both generators, d = 2..64, several block counts and seeds, over
// consecutive fills of the same stream (slow paths included).
func TestContextsMatchGo(t *testing.T) {
	asm, ok := asmKernels()
	if !ok {
		t.Skip("no assembly kernels on this CPU")
	}
	ks := []kernelTable{portableKernels(), asm}
	for _, d := range []int{2, 3, 4, 5, 9, 10, 11, 17, 33, 64} {
		for _, nb := range []int{1, 2, 5, 23} {
			for seed := uint64(0); seed < 3; seed++ {
				theta := SyntheticTheta(d, seed)
				var out [2][2][]float64 // [kernel][x, mu]
				for ki, k := range ks {
					withKernels(k, func() {
						key := rng.Derive(rng.NewKey("test-ctx", seed), "silo", d, nb)
						srcs := []contextSource{newZigContexts(key, nil), &chachaContexts{r: rng.New(key), scratch: &ctxScratch{}}}
						for _, src := range srcs {
							x := make([]float64, vec.PanelLen(4*nb, d))
							mu := make([]float64, 4*nb)
							for round := 0; round < 4; round++ {
								src.fill(x, mu, nb, theta)
								out[ki][0] = append(out[ki][0], x...)
								out[ki][1] = append(out[ki][1], mu...)
							}
						}
					})
				}
				for v := 0; v < 2; v++ {
					a, b := out[0][v], out[1][v]
					for i := range a {
						if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
							t.Fatalf("d=%d nb=%d seed=%d: output %d[%d] = %v (go) vs %v (asm)", d, nb, seed, v, i, a[i], b[i])
						}
					}
				}
			}
		}
	}
}
