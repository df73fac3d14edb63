package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fedbandit/fedbandit/outputs"
)

// TestTasksPartitionThePlan: for every task count, the tasks' runs are
// the plan's runs, each exactly once, in plan order, in chunks whose
// sizes differ by at most one; the split is the same on every call.
func TestTasksPartitionThePlan(t *testing.T) {
	plan := mustPlan(t, tinyTOML)
	n := len(plan.Runs)
	for tasks := 1; tasks <= n; tasks++ {
		var all []string
		lo, hi := n, 0
		for i := 0; i < tasks; i++ {
			rs := plan.TaskRuns(Task{i, tasks})
			lo, hi = min(lo, len(rs)), max(hi, len(rs))
			for _, r := range rs {
				all = append(all, r.ID)
			}
		}
		if hi-lo > 1 || len(all) != n {
			t.Fatalf("%d tasks: sizes %d..%d, %d runs in all (want %d)", tasks, lo, hi, len(all), n)
		}
		for i, r := range plan.Runs {
			if all[i] != r.ID {
				t.Fatalf("%d tasks: run %d is %s, want %s", tasks, i, all[i], r.ID)
			}
		}
	}
	for _, bad := range []Task{{0, 0}, {-1, 3}, {3, 3}, {0, n + 1}, {0, MaxTasks + 1}} {
		if err := bad.Validate(n); err == nil {
			t.Errorf("task %+v of a plan of %d runs accepted", bad, n)
		}
	}
	if DefaultTasks(100000) != MaxTasks || DefaultTasks(7) != 7 || DefaultTasks(0) != 1 {
		t.Error("DefaultTasks")
	}
	if plan.Digest() != mustPlan(t, tinyTOML).Digest() || plan.Digest() == mustPlan(t, strings.Replace(tinyTOML, "seeds = 3", "seeds = 2", 1)).Digest() {
		t.Error("Digest does not identify the plan")
	}
}

// TestTasksTogetherEqualASweep runs every task of a plan at once into one
// directory (as an array does), then a repeated task, then collects: the
// directory holds exactly the files of a plain sweep, manifest included.
// Meanwhile a sweep or a collect cannot take the directory; Status counts
// the tasks' progress.
func TestTasksTogetherEqualASweep(t *testing.T) {
	plan := mustPlan(t, tinyTOML)
	ref := t.TempDir()
	if _, err := sweepInto(t, plan, ref, 2, fakeSim{}, nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const tasks = 5
	st, err := plan.Status(dir, tasks)
	if err != nil || st[0].Missing != st[0].Runs || st[0].Done != 0 {
		t.Fatalf("status of an empty directory: %+v, %v", st, err)
	}
	// Task 0 holds the directory while the others start.
	hold := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, tasks)
	for i := 0; i < tasks; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sim := fakeSim{}
			if i == 0 {
				sim.delay = 50 * time.Millisecond
			}
			s := &Sweep{Plan: plan, Out: dir, Workers: 1, Simulate: sim.run, Log: quietLog(), LogEvery: time.Hour, Task: &Task{i, tasks},
				AfterPublish: func(n int, _ string) error {
					if i == 0 && n == 1 {
						close(hold)
					}
					return nil
				}}
			rep, err := s.Execute(context.Background())
			if err == nil && (rep.Runs != len(plan.TaskRuns(Task{i, tasks})) || rep.Collected != nil) {
				t.Errorf("task %d: report %+v", i, rep)
			}
			errs[i] = err
		}()
	}
	<-hold
	if _, err := Collect(dir); err == nil || !strings.Contains(err.Error(), "collect job runs after its tasks") {
		t.Errorf("collect while tasks run: %v", err)
	}
	if _, err := sweepInto(t, plan, dir, 1, fakeSim{}, nil); err == nil {
		t.Error("a sweep ran while tasks were writing into the directory")
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
	}
	st, _ = plan.Status(dir, tasks)
	for _, s := range st {
		if !s.Complete() || s.Missing != 0 || s.Failed != 0 {
			t.Errorf("status after the tasks: %+v", s)
		}
	}
	// A repeated task redoes nothing.
	rep, err := (&Sweep{Plan: plan, Out: dir, Workers: 1, Simulate: fakeSim{failSeed: 1}.run, Log: quietLog(), Task: &Task{2, tasks}}).Execute(context.Background())
	if err != nil || rep.Executed != 0 || rep.Skipped != rep.Runs {
		t.Errorf("repeated task: %+v, %v", rep, err)
	}
	if _, err := Collect(dir); err != nil {
		t.Fatal(err)
	}
	if d := diffHashes(dirHashes(t, ref), dirHashes(t, dir)); d != "" {
		t.Errorf("tasks + collect differ from a sweep:\n%s", d)
	}
}

// TestTaskValidateBounds: a task count of 1 and of MaxTasks, and the
// first and last index, are valid; one beyond each end is not. Mutation
// controls: `t.Of < 1` as `<= 1` and `t.Of > MaxTasks` as `>= MaxTasks`
// each fail a case.
func TestTaskValidateBounds(t *testing.T) {
	for _, c := range []struct {
		name         string
		index, of, n int
		ok           bool
	}{
		{"no tasks", 0, 0, 10, false},
		{"one task", 0, 1, 10, true},
		{"one task of an empty plan", 0, 1, 0, true},
		{"MaxTasks tasks", 0, MaxTasks, MaxTasks, true},
		{"MaxTasks+1 tasks", 0, MaxTasks + 1, MaxTasks + 1, false},
		{"one task per run", 9, 10, 10, true},
		{"more tasks than runs", 0, 11, 10, false},
		{"last index", 2, 3, 10, true},
		{"index equal to the count", 3, 3, 10, false},
		{"negative index", -1, 3, 10, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := (Task{c.index, c.of}).Validate(c.n); (err == nil) != c.ok {
				t.Errorf("Task{%d, %d}.Validate(%d) = %v, want ok %v", c.index, c.of, c.n, err, c.ok)
			}
		})
	}
	// The index's range in its error (mutation control: `t.Of-1` as
	// `t.Of+1`).
	if err := (Task{3, 3}).Validate(10); err == nil || !strings.HasSuffix(err.Error(), "want 0..2") {
		t.Errorf("index error %v, want it to end \"want 0..2\"", err)
	}
}

// TestTaskRedoesOnlyItsOwnInvalidFiles: a task sets aside and redoes the
// unreadable run files of its own runs and leaves another task's where
// they are (theirs to deal with). Mutation control: the `s.Task != nil`
// test negated (a task taking every unreadable file) fails.
func TestTaskRedoesOnlyItsOwnInvalidFiles(t *testing.T) {
	plan := mustPlan(t, tinyTOML)
	dir := t.TempDir()
	if _, err := sweepInto(t, plan, dir, 1, fakeSim{}, nil); err != nil {
		t.Fatal(err)
	}
	mine, theirs := plan.TaskRuns(Task{0, 2})[0].ID, plan.TaskRuns(Task{1, 2})[0].ID
	for _, id := range []string{mine, theirs} {
		if err := os.WriteFile(filepath.Join(dir, outputs.RunsDir, id+".arrow"), []byte("truncated"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := (&Sweep{Plan: plan, Out: dir, Workers: 1, Simulate: fakeSim{}.run, Log: quietLog(), LogEvery: time.Hour, Task: &Task{0, 2}}).Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Redone) != 1 || !strings.Contains(rep.Redone[0].Path, mine) || rep.Executed != 1 {
		t.Errorf("redone %v, executed %d: want task 0's run alone", rep.Redone, rep.Executed)
	}
	if b, err := os.ReadFile(filepath.Join(dir, outputs.RunsDir, theirs+".arrow")); err != nil || string(b) != "truncated" {
		t.Errorf("task 1's file touched by task 0: %q, %v", b, err)
	}
}

// TestStatusCountsFailed: a task's status counts its failed runs apart
// from the done and the missing. Mutation control: `st.Failed++` as
// `--` fails.
func TestStatusCountsFailed(t *testing.T) {
	plan := mustPlan(t, tinyTOML)
	dir := t.TempDir()
	rep, err := sweepInto(t, plan, dir, 2, fakeSim{failSeed: 2}, nil)
	if !errors.Is(err, ErrRunsFailed) || len(rep.Failed) == 0 {
		t.Fatalf("%v: %d failed", err, len(rep.Failed))
	}
	st, err := plan.Status(dir, 1)
	if err != nil || st[0].Runs != 12 || st[0].Failed != len(rep.Failed) || st[0].Done != rep.Done || st[0].Missing != 0 {
		t.Errorf("status %+v, %v; want %d failed, %d done", st, err, len(rep.Failed), rep.Done)
	}
}
