package runner

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
)

// TestMeasureRates: one pilot class per algorithm here (the grid over eps
// and the seeds share a class), each timed twice on a shortened spec of
// the real run; the figures land in the cache, and a second plan reads
// them without timing anything; remeasure times them again; a damaged
// cache is only a cache.
func TestMeasureRates(t *testing.T) {
	plan := mustPlan(t, tinyTOML)
	classes := map[string]bool{}
	for i := range plan.Runs {
		classes[CostClass(&plan.Runs[i])] = true
	}
	if len(classes) != 3 {
		t.Fatalf("%d cost classes, want 3 (one per algorithm)", len(classes))
	}
	var calls atomic.Int64
	sim := func(ctx context.Context, rs registry.RunSpec) (*core.Result, error) {
		calls.Add(1)
		s := native(&Run{Spec: rs})
		if s.T > plan.Runs[0].Spec.T || s.B > s.T || s.Every != s.T {
			t.Errorf("pilot spec T=%d B=%d every=%d", s.T, s.B, s.Every)
		}
		a, _ := registry.Lookup(rs.Algorithm)
		return a.NewRun(ctx, rs)
	}
	cache := filepath.Join(t.TempDir(), "sub", "rates.json")
	rt, err := plan.MeasureRates(context.Background(), nil, cache, false, sim)
	if err != nil {
		t.Fatal(err)
	}
	if rt.Measured != 3 || rt.Cached != 0 || calls.Load() != 6 {
		t.Errorf("measured %d, cached %d, %d pilot runs; want 3, 0, 6", rt.Measured, rt.Cached, calls.Load())
	}
	for i := range plan.Runs {
		r := &plan.Runs[i]
		sec, ok := rt.RunSeconds(r)
		if !ok || !(sec > 0) {
			t.Fatalf("run %s: %v s (measured %v)", r.ID, sec, ok)
		}
		if want := rt.PerUnit[CostClass(r)] * r.Cost().Work; sec != want {
			t.Errorf("RunSeconds %v, want work x rate = %v", sec, want)
		}
	}
	e := plan.Estimate(nil, 2, rt, 0)
	if e.Measured != len(plan.Runs) || !(e.WallSeconds >= e.CPUSeconds/2) || !(e.WallSeconds >= e.LongestRunSeconds) || e.WallSeconds > e.CPUSeconds {
		t.Errorf("estimate %+v", e)
	}

	calls.Store(0)
	rt2, err := mustPlan(t, tinyTOML).MeasureRates(context.Background(), nil, cache, false, sim)
	if err != nil {
		t.Fatal(err)
	}
	if rt2.Cached != 3 || rt2.Measured != 0 || calls.Load() != 0 {
		t.Errorf("second plan: measured %d, cached %d, %d pilot runs; want 0, 3, 0", rt2.Measured, rt2.Cached, calls.Load())
	}
	for k, v := range rt.PerUnit {
		if rt2.PerUnit[k] != v {
			t.Errorf("class %s: cached %v, measured %v", k, rt2.PerUnit[k], v)
		}
	}
	if rt3, _ := plan.MeasureRates(context.Background(), nil, cache, true, sim); rt3.Measured != 3 || calls.Load() != 6 {
		t.Errorf("remeasure: measured %d with %d pilot runs", rt3.Measured, calls.Load())
	}
	// Classes whose runs are all done are not timed (the estimate skips
	// done runs): mark every run of one class done.
	scan := &outputs.Scan{}
	skipped := CostClass(&plan.Runs[0])
	for i := range plan.Runs {
		if CostClass(&plan.Runs[i]) == skipped {
			scan.Runs = append(scan.Runs, outputs.RunFile{Record: outputs.RunRecord{RunID: plan.Runs[i].ID, Status: outputs.StatusDone}})
		}
	}
	calls.Store(0)
	if rt5, err := plan.MeasureRates(context.Background(), scan, "", false, sim); err != nil || rt5.Measured != 2 || calls.Load() != 4 {
		t.Errorf("one class done: %v, measured %d with %d pilot runs; want 2 and 4", err, rt5.Measured, calls.Load())
	} else if _, ok := rt5.PerUnit[skipped]; ok {
		t.Error("the done class was timed")
	}
	os.WriteFile(cache, []byte("{not json"), 0o644)
	if rt4, err := plan.MeasureRates(context.Background(), nil, cache, false, sim); err != nil || rt4.Measured != 3 {
		t.Errorf("damaged cache: %v, measured %d", err, rt4.Measured)
	}
}

// TestEstimateSchedulesLikeASweep: the wall time is the list schedule of
// the pending runs in plan order on the workers; without measured rates
// the multiply-add model at the given rate applies.
func TestEstimateSchedulesLikeASweep(t *testing.T) {
	plan := mustPlan(t, tinyTOML)
	rt := &Rates{PerUnit: map[string]float64{}}
	for i := range plan.Runs {
		rt.PerUnit[CostClass(&plan.Runs[i])] = 1e-3
	}
	one := 1e-3*plan.Runs[0].Cost().Work + RunOverhead(&plan.Runs[0]) // the same for every run
	n := float64(len(plan.Runs))
	for _, w := range []int{1, 2, 4, 100} {
		e := plan.Estimate(nil, w, rt, 0)
		want := one * float64((len(plan.Runs)+w-1)/w)
		if d := e.WallSeconds - want; d > 1e-9 || d < -1e-9 || e.CPUSeconds-one*n > 1e-9 {
			t.Errorf("%d workers: wall %v cpu %v, want %v and %v", w, e.WallSeconds, e.CPUSeconds, want, one*n)
		}
	}
	e := plan.Estimate(nil, 1, nil, 2e9)
	if e.Measured != 0 || len(e.Work) != 1 || !near(e.CPUSeconds, e.Work[0].Total/2e9+n*RunOverhead(&plan.Runs[0])) {
		t.Errorf("model estimate %+v", e)
	}
}

// TestPilotSpecValid: a pilot is a valid run of its class, with T a
// multiple of B where the run has one (sdp-vec needs it; the scaling
// sweep's M = 30 class once got T = 1333).
func TestPilotSpecValid(t *testing.T) {
	for _, alg := range federate.AlgorithmNames() {
		for _, m := range []int{10, 30, 100, 1000} {
			s := federate.Spec{Algorithm: alg, Eps: 1, Delta: 0.01, M: m, T: 10000, B: 25, Seed: 1, Synthetic: federate.SyntheticSpec{NoiseVar: 0.25}}.WithDefaults()
			r := linearRun(s, &Instance{Dim: 10, Actions: 100})
			p := native(&Run{Spec: pilotOf(r)})
			if err := p.Validate(); err != nil {
				t.Errorf("%s M = %d: pilot T = %d B = %d: %v", alg, m, p.T, p.B, err)
			}
			if p.T > s.T || (s.T%s.B == 0 && p.T%p.B != 0) {
				t.Errorf("%s M = %d: pilot T = %d B = %d", alg, m, p.T, p.B)
			}
		}
	}
}
