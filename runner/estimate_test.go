package runner

import (
	"math"
	"testing"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/outputs"
)

// linearWork is the Estimate.Work of n multiply-adds of the linear model.
func linearWork(n float64) []Work {
	return []Work{{Unit: "multiply-adds (sum of M T K d^2)", Total: n}}
}

// near reports whether got equals want up to rounding (the expected values
// below are sums taken in another order than the code's).
func near(got, want float64) bool {
	return math.Abs(got-want) <= 1e-12*math.Max(math.Abs(want), 1e-300)
}

// estTOML is one shared stream of the published generator: 4 runs
// (seeds) of one class, d = 4, K = 10, M = 2, T = 100.
const estTOML = `
name = "est"
seeds = 4

[[instance]]
name = "pub"
kind = "synthetic"
d = 4
k = 10
noise_var = 0.25
fixed_basis = true
shared_contexts = true
seed = 2
context_gen = "numpy-mt19937"

[[algorithm]]
name = "fedlinucb"

[grid]
eps = [1]
delta = [0.1]
M = [2]
B = [10]
T = [100]
`

// TestEstimateSharedStream pins the estimate of runs sharing a stream,
// from the model and from measured rates, against sums worked out here:
// on 2 workers the 4 runs form 2 units of 2; a unit costs the stream and
// the instance's preparation, then each run without its stream; the
// preparation counts once in the CPU time. Mutation controls: in
// EstimateShared the single-run test `len(u.runs) == 1` negated, `stream +
// prep`, `own-stream` and the unit's peak `2*len*maxRun + window` with an
// operator changed, the SimSeconds test negated; in SimSeconds the nil
// test negated and its product changed; StreamSeconds' operators fail.
func TestEstimateSharedStream(t *testing.T) {
	plan := mustPlan(t, estTOML)
	if len(plan.Runs) != 4 {
		t.Fatalf("%d runs, want 4", len(plan.Runs))
	}
	r := &plan.Runs[0]
	maxRun := RunBytes(r) // pinned by registry.TestCostModels
	var shared int64
	for _, in := range plan.Instances {
		shared += in.Bytes
	}
	peak := ProcessBaseBytes + 2*shared + 2*(2*2*maxRun+federate.FeedWindowBytes)
	ov := RunOverhead(r) // every run's: planning, publishing and collecting it

	// The model at 1e6 multiply-adds per second: a run is 2*100*10*16 =
	// 32000 of them, 0.032 s; its stream draws 2*100*10*(4-1) = 6000
	// normals at 12 ns, and the preparation skips as many at 5 ns.
	own, stream, prep := 0.032, 6000*12e-9, 6000*5e-9
	sim := own - stream
	e := plan.EstimateShared(nil, 2, nil, 1e6, true)
	want := Estimate{Runs: 4, Pending: 4, Work: linearWork(4 * 32000),
		CPUSeconds: 2*stream + prep + 4*(sim+ov), WallSeconds: stream + prep + 2*(sim+ov),
		LongestRunSeconds: own + ov, PeakBytes: peak, SharedBytes: shared}
	checkEstimate(t, "model", e, want)

	// A stream dearer than the runs: a run's own time is not negative.
	e = plan.EstimateShared(nil, 1, nil, 1e12, true)
	want = Estimate{Runs: 4, Pending: 4, Work: linearWork(4 * 32000),
		CPUSeconds: stream + prep + 4*ov, WallSeconds: stream + prep + 4*ov,
		LongestRunSeconds: 32000/1e12 + ov, PeakBytes: ProcessBaseBytes + 2*shared + 2*4*maxRun + federate.FeedWindowBytes, SharedBytes: shared}
	checkEstimate(t, "stream dearer", e, want)

	// Measured: per silo-round (M T = 200) 4e-5 s a run, 3e-5 its
	// simulation, 5e-6 the stream, 2e-6 the preparation.
	class, sc := CostClass(r), StreamClass(r)
	// Per unit of work: a silo-round is K d^2 = 160 multiply-adds.
	rt := &Rates{
		PerUnit:            map[string]float64{class: 4e-5 / 160},
		SimPerUnit:         map[string]float64{class: 3e-5 / 160},
		StreamPerSiloRound: map[string]float64{sc: 5e-6},
		PrepPerSiloRound:   map[string]float64{sc: 2e-6},
	}
	own, sim, stream, prep = 200*4e-5, 200*3e-5, 200*5e-6, 200*2e-6
	e = plan.EstimateShared(nil, 2, rt, 0, true)
	want = Estimate{Runs: 4, Pending: 4, Measured: 4, Work: linearWork(4 * 32000),
		CPUSeconds: 2*stream + prep + 4*(sim+ov), WallSeconds: stream + prep + 2*(sim+ov),
		LongestRunSeconds: own + ov, PeakBytes: peak, SharedBytes: shared}
	checkEstimate(t, "measured", e, want)
	if v, ok := rt.SimSeconds(r); !ok || !near(v, sim) {
		t.Errorf("SimSeconds %v %v, want %v", v, ok, sim)
	}
	if _, ok := (*Rates)(nil).SimSeconds(r); ok {
		t.Error("nil rates: SimSeconds measured")
	}

	// Not shared: every run is a unit of its own at its measured time.
	e = plan.EstimateShared(nil, 2, rt, 0, false)
	want = Estimate{Runs: 4, Pending: 4, Measured: 4, Work: linearWork(4 * 32000),
		CPUSeconds: 4 * (own + ov), WallSeconds: 2 * (own + ov),
		LongestRunSeconds: own + ov, PeakBytes: ProcessBaseBytes + 2*shared + 2*2*maxRun, SharedBytes: shared}
	checkEstimate(t, "no share", e, want)
}

func sameWork(a, b []Work) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Unit != b[i].Unit || !near(a[i].Total, b[i].Total) {
			return false
		}
	}
	return true
}

func checkEstimate(t *testing.T, name string, got, want Estimate) {
	t.Helper()
	if got.Runs != want.Runs || got.Done != want.Done || got.Failed != want.Failed || got.Pending != want.Pending ||
		got.Measured != want.Measured || got.PeakBytes != want.PeakBytes || got.SharedBytes != want.SharedBytes ||
		!sameWork(got.Work, want.Work) || !near(got.CPUSeconds, want.CPUSeconds) || !near(got.WallSeconds, want.WallSeconds) ||
		!near(got.LongestRunSeconds, want.LongestRunSeconds) {
		t.Errorf("%s: estimate\n%+v, want\n%+v", name, got, want)
	}
}

// TestEstimateSingleRuns: runs that share nothing each hold one run's
// state per worker (not a unit's twice over), at most one per pending
// run; a rate of 0 is the default one, in the plan's estimate and in
// EstimateRun. Mutation controls: the peak's `len(u.runs) > 1` as `>=` or
// `<=` and EstimateRun's `rate <= 0` as `<` fail.
func TestEstimateSingleRuns(t *testing.T) {
	plan := mustPlan(t, tinyTOML)
	maxRun := RunBytes(&plan.Runs[0]) // all 12 runs: d = 4, M = 5, T = 100, B = 10
	for _, w := range []int{1, 3, 100} {
		e := plan.Estimate(nil, w, nil, 0)
		if want := ProcessBaseBytes + int64(min(w, 12))*2*maxRun; e.PeakBytes != want {
			t.Errorf("%d workers: peak %d, want %d", w, e.PeakBytes, want)
		}
		// 5*100*10*16 = 80000 multiply-adds a run.
		if want := 12 * (80000/DefaultMaddsPerSecond + RunOverhead(&plan.Runs[0])); !near(e.CPUSeconds, want) {
			t.Errorf("%d workers: rate 0: CPU %v s, want %v", w, e.CPUSeconds, want)
		}
	}
	if got, want := EstimateRun(&plan.Runs[0], nil, 0), 80000/DefaultMaddsPerSecond+RunOverhead(&plan.Runs[0]); got != want {
		t.Errorf("EstimateRun at rate 0: %v, want %v", got, want)
	}
	// All done: nothing pending, no run's state.
	scan := &outputs.Scan{}
	for i := range plan.Runs {
		scan.Runs = append(scan.Runs, outputs.RunFile{Record: outputs.RunRecord{RunID: plan.Runs[i].ID, Status: outputs.StatusDone}})
	}
	if e := plan.Estimate(scan, 2, nil, 0); e.Done != 12 || e.Pending != 0 || e.PeakBytes != ProcessBaseBytes || e.CPUSeconds != 0 {
		t.Errorf("all done: %+v", e)
	}
}

// TestStreamSeconds pins a shared stream's cost: from the model (normals
// M T K (d-1) at the generator's speed; the published generator's
// preparation skips as many at 5 ns) and from measured rates (per
// silo-round times M T; a stream measured without its preparation keeps
// the model's). Mutation controls: streamcost.go:44, 54, 58, 59, 61, 62,
// 64, 66 fail.
func TestStreamSeconds(t *testing.T) {
	spec := func(gen string, shared bool) *Run {
		s := federate.Spec{Algorithm: federate.AlgFedLinUCB, M: 3, T: 50, B: 5, Seed: 1,
			Synthetic: federate.SyntheticSpec{D: 5, K: 7, NoiseVar: 0.25, Seed: 2, FixedBasis: gen == federate.ContextsNumPy,
				SharedContexts: shared, ContextGen: gen}}.WithDefaults()
		return linearRun(s, &Instance{Dim: 5, Actions: 7})
	}
	const normals = 3 * 50 * 7 * 4
	for _, c := range []struct {
		name         string
		r            *Run
		rates        *Rates
		stream, prep float64
	}{
		{"fast", spec(federate.ContextsFast, true), nil, normals * 0.9e-9, 0},
		{"chacha8", spec(federate.ContextsChaCha8, true), nil, normals * 8e-9, 0},
		{"numpy", spec(federate.ContextsNumPy, true), nil, normals * 12e-9, normals * 5e-9},
		{"numpy, other class measured", spec(federate.ContextsNumPy, true),
			&Rates{StreamPerSiloRound: map[string]float64{"x": 1}}, normals * 12e-9, normals * 5e-9},
		{"numpy measured", spec(federate.ContextsNumPy, true), &Rates{
			StreamPerSiloRound: map[string]float64{StreamClass(spec(federate.ContextsNumPy, true)): 2e-6},
			PrepPerSiloRound:   map[string]float64{StreamClass(spec(federate.ContextsNumPy, true)): 3e-7},
		}, 150 * 2e-6, 150 * 3e-7},
		{"numpy measured, no preparation", spec(federate.ContextsNumPy, true), &Rates{
			StreamPerSiloRound: map[string]float64{StreamClass(spec(federate.ContextsNumPy, true)): 2e-6},
		}, 150 * 2e-6, normals * 5e-9},
		{"not shared", spec(federate.ContextsNumPy, false), nil, 0, 0},
	} {
		if c.name != "not shared" && StreamClass(c.r) == "" {
			t.Fatalf("%s: not shareable", c.name)
		}
		st, pr := StreamSeconds(c.r, c.rates)
		if !near(st, c.stream) || !near(pr, c.prep) {
			t.Errorf("%s: stream %v s, preparation %v s; want %v and %v", c.name, st, pr, c.stream, c.prep)
		}
	}
}
