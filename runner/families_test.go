package runner

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
)

const genericMAB = `
name = "mab"
seeds = 2
[[instance]]
name = "easy"
kind = "mab"
gap = 0.5
[[algorithm]]
name = "dist-rdp-se"
S = [10, 100]
[[algorithm]]
name = "se"
[[algorithm]]
name = "dp-se"
[grid]
eps = [1]
delta = [1e-5]
T = [3000]
M = [3, 4]
`

const genericBCO = `
name = "bco"
seeds = 2
checkpoint_every = 100
[[instance]]
name = "sq"
kind = "bco"
loss = "squared"
d = 4
[[algorithm]]
name = "ldp-one-point"
analytic = 1
[[algorithm]]
name = "two-point"
[grid]
eps = [1, 2]
delta = [1e-5]
T = [1000]
`

// TestFamilySweeps: a sweep of each other family executes every planned
// run through its entry's NewRun (the recorded curve is the family's run,
// bit for bit), records its family, trust, parameters and privacy claim,
// gives the same curves for 1 and 2 workers and as two array tasks, and
// skips finished runs when resumed. Keys an algorithm does not use plan it once (mab: M).
// Mutation control: recording the curve without its first checkpoint
// fails it (tried 2026-11-25).
func TestFamilySweeps(t *testing.T) {
	for _, c := range []struct {
		toml string
		runs int
	}{
		// dist-rdp-se 2 S x 2 seeds, se 2 seeds, dp-se 2 seeds; M unused.
		{genericMAB, 8},
		// ldp-one-point 2 eps x 2 seeds, two-point 2 seeds.
		{genericBCO, 6},
	} {
		p := mustPlan(t, c.toml)
		if len(p.Runs) != c.runs {
			t.Fatalf("%s: %d runs, want %d", p.Config.Name, len(p.Runs), c.runs)
		}
		dir1, dir2 := t.TempDir(), t.TempDir()
		for dir, w := range map[string]int{dir1: 1, dir2: 2} {
			rep, err := (&Sweep{Plan: p, Out: dir, Workers: w, Log: quietLog()}).Execute(context.Background())
			if err != nil || rep.Done != c.runs {
				t.Fatalf("%s, %d workers: %+v, %v", p.Config.Name, w, rep, err)
			}
		}
		// The run files hold wall times; the curves are the results.
		curves := func(dir string) map[string]string {
			h := dirHashes(t, dir)
			return map[string]string{"curves": h[outputs.CurvesFile]}
		}
		if d := diffHashes(curves(dir1), curves(dir2)); d != "" {
			t.Errorf("%s: 1 and 2 workers differ:\n%s", p.Config.Name, d)
		}
		// As the two tasks of an array job, then collected.
		dir3 := t.TempDir()
		for i := 0; i < 2; i++ {
			if _, err := (&Sweep{Plan: p, Out: dir3, Workers: 1, Log: quietLog(), Task: &Task{Index: i, Of: 2}}).Execute(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Collect(dir3); err != nil {
			t.Fatal(err)
		}
		if d := diffHashes(curves(dir1), curves(dir3)); d != "" {
			t.Errorf("%s: a sweep and two array tasks differ:\n%s", p.Config.Name, d)
		}
		rep, err := (&Sweep{Plan: p, Out: dir1, Workers: 2, Log: quietLog()}).Execute(context.Background())
		if err != nil || rep.Skipped != c.runs || rep.Executed != 0 {
			t.Errorf("%s resumed: %+v, %v", p.Config.Name, rep, err)
		}
		for _, r := range p.Runs {
			rec, pts, err := outputs.ReadRun(outputs.RunPath(dir1, r.ID))
			if err != nil {
				t.Fatal(err)
			}
			alg, _ := registry.Lookup(r.Spec.Algorithm)
			res, err := alg.NewRun(context.Background(), r.Spec)
			if err != nil {
				t.Fatal(err)
			}
			if len(pts) != len(res.Curve) {
				t.Fatalf("%s: %d points, want %d", r.Group, len(pts), len(res.Curve))
			}
			for i, c := range res.Curve {
				want := outputs.Point{Round: int64(c.Round), Pseudo: c.Pseudo, Realised: c.Realised, Syncs: int64(c.Syncs)}
				for k, vs := range res.Metrics {
					if want.Metrics == nil {
						want.Metrics = map[string]float64{}
					}
					want.Metrics[k] = vs[i]
				}
				if !reflect.DeepEqual(pts[i], want) {
					t.Fatalf("%s: point %d %+v, want %+v", r.Group, i, pts[i], want)
				}
			}
			if rec.Status != outputs.StatusDone || rec.Family != alg.Family || rec.Trust != alg.Trust ||
				rec.Algorithm != alg.Name || rec.Seed != r.Spec.Seed || rec.T != r.Spec.T ||
				rec.InstanceKind != r.Spec.Instance || rec.Group != r.Group || len(rec.Params) != len(alg.Params) ||
				rec.PseudoRegret != res.Pseudo || rec.Syncs != int64(res.Syncs) {
				t.Errorf("record %+v", rec)
			}
			if alg.Private() {
				if rec.Certified != res.Privacy.Certified || rec.Certified && (*rec.DeliveredEps != res.Privacy.DeliveredEps || *rec.DeliveredEps > res.Privacy.TargetEps*(1+1e-9)) ||
					!strings.Contains(rec.CalibrationNote, strings.TrimPrefix(res.Privacy.Note, "not certified: ")) || rec.Mechanism != res.Privacy.Mechanism {
					t.Errorf("%s: claim eps %v, note %q", r.Group, rec.DeliveredEps, rec.CalibrationNote)
				}
			} else if rec.Eps != nil || rec.DeliveredEps != nil || rec.Certified {
				t.Errorf("%s: non-private run with eps %v", r.Group, rec.Eps)
			}
		}
	}
}

// TestFamilyRunIDs (mutation control: the neutral run id without the
// parameters fails it, tried 2026-11-25): the id hashes the resolved spec and the instance's
// content, so an explicit default (a parameter, an instance key) is the
// same run, any other value another; the group label shows the
// parameters.
func TestFamilyRunIDs(t *testing.T) {
	ids := func(toml string) []string {
		var out []string
		for _, r := range mustPlan(t, toml).Runs {
			out = append(out, r.ID)
		}
		return out
	}
	base := ids(genericBCO)
	same := ids(strings.Replace(strings.Replace(genericBCO, `name = "two-point"`, "name = \"two-point\"\nstep_scale = 1", 1), "d = 4", "d = 4\nradius = 1", 1))
	if strings.Join(base, " ") != strings.Join(same, " ") {
		t.Error("explicit defaults changed the run ids")
	}
	other := ids(strings.Replace(genericBCO, `name = "two-point"`, "name = \"two-point\"\nstep_scale = 2", 1))
	if strings.Join(base, " ") == strings.Join(other, " ") {
		t.Error("step_scale = 2 did not change the run ids")
	}
	for _, r := range mustPlan(t, genericMAB).Runs {
		if r.Spec.Algorithm == "dist-rdp-se" && !strings.Contains(r.Group, " S=") {
			t.Errorf("group %q has no S", r.Group)
		}
	}
}

// TestFamilyBadInput: an error of another family's configuration names
// the sweep key at fault, from parsing (the table, the header) or from the
// plan (the family's rules on the loaded instance).
func TestFamilyBadInput(t *testing.T) {
	for _, c := range []struct{ from, to, key string }{
		{"gap = 0.5", "gap = 0.5\narm = 3", "instance[0].arm"},
		{"gap = 0.5", "gap = 2", "instance[0].gap"},
		{"S = [10, 100]", "S = [10, 0]", "algorithm[0].S[1]"},
		{"eps = [1]", "eps = [0]", "grid.eps[0]"},
		{"delta = [1e-5]", "delta = [2]", "grid.delta[0]"},
		{"T = [3000]", "T = [0]", "grid.T[0]"},
		{`name = "se"`, "name = \"se\"\nprotocol = \"P\"", "algorithm[1].protocol"},
		{"seeds = 2", "seeds = 2\ncheckpoint_every = 0", "checkpoint_every"},
	} {
		c2, err := ParseConfig([]byte(strings.Replace(genericMAB, c.from, c.to, 1)), t.TempDir())
		if err == nil {
			_, err = NewPlan(c2, registry.Env{})
		}
		var ke *KeyError
		if !errors.As(err, &ke) || ke.Key != c.key {
			t.Errorf("%q: %v, want an error at %s", c.to, err, c.key)
		}
	}
	_, err := ParseConfig([]byte(strings.Replace(genericBCO, "T = [1000]", "T = [1000]\nM = [0]", 1)), t.TempDir())
	var ke *KeyError
	if !errors.As(err, &ke) || ke.Key != "grid.M[0]" {
		t.Errorf("bco M = 0: %v", err)
	}
}

// TestFamilyFailures: a panicking, failing or non-finite run of another
// family is a failed run, recorded with its error, like a linear one.
func TestFamilyFailures(t *testing.T) {
	if _, err := checkCurve([]core.Checkpoint{{Round: 1, Pseudo: math.NaN()}}, 1); err == nil {
		t.Error("NaN curve accepted")
	}
	if _, err := checkCurve([]core.Checkpoint{{Round: 1}}, 2); err == nil {
		t.Error("short curve accepted")
	}
	p := mustPlan(t, genericBCO)
	r := p.Runs[0]
	// A run its family refuses at run time (an instance of another
	// family's type) is a failed run.
	r.Spec.Loaded = &registry.Loaded{Hash: "h", Value: "not an instance"}
	rec, _, ok := (&Sweep{Plan: p}).execute(context.Background(), nil, &r, quietLog())
	if !ok || rec.Status != outputs.StatusFailed || !strings.Contains(rec.Error, "gives the bco family a string") {
		t.Errorf("%+v", rec)
	}
}

// TestFamilyInterrupted: a run of another family whose context is
// cancelled is interrupted (not recorded), not a failed run. Mutation
// control: `err != nil && ctx.Err() != nil` with the first test negated
// fails.
func TestFamilyInterrupted(t *testing.T) {
	p := mustPlan(t, genericBCO)
	r := p.Runs[0]
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if rec, _, ok := (&Sweep{Plan: p}).execute(ctx, nil, &r, quietLog()); ok {
		t.Errorf("cancelled run recorded: %+v", rec)
	}
}

// TestSafeRun: a run of another family that returns neither a result nor
// an error fails, one that panics fails with the panic, a result passes.
// Mutation controls: safeRun's `err == nil && res == nil` with either
// test negated fails.
func TestSafeRun(t *testing.T) {
	want := &core.Result{}
	for _, c := range []struct {
		name string
		run  func(context.Context, registry.RunSpec) (*core.Result, error)
		res  *core.Result
		err  string
	}{
		{"nil result", func(context.Context, registry.RunSpec) (*core.Result, error) { return nil, nil }, nil, "simulator returned no result"},
		{"error", func(context.Context, registry.RunSpec) (*core.Result, error) { return nil, errors.New("refused") }, nil, "refused"},
		{"panic", func(context.Context, registry.RunSpec) (*core.Result, error) { panic("boom") }, nil, "panic: boom"},
		{"result", func(context.Context, registry.RunSpec) (*core.Result, error) { return want, nil }, want, ""},
	} {
		res, err := safeRun(context.Background(), c.run, registry.RunSpec{}, quietLog(), "id")
		if res != c.res || (err == nil) != (c.err == "") || (err != nil && err.Error() != c.err) {
			t.Errorf("%s: %v, %v; want %v, %q", c.name, res, err, c.res, c.err)
		}
	}
}
