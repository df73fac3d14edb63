package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fedbandit/fedbandit/outputs"
)

// fakeWall is a settable wall clock (Sweep.now, progress.now); step, if
// set, is added at every reading.
type fakeWall struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func newFakeWall() *fakeWall {
	return &fakeWall{t: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeWall) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

func (c *fakeWall) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// textLog is a logger writing slog's text lines, without their time, to
// buf.
func textLog(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
}

// TestProgressLine pins the progress log line: runs done, failed, the
// rate per hour of wall time and the ETA of the runs left at that rate
// (none before any time has passed or any run finished), and the bar's
// rate text. Mutation controls: progress.go's perHour (`el <= 0`, both
// mutants; `/` as `*`), logLine (`r > 0`, both; the ETA's three
// operators), finished's two `++`, rateText's `failed > 0` (both) and
// stop's `total > 0` (both), and newProgress's default interval (`every <= 0`,
// both, and `30*time.Second` as `/`) fail.
func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	clk := newFakeWall()
	pr := newProgress(nil, textLog(&buf), time.Hour, 12, clk.now)
	pr.logLine("progress")
	pr.finished(true)
	pr.logLine("progress") // one run, no time: rate 0
	clk.advance(20 * time.Minute)
	pr.finished(true)
	pr.finished(false)
	pr.finished(true)
	// 4 runs in 20 minutes: 12 an hour; 8 left: 40 minutes.
	pr.logLine("progress")
	rate := pr.rateText()
	clk.advance(100 * time.Minute)
	// 4 runs in 2 hours: 2 an hour; 8 left: 4 hours.
	pr.stop()
	want := `level=INFO msg=progress done=0 of=12 failed=0 runs_per_hour=0 eta=unknown
level=INFO msg=progress done=1 of=12 failed=0 runs_per_hour=0 eta=unknown
level=INFO msg=progress done=4 of=12 failed=1 runs_per_hour=12 eta=40m0s
level=INFO msg=progress done=4 of=12 failed=1 runs_per_hour=2 eta=4h0m0s
`
	if buf.String() != want {
		t.Errorf("progress lines\n%s\nwant\n%s", buf.String(), want)
	}
	if rate != "  12 runs/h  1 failed" {
		t.Errorf("rate text %q", rate)
	}

	// No failure: no failure count. No run planned: no final line.
	buf.Reset()
	pr = newProgress(nil, textLog(&buf), time.Hour, 0, clk.now)
	clk.advance(30 * time.Minute)
	if got := pr.rateText(); got != "  0 runs/h" {
		t.Errorf("rate text %q", got)
	}
	pr.stop()
	if buf.Len() != 0 {
		t.Errorf("an empty sweep logged %q", buf.String())
	}

	// Interval 0 is the default 30 s (a ticker of 0 would panic).
	pr = newProgress(nil, textLog(&buf), 0, 1, clk.now)
	pr.stop()
	if !strings.Contains(buf.String(), "done=0 of=1") {
		t.Errorf("default interval: %q", buf.String())
	}
}

// TestProgressBar: with a writer the progress is an mpb bar drawn on it,
// not log lines. Mutation control: progress.go's `w != nil` negated
// fails.
func TestProgressBar(t *testing.T) {
	var out, log bytes.Buffer
	pr := newProgress(&out, textLog(&log), time.Hour, 2, newFakeWall().now)
	pr.finished(true)
	pr.finished(true)
	pr.stop()
	if !strings.Contains(out.String(), "runs") || !strings.Contains(out.String(), "2/2") || log.Len() != 0 {
		t.Errorf("bar %q, log %q", out.String(), log.String())
	}
}

// TestSweepProgressCountsFailures: the sweep's final progress line counts
// the failed runs. Mutation control: sweep.go's `rec.Status ==
// outputs.StatusDone` passed to the progress negated fails.
func TestSweepProgressCountsFailures(t *testing.T) {
	var buf bytes.Buffer
	s := &Sweep{Plan: mustPlan(t, tinyTOML), Out: t.TempDir(), Workers: 2, Simulate: fakeSim{failSeed: 2}.run,
		Log: textLog(&buf), LogEvery: time.Hour, now: newFakeWall().now}
	rep, err := s.Execute(context.Background())
	if !errors.Is(err, ErrRunsFailed) || len(rep.Failed) == 0 || len(rep.Failed) == rep.Done {
		t.Fatalf("%v: %d failed, %d done", err, len(rep.Failed), rep.Done)
	}
	var last string
	for _, l := range strings.Split(buf.String(), "\n") {
		if strings.Contains(l, "msg=progress") {
			last = l
		}
	}
	// The fake clock stands still: no rate.
	want := "level=INFO msg=progress done=12 of=12 failed=" + strconv.Itoa(len(rep.Failed)) + " runs_per_hour=0 eta=unknown"
	if last != want {
		t.Errorf("last progress line %q, want %q", last, want)
	}
}

// manifestRuns reads the run count of dir's manifest.json.
func manifestRuns(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m.Runs
}

// TestInterimManifestCadence: during a sweep manifest.json is rewritten
// when more than 5 s of wall time have passed since it last was. Here
// each run is published 2.5 s after the previous one (one worker): the
// rewrites come at runs 4 (7.5 s after the start), 7 and 10, not at run 3
// (5 s exactly), and the final one holds all 12. Mutation controls:
// sweep.go's `> 5*time.Second` as `>=`, as `<=` and with `/` fail.
func TestInterimManifestCadence(t *testing.T) {
	dir := t.TempDir()
	clk := newFakeWall()
	var seen []int
	s := &Sweep{Plan: mustPlan(t, tinyTOML), Out: dir, Workers: 1, Simulate: fakeSim{}.run, Log: quietLog(),
		LogEvery: time.Hour, now: clk.now, AfterPublish: func(int, string) error {
			seen = append(seen, manifestRuns(t, dir))
			clk.advance(2500 * time.Millisecond)
			return nil
		}}
	if _, err := s.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []int{0, 0, 0, 4, 4, 4, 7, 7, 7, 10, 10, 10}
	if !slices.Equal(seen, want) || manifestRuns(t, dir) != 12 {
		t.Errorf("manifest runs after each publication %v (final %d), want %v (12)", seen, manifestRuns(t, dir), want)
	}
}

// TestInterimManifestFailure: an interim manifest that cannot be written
// is a warning (the sweep goes on), the final one an error. Here
// manifest.json becomes a directory after the second run; every run
// comes 10 s after the previous one. Mutation control: sweep.go's interim
// `err != nil` negated fails.
func TestInterimManifestFailure(t *testing.T) {
	dir := t.TempDir()
	clk := newFakeWall()
	var buf bytes.Buffer
	s := &Sweep{Plan: mustPlan(t, tinyTOML), Out: dir, Workers: 1, Simulate: fakeSim{}.run, Log: textLog(&buf),
		LogEvery: time.Hour, now: clk.now, AfterPublish: func(n int, _ string) error {
			if n == 2 {
				p := filepath.Join(dir, ManifestFile)
				if err := os.Remove(p); err != nil {
					return err
				}
				if err := os.MkdirAll(filepath.Join(p, "x"), 0o755); err != nil {
					return err
				}
			}
			clk.advance(10 * time.Second)
			return nil
		}}
	rep, err := s.Execute(context.Background())
	if err == nil || rep.Executed != 12 {
		t.Fatalf("err %v after %d runs; want the final manifest's error after 12", err, rep.Executed)
	}
	// Runs 3 to 12 tried to rewrite it.
	if n := strings.Count(buf.String(), "msg=\"manifest not updated\""); n != 10 {
		t.Errorf("%d warnings, want 10:\n%s", n, buf.String())
	}
}

// TestPublishFailureAborts: a run file that cannot be published stops
// the sweep (no other run started, one worker) with that error. Here
// every other run's file path is a directory after the first run.
// Mutation control: sweep.go's `abortErr == nil` after a failed
// publication negated fails.
func TestPublishFailureAborts(t *testing.T) {
	dir := t.TempDir()
	plan := mustPlan(t, tinyTOML)
	s := &Sweep{Plan: plan, Out: dir, Workers: 1, Simulate: fakeSim{}.run, Log: quietLog(), LogEvery: time.Hour,
		AfterPublish: func(n int, id string) error {
			if n > 1 {
				return nil
			}
			for i := range plan.Runs {
				if plan.Runs[i].ID != id {
					if err := os.MkdirAll(filepath.Join(outputs.RunPath(dir, plan.Runs[i].ID), "x"), 0o755); err != nil {
						return err
					}
				}
			}
			return nil
		}}
	rep, err := s.Execute(context.Background())
	if err == nil || errors.Is(err, ErrRunsFailed) || rep.Executed != 1 {
		t.Errorf("err %v after %d runs; want a publication error after 1", err, rep.Executed)
	}
}

// TestInterruptedErrorText: the interrupted sweep's error names its
// cause when it is not just the context's own error. Mutation controls:
// sweep.go's `e.cause != nil` and `e.cause != e.ctxErr` negated fail.
func TestInterruptedErrorText(t *testing.T) {
	const tail = " after 3 run(s) finished in this execution: they are kept; rerun the same command to continue"
	for _, c := range []struct {
		e    interruptedError
		want string
	}{
		{interruptedError{executed: 3, cause: errors.New("interrupt"), ctxErr: context.Canceled}, "sweep interrupted (interrupt)" + tail},
		{interruptedError{executed: 3, cause: context.Canceled, ctxErr: context.Canceled}, "sweep interrupted" + tail},
		{interruptedError{executed: 3, ctxErr: context.Canceled}, "sweep interrupted" + tail},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}
