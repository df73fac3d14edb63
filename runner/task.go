package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fedbandit/fedbandit/internal/dirlock"
	"github.com/fedbandit/fedbandit/outputs"
)

// MaxTasks is the largest number of tasks a plan is split into: Slurm's
// default MaxArraySize is 1001 (indices 0..1000).
const MaxTasks = 1001

// Task is one index-addressed share of a plan, for array jobs (Slurm job
// arrays, Kubernetes Indexed Jobs): task Index of Of executes the runs
// Plan.TaskRuns gives it. The split depends only on the plan and Of, never
// on the host, the time or the order in which tasks run, and every run
// belongs to exactly one task.
type Task struct {
	Index, Of int
}

// Validate checks that the task addresses a share of a plan of n runs.
func (t Task) Validate(n int) error {
	if t.Of < 1 || t.Of > MaxTasks {
		return fmt.Errorf("tasks = %d, want 1..%d", t.Of, MaxTasks)
	}
	if t.Of > max(n, 1) {
		return fmt.Errorf("tasks = %d for a plan of %d runs: want at most one task per run", t.Of, n)
	}
	if t.Index < 0 || t.Index >= t.Of {
		return fmt.Errorf("task index %d, want 0..%d", t.Index, t.Of-1)
	}
	return nil
}

// taskBounds returns the runs [lo, hi) of task i of n over a plan of
// runs: contiguous chunks in plan (run id) order, sizes differing by at
// most one.
func taskBounds(i, n, runs int) (lo, hi int) {
	return i * runs / n, (i + 1) * runs / n
}

// TaskRuns returns the runs of task t (plan order).
func (p *Plan) TaskRuns(t Task) []*Run {
	lo, hi := taskBounds(t.Index, t.Of, len(p.Runs))
	out := make([]*Run, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, &p.Runs[i])
	}
	return out
}

// DefaultTasks is the number of tasks for a plan of n runs: one per run up
// to MaxTasks, then chunks.
func DefaultTasks(n int) int { return max(1, min(n, MaxTasks)) }

// Digest identifies the plan's runs: the SHA-256 of its sorted run ids. An
// array job records it so that a task started after the sweep file
// changed refuses to run rather than execute another split.
func (p *Plan) Digest() string {
	ids := make([]string, len(p.Runs))
	for i, r := range p.Runs {
		ids[i] = r.ID
	}
	sum := sha256.Sum256([]byte(strings.Join(ids, "\n")))
	return hex.EncodeToString(sum[:])
}

// TaskStatus is the progress of one task, read from the per-run files.
type TaskStatus struct {
	Task                  Task
	Runs                  int // runs of the task
	Done, Failed, Missing int // published done, published failed, not published
}

// Complete reports whether every run of the task is done.
func (s TaskStatus) Complete() bool { return s.Done == s.Runs }

// Status reports every task's progress in dir from its per-run files. It
// takes no lock: it reads while an array runs, and every file it reads
// was published atomically.
func (p *Plan) Status(dir string, tasks int) ([]TaskStatus, error) {
	if err := (Task{0, tasks}).Validate(len(p.Runs)); err != nil {
		return nil, err
	}
	scan, err := outputs.ScanRuns(dir)
	if err != nil {
		return nil, err
	}
	status := map[string]string{}
	for _, f := range scan.Runs {
		status[f.Record.RunID] = f.Record.Status
	}
	out := make([]TaskStatus, tasks)
	for i := range out {
		t := Task{i, tasks}
		st := TaskStatus{Task: t}
		for _, r := range p.TaskRuns(t) {
			st.Runs++
			switch status[r.ID] {
			case outputs.StatusDone:
				st.Done++
			case outputs.StatusFailed:
				st.Failed++
			default:
				st.Missing++
			}
		}
		out[i] = st
	}
	return out, nil
}

// lockDirShared takes DIR/.lock shared, for an array task: tasks write
// disjoint per-run files and run together, while a sweep or a collect
// (which rewrite the tables and the manifest) hold it exclusively.
func lockDirShared(dir string) (func(), error) {
	unlock, err := dirlock.LockShared(filepath.Join(dir, ".lock"), false)
	if errors.Is(err, dirlock.ErrLocked) {
		return nil, fmt.Errorf("lock %s: a sweep or a collect is writing into this directory", dir)
	}
	return unlock, err
}
