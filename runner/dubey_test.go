package runner

import (
	"context"
	"testing"

	"github.com/fedbandit/fedbandit/outputs"
)

const dubeyTOML = `
name = "dubey"
seeds = 2
checkpoint_every = 50
[[instance]]
name = "dp"
kind = "dubey"
d = 4
k = 6
seed = 3
[[algorithm]]
name = "feducb"
preset = "paper"
regime = [1, 2, 3]
[[algorithm]]
name = "feducb-np"
regime = [2]
[grid]
eps = [1]
delta = [0.1]
M = [3]
B = [1]
T = [200]
`

// TestDubeySweep: a sweep on the dubey instance with FedUCB's regimes
// gives byte-identical curves for 1 and 2 workers, and records the
// instance's kind, arms and seed and each run's regime (sync_threshold
// null: the regime sets D).
func TestDubeySweep(t *testing.T) {
	p := mustPlan(t, dubeyTOML)
	if len(p.Runs) != 8 {
		t.Fatalf("%d runs, want 8 (4 configurations x 2 seeds)", len(p.Runs))
	}
	dir1, dir2 := t.TempDir(), t.TempDir()
	for dir, w := range map[string]int{dir1: 1, dir2: 2} {
		rep, err := (&Sweep{Plan: p, Out: dir, Workers: w, Log: quietLog()}).Execute(context.Background())
		if err != nil || rep.Done != len(p.Runs) {
			t.Fatalf("%d workers: %+v, %v", w, rep, err)
		}
	}
	h1, h2 := dirHashes(t, dir1), dirHashes(t, dir2)
	if h1[outputs.CurvesFile] != h2[outputs.CurvesFile] {
		t.Error("curves differ between 1 and 2 workers")
	}
	regimes := map[float64]int{}
	for _, r := range p.Runs {
		rec, _, err := outputs.ReadRun(outputs.RunPath(dir1, r.ID))
		if err != nil {
			t.Fatal(err)
		}
		if rec.InstanceKind != "dubey" || rec.Arms == nil || *rec.Arms != 6 || rec.InstanceSeed == nil || *rec.InstanceSeed != 3 || rec.NoiseVar != nil {
			t.Errorf("instance columns: kind %q, arms %v, seed %v, noise_var %v", rec.InstanceKind, rec.Arms, rec.InstanceSeed, rec.NoiseVar)
		}
		if _, ok := rec.Params["sync_threshold"]; ok {
			t.Errorf("%s: sync_threshold %v recorded with regime %v", r.Group, rec.Params["sync_threshold"], rec.Params["regime"])
		}
		regimes[rec.Params["regime"]]++
		if rec.Params["regime"] == 3 && rec.Syncs != 200 {
			t.Errorf("%s: %d synchronisations, want 200", r.Group, rec.Syncs)
		}
	}
	if regimes[1] != 2 || regimes[2] != 4 || regimes[3] != 2 {
		t.Errorf("runs by regime %v", regimes)
	}
}
