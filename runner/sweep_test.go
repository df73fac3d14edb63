package runner

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/outputs"
)

// TestWorkerCountInvariance: 1 and 3 workers give byte-identical files
// (T14).
func TestWorkerCountInvariance(t *testing.T) {
	plan := mustPlan(t, tinyTOML)
	if len(plan.Runs) != tinyRuns {
		t.Fatalf("%d runs, want %d", len(plan.Runs), tinyRuns)
	}
	d1, d3 := t.TempDir(), t.TempDir()
	if _, err := sweepInto(t, plan, d1, 1, fakeSim{}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := sweepInto(t, plan, d3, 3, fakeSim{delay: time.Millisecond}, nil); err != nil {
		t.Fatal(err)
	}
	h1, h3 := dirHashes(t, d1), dirHashes(t, d3)
	if d := diffHashes(h1, h3); d != "" {
		t.Fatalf("outputs differ between 1 and 3 workers:\n%s", d)
	}
	// runs + curves (.arrow and .parquet) + tables.json + manifest +
	// sweep.toml + configs/x + the results marker + 12 run files
	if len(h1) != tinyRuns+9 {
		t.Errorf("%d files, want %d: %v", len(h1), tinyRuns+9, h1)
	}
}

// TestResumeAfterCrash aborts the sweep after the i-th publish (as a crash
// would), reruns it, and compares every byte with an uninterrupted sweep
// (T15). The crash leaves temp and truncated files behind, which must be
// ignored or rejected.
func TestResumeAfterCrash(t *testing.T) {
	plan := mustPlan(t, tinyTOML)
	ref := t.TempDir()
	if _, err := sweepInto(t, plan, ref, 2, fakeSim{}, nil); err != nil {
		t.Fatal(err)
	}
	want := dirHashes(t, ref)
	for _, crashAt := range []int{1, 2, 5, tinyRuns - 1, tinyRuns} {
		dir := t.TempDir()
		_, err := sweepInto(t, plan, dir, 2, fakeSim{}, func(n int, id string) error {
			if n == crashAt {
				return errors.New("simulated crash")
			}
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), "simulated crash") {
			t.Fatalf("crash at %d: err = %v", crashAt, err)
		}
		files, _ := filepath.Glob(filepath.Join(dir, outputs.RunsDir, "*.arrow"))
		if len(files) < crashAt || len(files) > crashAt+1 { // 2 workers: one may finish concurrently
			t.Fatalf("crash at %d: %d run files published", crashAt, len(files))
		}
		if _, err := os.Stat(filepath.Join(dir, outputs.RunsFile)); err == nil {
			t.Fatalf("crash at %d: runs.arrow collected after a crash", crashAt)
		}
		// Debris of a crash in the middle of a publish: a temp file, and a
		// truncated file under a run's final name (as a non-atomic writer
		// would leave; ours never does, the loader must still reject it).
		os.WriteFile(filepath.Join(dir, outputs.RunsDir, plan.Runs[0].ID+".arrow.123.tmp"), []byte("partial"), 0o644)
		full, _ := os.ReadFile(files[0])
		os.WriteFile(files[0], full[:len(full)/2], 0o644)

		rep, err := sweepInto(t, plan, dir, 2, fakeSim{}, nil)
		if err != nil {
			t.Fatalf("crash at %d: rerun: %v", crashAt, err)
		}
		if len(rep.Redone) != 1 || rep.Skipped != len(files)-1 || rep.Executed != tinyRuns-len(files)+1 {
			t.Errorf("crash at %d: redone %d, skipped %d, executed %d", crashAt, len(rep.Redone), rep.Skipped, rep.Executed)
		}
		got := dirHashes(t, dir)
		rejected := filepath.Join(outputs.RunsDir, RejectedDir, filepath.Base(files[0]))
		if _, ok := got[rejected]; !ok {
			t.Errorf("crash at %d: truncated file not moved to %s", crashAt, rejected)
		}
		for k := range got {
			if strings.HasSuffix(k, outputs.TempSuffix) || k == rejected {
				delete(got, k) // debris: never read
			}
		}
		if d := diffHashes(want, got); d != "" {
			t.Fatalf("crash at %d: resumed outputs differ:\n%s", crashAt, d)
		}
	}
}

// TestFailedRunsRecorded: an error, a panic and NaN regret each fail their
// own runs; the others complete; the sweep reports ErrRunsFailed; a rerun
// retries only the failed runs and ends with the same bytes. The report
// lists the failed runs by id (mutation control: its sort's `<` as `>=`).
func TestFailedRunsRecorded(t *testing.T) {
	plan := mustPlan(t, tinyTOML)
	dir := t.TempDir()
	sim := fakeSim{failSeed: 1, panicSeed: 2, nanSeed: 3}
	rep, err := sweepInto(t, plan, dir, 3, sim, nil)
	if !errors.Is(err, ErrRunsFailed) {
		t.Fatalf("err = %v, want ErrRunsFailed", err)
	}
	if len(rep.Failed) != tinyRuns || rep.Done != 0 {
		t.Fatalf("failed %d done %d", len(rep.Failed), rep.Done)
	}
	if !sort.SliceIsSorted(rep.Failed, func(i, j int) bool { return rep.Failed[i].ID < rep.Failed[j].ID }) {
		t.Error("the report's failed runs are not sorted by id")
	}
	sim = fakeSim{failSeed: 1, panicSeed: 2}
	dir = t.TempDir()
	rep, err = sweepInto(t, plan, dir, 3, sim, nil)
	if !errors.Is(err, ErrRunsFailed) || len(rep.Failed) != 8 || rep.Done != 4 {
		t.Fatalf("err %v failed %d done %d", err, len(rep.Failed), rep.Done)
	}
	recs, err := outputs.ReadRuns(filepath.Join(dir, outputs.RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	msgs := map[uint64]string{}
	for _, r := range recs {
		if r.Status == outputs.StatusFailed {
			msgs[r.Seed] = r.Error
		}
	}
	if !strings.Contains(msgs[1], "fake failure for seed 1") || msgs[2] != "panic: fake panic for seed 2" {
		t.Errorf("errors recorded: %v", msgs)
	}
	before := dirHashes(t, dir)
	rep, err = sweepInto(t, plan, dir, 2, sim, nil)
	if !errors.Is(err, ErrRunsFailed) || rep.Executed != 8 || rep.Skipped != 4 {
		t.Fatalf("rerun: err %v executed %d skipped %d", err, rep.Executed, rep.Skipped)
	}
	if d := diffHashes(before, dirHashes(t, dir)); d != "" {
		t.Errorf("rerun changed files:\n%s", d)
	}
	// Once the cause is gone the retried runs complete.
	rep, err = sweepInto(t, plan, dir, 2, fakeSim{}, nil)
	if err != nil || rep.Executed != 8 {
		t.Fatalf("fixed rerun: err %v executed %d", err, rep.Executed)
	}
	ref := t.TempDir()
	sweepInto(t, plan, ref, 1, fakeSim{}, nil)
	if d := diffHashes(dirHashes(t, ref), dirHashes(t, dir)); d != "" {
		t.Errorf("after retry, outputs differ from a clean sweep:\n%s", d)
	}
}

// TestNaNIsBadNumerics checks the failure message of a non-finite curve.
func TestNaNIsBadNumerics(t *testing.T) {
	plan := mustPlan(t, tinyTOML)
	dir := t.TempDir()
	_, err := sweepInto(t, plan, dir, 2, fakeSim{nanSeed: 3}, nil)
	if !errors.Is(err, ErrRunsFailed) {
		t.Fatal(err)
	}
	recs, _ := outputs.ReadRuns(filepath.Join(dir, outputs.RunsFile))
	n := 0
	for _, r := range recs {
		if r.Seed == 3 {
			n++
			if r.Status != outputs.StatusFailed || !strings.Contains(r.Error, "bad numerics") {
				t.Errorf("seed 3: %s %q", r.Status, r.Error)
			}
		} else if r.Status != outputs.StatusDone {
			t.Errorf("seed %d: %s %q", r.Seed, r.Status, r.Error)
		}
	}
	if n != 4 {
		t.Errorf("%d runs with seed 3", n)
	}
}

// TestInterrupt: cancelling the context (Ctrl-C) stops the sweep with
// ErrInterrupted, keeps finished runs, records no interrupted run, and a
// rerun completes to the same bytes as an uninterrupted sweep.
func TestInterrupt(t *testing.T) {
	plan := mustPlan(t, tinyTOML)
	ref := t.TempDir()
	sweepInto(t, plan, ref, 2, fakeSim{}, nil)

	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	// Runs with seed 3 block until cancelled: they are in flight at the
	// interrupt and must leave no trace. 5 workers > 4 such runs: one
	// worker is always free to reach the third publish.
	s := &Sweep{Plan: plan, Out: dir, Workers: 5, Simulate: fakeSim{blockSeed: 3}.run, Log: quietLog(),
		AfterPublish: func(n int, _ string) error {
			if n == 3 {
				cancel()
			}
			return nil
		}}
	rep, err := s.Execute(ctx)
	if !errors.Is(err, ErrInterrupted) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if rep.Executed < 3 || rep.Executed >= tinyRuns || len(rep.Failed) != 0 {
		t.Fatalf("executed %d failed %d", rep.Executed, len(rep.Failed))
	}
	for _, r := range plan.Runs {
		if _, err := os.Stat(outputs.RunPath(dir, r.ID)); r.Spec.Seed == 3 && err == nil {
			t.Fatalf("interrupted run %s was recorded", r.ID)
		}
	}
	if _, err := sweepInto(t, plan, dir, 2, fakeSim{}, nil); err != nil {
		t.Fatal(err)
	}
	if d := diffHashes(dirHashes(t, ref), dirHashes(t, dir)); d != "" {
		t.Errorf("outputs differ after interrupt and resume:\n%s", d)
	}
}

// TestConcurrentSweepsLocked: a second sweep into a directory in use is
// refused.
// holdSweep starts the tiny sweep into dir and pauses it after its first
// run, holding the directory's lock; release lets it finish and reports
// its error.
func holdSweep(t *testing.T, dir string) (release func() error) {
	plan := mustPlan(t, tinyTOML)
	started := make(chan struct{})
	resume := make(chan struct{})
	done := make(chan error)
	go func() {
		_, err := sweepInto(t, plan, dir, 1, fakeSim{}, func(n int, _ string) error {
			if n == 1 {
				close(started)
				<-resume
			}
			return nil
		})
		done <- err
	}()
	<-started
	return func() error {
		close(resume)
		return <-done
	}
}

func TestConcurrentSweepsLocked(t *testing.T) {
	dir := t.TempDir()
	release := holdSweep(t, dir)
	_, err := sweepInto(t, mustPlan(t, tinyTOML), dir, 1, fakeSim{}, nil)
	if rerr := release(); rerr != nil {
		t.Fatal(rerr)
	}
	if err == nil || !strings.Contains(err.Error(), "another sweep") {
		t.Errorf("second sweep: err = %v", err)
	}
}

// TestCollectLockedAndNonEmpty: `run collect` never reads while a sweep
// writes (it fails at once, saying why), and refuses a directory with no
// runs instead of writing empty tables (issue 14).
func TestCollectLockedAndNonEmpty(t *testing.T) {
	empty := t.TempDir()
	if _, err := Collect(empty); err == nil || !strings.Contains(err.Error(), "not a sweep output directory") {
		t.Errorf("empty dir: err = %v", err)
	}
	os.MkdirAll(filepath.Join(empty, "runs"), 0o755)
	if _, err := Collect(empty); !errors.Is(err, ErrNotOwned) {
		t.Errorf("unmarked dir: err = %v", err)
	}
	os.WriteFile(filepath.Join(empty, ResultsMarker), nil, 0o644)
	if _, err := Collect(empty); err == nil || !strings.Contains(err.Error(), "nothing to collect") {
		t.Errorf("no run files: err = %v", err)
	}
	if ents, _ := os.ReadDir(empty); len(ents) != 3 { // runs/, the marker and .lock
		t.Errorf("collect wrote into an empty directory: %v", ents)
	}

	dir := t.TempDir()
	release := holdSweep(t, dir)
	_, err := Collect(dir)
	if rerr := release(); rerr != nil {
		t.Fatal(rerr)
	}
	if err == nil || !strings.Contains(err.Error(), "another sweep") {
		t.Errorf("collect during a sweep: err = %v", err)
	}
	sum, err := Collect(dir)
	if err != nil || sum.Runs != tinyRuns {
		t.Errorf("collect after the sweep: %+v, %v", sum, err)
	}
}

// TestCheckCurveRounds: a curve's checkpoints are strictly increasing
// rounds in 1..T ending at T. Mutation control: `c.Round <= prev` as
// `c.Round < prev` (a repeated round, or a round 0, accepted) fails.
func TestCheckCurveRounds(t *testing.T) {
	for _, c := range []struct {
		name   string
		rounds []int
		T      int
		ok     bool
	}{
		{"every round", []int{1, 2, 3}, 3, true},
		{"only the last round", []int{5}, 5, true},
		{"round 0", []int{0, 5}, 5, false},
		{"a repeated round", []int{2, 2, 5}, 5, false},
		{"a repeated last round", []int{2, 5, 5}, 5, false},
		{"out of order", []int{3, 2, 5}, 5, false},
		{"past T", []int{2, 6}, 5, false},
		{"not ending at T", []int{2, 4}, 5, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			curve := make([]core.Checkpoint, len(c.rounds))
			for i, r := range c.rounds {
				curve[i] = core.Checkpoint{Round: r}
			}
			pts, err := checkCurve(curve, c.T)
			if (err == nil) != c.ok {
				t.Fatalf("checkCurve(%v, %d) = %v, want ok %v", c.rounds, c.T, err, c.ok)
			}
			if c.ok && len(pts) != len(c.rounds) {
				t.Errorf("%d points, want %d", len(pts), len(c.rounds))
			}
		})
	}
}

// TestWriteManifestCounts: manifest.json counts the done and failed runs
// and lists the entries sorted by id. Mutation controls: either count's
// ++ as --, the Done/Failed test negated, and the sort's `<` as `>=`
// each fail.
func TestWriteManifestCounts(t *testing.T) {
	dir := t.TempDir()
	entries := map[string]manifestEntry{}
	for _, e := range []manifestEntry{
		{ID: "c3", Status: outputs.StatusDone, Group: "g"},
		{ID: "a1", Status: outputs.StatusFailed, Group: "g", Error: "boom"},
		{ID: "d4", Status: outputs.StatusDone, Group: "g"},
		{ID: "b2", Status: outputs.StatusDone, Group: "g"},
	} {
		entries[e.ID] = e
	}
	if err := writeManifest(dir, entries); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Runs != 4 || m.Done != 3 || m.Failed != 1 {
		t.Errorf("runs %d, done %d, failed %d; want 4, 3, 1", m.Runs, m.Done, m.Failed)
	}
	var ids []string
	for _, e := range m.Entries {
		ids = append(ids, e.ID)
	}
	if got := strings.Join(ids, " "); got != "a1 b2 c3 d4" {
		t.Errorf("entries in order %s, want a1 b2 c3 d4", got)
	}
}

// TestWorkersDefault: Workers 0 (or negative) means one worker per CPU,
// not none. Mutation control: `workers <= 0` as `< 0` (a pool of no
// workers) fails.
func TestWorkersDefault(t *testing.T) {
	plan := mustPlan(t, tinyTOML)
	for _, c := range []struct {
		name    string
		workers int
	}{{"zero", 0}, {"negative", -1}} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := sweepInto(t, plan, t.TempDir(), c.workers, fakeSim{}, nil)
			if err != nil || rep.Executed != len(plan.Runs) {
				t.Errorf("executed %v, err %v; want all %d runs", rep, err, len(plan.Runs))
			}
		})
	}
}

// TestNilLogUsesDefault: a Sweep without a Log logs to slog.Default.
// Mutation control: the `log == nil` test negated (a nil logger) fails.
func TestNilLogUsesDefault(t *testing.T) {
	var buf strings.Builder
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	s := &Sweep{Plan: mustPlan(t, tinyTOML), Out: t.TempDir(), Workers: 1, Simulate: fakeSim{}.run, LogEvery: time.Hour}
	if _, err := s.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if buf.Len() == 0 {
		t.Error("nothing logged to slog.Default")
	}
}
