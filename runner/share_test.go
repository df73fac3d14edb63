package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
)

// sharedTOML has two shared instances (the published generator and the
// default one) and one with per-run contexts, with real simulations: 16
// runs, of which 12 in two streams.
const sharedTOML = `
name = "shared"
seeds = 2

[[instance]]
name = "published"
kind = "synthetic"
d = 4
k = 10
noise_var = 0.25
fixed_basis = true
shared_contexts = true
seed = 2
context_gen = "numpy-mt19937"

[[instance]]
name = "fast"
kind = "synthetic"
d = 4
k = 10
noise_var = 0.25
shared_contexts = true
seed = 5

[[instance]]
name = "own"
kind = "synthetic"
d = 4
k = 10
noise_var = 0.25
seed = 5

[[algorithm]]
name = "fedlinucb"

[[algorithm]]
name = "ldp"

[grid]
eps = [1, 5]
delta = [0.1]
M = [3]
B = [10]
T = [400]
`

// realSweep runs plan into dir with federate.Run.
func realSweep(plan *Plan, dir string, workers int, noShare bool, task *Task, hook func(int, string) error) (*Report, error) {
	s := &Sweep{Plan: plan, Out: dir, Workers: workers, NoShare: noShare, Task: task, Log: quietLog(), LogEvery: time.Hour, AfterPublish: hook}
	return s.Execute(context.Background())
}

// TestSharedStreamsSameBytes: a sweep whose runs share their instances'
// context streams (1 and 3 workers), one with sharing off, one resumed
// after a crash and one executed as 3 array tasks and collected write the
// same curves.arrow, byte for byte. Mutation controls: publishing a
// unit's first result for all its runs, or a feed whose windows skip a
// round, fails.
func TestSharedStreamsSameBytes(t *testing.T) {
	plan := mustPlan(t, sharedTOML)
	var pending []*Run
	for i := range plan.Runs {
		pending = append(pending, &plan.Runs[i])
	}
	shared := 0
	for _, u := range shareUnits(pending, 1, true) {
		if len(u.runs) > 1 {
			shared += len(u.runs)
		}
	}
	if len(plan.Runs) != 18 || shared != 12 {
		t.Fatalf("%d runs, %d of them in shared units; want 18 and 12", len(plan.Runs), shared)
	}
	curves := func(dir string) string {
		t.Helper()
		return dirHashes(t, dir)[outputs.CurvesFile]
	}
	ref := t.TempDir()
	if _, err := realSweep(plan, ref, 2, true, nil, nil); err != nil {
		t.Fatal(err)
	}
	want := curves(ref)
	if want == "" {
		t.Fatal("no curves.arrow")
	}
	for _, workers := range []int{1, 3} {
		dir := t.TempDir()
		if _, err := realSweep(plan, dir, workers, false, nil, nil); err != nil {
			t.Fatal(err)
		}
		if got := curves(dir); got != want {
			t.Errorf("shared streams, %d workers: curves.arrow differs from the unshared sweep's", workers)
		}
	}
	// Resumed: crash after the 5th publish, rerun.
	dir := t.TempDir()
	_, err := realSweep(plan, dir, 2, false, nil, func(n int, _ string) error {
		if n == 5 {
			return errors.New("simulated crash")
		}
		return nil
	})
	if err == nil {
		t.Fatal("no crash")
	}
	rep, err := realSweep(plan, dir, 2, false, nil, nil)
	if err != nil || rep.Skipped < 5 {
		t.Fatalf("resumed: %+v, %v", rep, err)
	}
	if got := curves(dir); got != want {
		t.Error("resumed sweep: curves.arrow differs")
	}
	// Array tasks, each sharing among its own runs, then collect.
	dir = t.TempDir()
	for i := 0; i < 3; i++ {
		if _, err := realSweep(plan, dir, 2, false, &Task{i, 3}, nil); err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
	}
	if _, err := Collect(dir); err != nil {
		t.Fatal(err)
	}
	if got := curves(dir); got != want {
		t.Error("3 tasks + collect: curves.arrow differs")
	}
}

// TestShareUnits: a stream's runs are cut into as many units as their
// share of the workers, the others run alone, and with sharing off every
// run is a unit.
func TestShareUnits(t *testing.T) {
	plan := mustPlan(t, sharedTOML)
	var pending []*Run
	for i := range plan.Runs {
		pending = append(pending, &plan.Runs[i])
	}
	for _, c := range []struct{ workers, units int }{{1, 6 + 2}, {3, 6 + 2}, {6, 6 + 2 + 2}, {18, 6 + 12}} {
		us := shareUnits(pending, c.workers, true)
		n := 0
		for _, u := range us {
			n += len(u.runs)
		}
		if len(us) != c.units || n != len(pending) {
			t.Errorf("%d workers: %d units of %d runs, want %d units", c.workers, len(us), n, c.units)
		}
	}
	if us := shareUnits(pending, 2, false); len(us) != len(pending) {
		t.Errorf("sharing off: %d units", len(us))
	}
	// Figure 3a (100 runs of 2.1 MB): 2 units would hold 107 MB each, so
	// 6 units of 16 or 17 runs (at most 36 MB), a multiple of the 2
	// workers.
	c, err := LoadConfig("../sweeps/fig3a.toml")
	if err != nil {
		t.Fatal(err)
	}
	fig, err := NewPlan(c, registry.Env{})
	if err != nil {
		t.Fatal(err)
	}
	pending = pending[:0]
	for i := range fig.Runs {
		pending = append(pending, &fig.Runs[i])
	}
	us := shareUnits(pending, 2, true)
	if len(us) != 6 {
		t.Fatalf("fig3a on 2 workers: %d units, want 6", len(us))
	}
	for _, u := range us {
		if b := int64(len(u.runs)) * RunBytes(u.runs[0]); len(u.runs) < 16 || len(u.runs) > 17 || b > unitBytes {
			t.Errorf("fig3a unit of %d runs, %d bytes", len(u.runs), b)
		}
	}
}

// TestShareUnitsByteBudget: the bound on a unit's bytes, at its edges. per
// is the number of runs that fit in unitBytes; each case's streams are
// one run repeated (shareUnits groups by stream key), sized relative to
// per. Mutation controls: the budget test's `>` as `>=`, its ceiling
// `(len(g)+k-1)/k` with any operator changed, and the raised count's
// ceiling `(len(g)+per-1)/per` as `(len(g)+per+1)/per` each fail a case.
func TestShareUnitsByteBudget(t *testing.T) {
	plan := mustPlan(t, sharedTOML)
	var a, b *Run // one run of each of two streams
	for i := range plan.Runs {
		switch r := &plan.Runs[i]; r.Instance.Config.Name {
		case "published":
			a = r
		case "fast":
			b = r
		}
	}
	ka, kb := streamKey(a), streamKey(b)
	if ka == kb || RunBytes(a) != RunBytes(b) {
		t.Fatalf("want two streams of runs of equal size, got keys %q, %q, %d and %d bytes", ka, kb, RunBytes(a), RunBytes(b))
	}
	per := int(unitBytes / RunBytes(a))
	if per < 2 {
		t.Fatalf("%d runs per unit: the cases need at least 2", per)
	}
	for _, c := range []struct {
		name            string
		workers, na, nb int // na, nb: runs of each stream
		units, unitsOfA int
	}{
		// 3 workers, 2 equal streams: each stream gets 2 units of
		// exactly per runs, within the budget, so not raised to 3.
		{"two streams exactly at the budget stay at their share", 3, 2 * per, 2 * per, 4, 2},
		// One run more each: 2 units would hold per+1 runs, so each
		// stream is raised to ceil((2per+1)/per) = 3 units, a multiple
		// of the 3 workers.
		{"two streams one run over the budget are raised", 3, 2*per + 1, 2*per + 1, 6, 3},
		// One stream of 4 per runs on 2 workers: 2 units would hold 2
		// per runs each; raised to exactly 4 units of per, not 5 (then
		// 6 for 2 workers).
		{"a stream of a multiple of the budget is cut into exactly full units", 2, 4 * per, 0, 4, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			var pending []*Run
			for range c.na {
				pending = append(pending, a)
			}
			for range c.nb {
				pending = append(pending, b)
			}
			us := shareUnits(pending, c.workers, true)
			n, ofA := 0, 0
			for _, u := range us {
				n += len(u.runs)
				if u.runs[0] == a {
					ofA++
				}
				if len(u.runs) > per {
					t.Errorf("a unit of %d runs, over the budget of %d", len(u.runs), per)
				}
			}
			if len(us) != c.units || ofA != c.unitsOfA || n != len(pending) {
				t.Errorf("%d units (%d of the first stream) of %d runs, want %d (%d) of %d", len(us), ofA, n, c.units, c.unitsOfA, len(pending))
			}
		})
	}
}

// TestSharedWallSeconds: a run of a unit sharing a stream records as its
// wall time its own simulation's plus an equal share of the stream's,
// timed on the sweep's clock; a failed run records none. Here the clock
// advances 2 s at every reading, so the stream and each run take 2 s and
// the 4 runs of the unit (one worker) record 2 + 2/4 s. Mutation
// controls: share.go's feed error test negated (the runs then draw their
// own streams and keep the simulator's 0.25 s), the share's `/` as `*`,
// the status test negated and the sum's `+` as `-` fail.
func TestSharedWallSeconds(t *testing.T) {
	dir := t.TempDir()
	clk := newFakeWall()
	clk.step = 2 * time.Second
	s := &Sweep{Plan: mustPlan(t, estTOML), Out: dir, Workers: 1, Simulate: fakeSim{failSeed: 2}.run, Log: quietLog(),
		LogEvery: time.Hour, now: clk.now}
	if _, err := s.Execute(context.Background()); !errors.Is(err, ErrRunsFailed) {
		t.Fatal(err)
	}
	scan, err := outputs.ScanRuns(dir)
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, f := range scan.Runs {
		want := 2.5
		if f.Record.Status != outputs.StatusDone {
			want = 0
			failed++
		}
		if f.Record.WallSeconds != want {
			t.Errorf("run %s (%s): %v s, want %v", f.Record.RunID, f.Record.Status, f.Record.WallSeconds, want)
		}
	}
	if len(scan.Runs) != 4 || failed != 1 {
		t.Errorf("%d runs, %d failed; want 4 and 1", len(scan.Runs), failed)
	}
}

// TestUnitWithoutFeed: a unit whose feed cannot be made (an invalid
// spec) executes its runs one by one, each reporting its own result, and
// stops at a cancelled context. Mutation controls: share.go's feed error
// test and the loop's `ctx.Err() != nil` negated fail.
func TestUnitWithoutFeed(t *testing.T) {
	plan := mustPlan(t, estTOML)
	u := unit{}
	for i := range plan.Runs[:2] {
		r := &plan.Runs[i]
		s := native(r)
		s.Synthetic.NoiseVar = -1
		r.Spec.Native = s
		u.runs = append(u.runs, r)
	}
	if _, err := federate.NewContextFeed(native(u.runs[0])); err == nil {
		t.Fatal("the feed accepts the spec")
	}
	s := &Sweep{Plan: plan}
	var got []string
	publish := func(r *Run, rec outputs.RunRecord, _ []outputs.Point, ok bool) {
		if ok && rec.Status == outputs.StatusDone {
			got = append(got, r.ID)
		}
	}
	s.executeUnit(context.Background(), fakeSim{}.run, u, quietLog(), publish)
	if len(got) != 2 || got[0] != u.runs[0].ID || got[1] != u.runs[1].ID {
		t.Errorf("published %v", got)
	}
	got = nil
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s.executeUnit(ctx, fakeSim{}.run, u, quietLog(), publish)
	if len(got) != 0 {
		t.Errorf("cancelled: published %v", got)
	}
}
