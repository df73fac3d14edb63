package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/conc/pool"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
)

// Files written beside the results.
const (
	// ConfigFile is the sweep file of the last sweep run into DIR.
	ConfigFile = "sweep.toml"
	// ConfigsDir keeps every sweep file ever run into DIR, named by the
	// first 12 hex digits of its SHA-256.
	ConfigsDir = "configs"
	// ManifestFile indexes the runs of DIR (done and failed, with errors).
	ManifestFile = "manifest.json"
	// RejectedDir (inside DIR/runs) receives per-run files that failed
	// validation (truncated, corrupted, foreign), kept for inspection and
	// never read. A file of a newer layout is never moved there: the
	// sweep refuses the directory instead (outputs.NewerLayoutError).
	RejectedDir = "rejected"
)

// ErrRunsFailed is returned (wrapped) by Execute when a run failed; the
// other runs were completed and collected.
var ErrRunsFailed = errors.New("runs failed")

// ErrInterrupted is returned (wrapped, together with the context's error)
// when the sweep was stopped by its context (Ctrl-C): finished runs are
// published, interrupted ones are not recorded and rerun next time.
var ErrInterrupted = errors.New("sweep interrupted")

// interruptedError is the error of an interrupted sweep. It matches
// ErrInterrupted and the context's error (errors.Is) but reads as a
// sentence for the user: what stopped it and what to do.
type interruptedError struct {
	executed int
	cause    error // context.Cause: e.g. the signal received
	ctxErr   error
}

func (e *interruptedError) Error() string {
	why := ""
	if e.cause != nil && e.cause != e.ctxErr {
		why = " (" + e.cause.Error() + ")"
	}
	return fmt.Sprintf("%v%s after %d run(s) finished in this execution: they are kept; rerun the same command to continue", ErrInterrupted, why, e.executed)
}

func (e *interruptedError) Unwrap() []error { return []error{ErrInterrupted, e.ctxErr, e.cause} }

// SimulateFunc runs one simulation of a compiled run spec; its
// algorithm's registry.Algorithm.NewRun by default (tests replace it).
type SimulateFunc func(ctx context.Context, spec registry.RunSpec) (*core.Result, error)

// Sweep executes a plan into an output directory:
//
//	DIR/sweep.toml, DIR/configs/<sha>.toml  the sweep file(s) used
//	DIR/runs/<run id>.arrow                 one file per finished run (done or failed)
//	DIR/manifest.json                       index of the runs (done, failed, errors)
//	DIR/runs.arrow, DIR/curves.arrow        collected tables (outputs.Collect)
//
// Every file is published atomically, so a sweep killed at any moment
// (even SIGKILL) and rerun ends with the same files as an uninterrupted
// one: finished runs are skipped, failed runs are retried, temp files and
// invalid per-run files are never read as results.
type Sweep struct {
	Plan *Plan
	// Out is the output directory: created if needed; an existing one
	// must be empty or hold the ResultsMarker (ClaimDir).
	Out string
	// Workers is the number of concurrent runs; 0 means runtime.NumCPU().
	Workers int
	// Simulate runs one simulation; nil means its algorithm's NewRun.
	Simulate SimulateFunc
	// Log receives start, warning and summary lines (nil: slog.Default()).
	Log *slog.Logger
	// Progress, when non-nil (a terminal), shows an mpb progress bar with
	// runs done, runs/hour and ETA. When nil, a log line reports progress
	// every LogEvery (default 30 s).
	Progress io.Writer
	LogEvery time.Duration
	// NoCollect skips writing runs.arrow and curves.arrow at the end.
	NoCollect bool
	// Task, when set, executes only that task's runs (Plan.TaskRuns), as
	// one task of an array job: several tasks run at once into Out (they
	// share its lock), so a task neither collects nor writes
	// manifest.json (`run collect` does both once the array is done), and
	// moves aside only invalid files of its own runs.
	Task *Task
	// NoShare makes every run draw its own contexts: by default runs that
	// read the same context stream (share.go) draw it once, in units of
	// runs executed together by one worker. Results are the same bytes
	// either way.
	NoShare bool
	// AfterPublish is a test hook called after each per-run file is
	// published (n counts the files published by this execution). A
	// non-nil error aborts the sweep the way a crash would: no other run
	// is started, runs finishing concurrently may still be published
	// (up to Workers-1), nothing is collected.
	AfterPublish func(n int, id string) error

	// now is the wall clock of the progress line, the interim manifest's
	// cadence, the report's Elapsed and the WallSeconds of runs sharing a
	// stream (nil: time.Now); tests set it.
	now func() time.Time
}

// clock reads the sweep's wall clock (s.now, else time.Now).
func (s *Sweep) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// FailedRun is a run that failed in this execution.
type FailedRun struct {
	ID, Group, Error string
}

// Report summarises an execution.
type Report struct {
	Runs     int // runs in the plan
	Skipped  int // already done in DIR
	Executed int // runs finished by this execution (done or failed)
	Done     int // of which done
	Failed   []FailedRun
	// Redone lists per-run files that were invalid (truncated, corrupted):
	// they were moved to DIR/runs/rejected/ and their runs, when part of
	// the plan, executed again.
	Redone []outputs.InvalidFile
	// Superseded lists the run ids of layout-1 FedUCB run files that this
	// sweep plans under new ids (issue 19 moved sync_threshold into the
	// algorithm's parameters, which run ids hash): they were moved to
	// DIR/runs/superseded/ and their runs are redone under the new ids,
	// with the same curves, so that no run is counted twice.
	Superseded []string
	// Collected is the result of the final collect (nil if skipped).
	Collected *outputs.CollectSummary
	Elapsed   time.Duration
}

// manifest is DIR/manifest.json.
type manifest struct {
	FormatVersion int `json:"format_version"`
	Runs          int `json:"runs"`
	Done          int `json:"done"`
	Failed        int `json:"failed"`
	// Stopped says what stopped the sweep before its end (a run that
	// could not be published: a full disk), absent otherwise.
	Stopped string          `json:"stopped,omitempty"`
	Entries []manifestEntry `json:"entries"`
}

type manifestEntry struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Group  string `json:"group"`
	Error  string `json:"error,omitempty"`
}

// errAborted marks an abort by the AfterPublish hook.
var errAborted = errors.New("aborted by hook")

// Execute runs every run of the plan that is not already done in Out.
// It returns an error wrapping ErrRunsFailed if any run failed, or
// ErrInterrupted if ctx was cancelled.
func (s *Sweep) Execute(ctx context.Context) (*Report, error) {
	start := s.clock()
	log := s.Log
	if log == nil {
		log = slog.Default()
	}
	sim := s.Simulate
	workers := s.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	if err := ClaimDir(s.Out); err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(s.Out, outputs.RunsDir), 0o755); err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	runs := make([]*Run, len(s.Plan.Runs))
	for i := range s.Plan.Runs {
		runs[i] = &s.Plan.Runs[i]
	}
	lock := lockDir
	if s.Task != nil {
		if err := s.Task.Validate(len(s.Plan.Runs)); err != nil {
			return nil, fmt.Errorf("sweep: %w", err)
		}
		runs = s.Plan.TaskRuns(*s.Task)
		lock = lockDirShared
	}
	unlock, err := lock(s.Out)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := checkManifestLayout(s.Out); err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	if err := s.saveConfig(); err != nil {
		return nil, err
	}
	scan, err := outputs.ScanRuns(s.Out)
	if err != nil {
		return nil, err
	}
	if s.Task != nil {
		// Other tasks' files are theirs to deal with.
		mine := map[string]bool{}
		for _, r := range runs {
			mine[r.ID] = true
		}
		var own []outputs.InvalidFile
		for _, f := range scan.Invalid {
			if id, ok := outputs.RunIDFromName(filepath.Base(f.Path)); ok && mine[id] {
				own = append(own, f)
			}
		}
		scan.Invalid = own
	}
	rep := &Report{Runs: len(runs), Redone: scan.Invalid}
	if err := s.setAsideSuperseded(scan, runs, rep, log); err != nil {
		return nil, err
	}
	if len(scan.Invalid) > 0 {
		rej := filepath.Join(s.Out, outputs.RunsDir, RejectedDir)
		if err := os.MkdirAll(rej, 0o755); err != nil {
			return nil, fmt.Errorf("sweep: %w", err)
		}
		for _, f := range scan.Invalid {
			dst := filepath.Join(rej, filepath.Base(f.Path))
			log.Warn("invalid run file moved aside; its run is redone if it belongs to this sweep", "file", f.Path, "to", dst, "err", f.Err)
			if err := os.Rename(f.Path, dst); err != nil {
				return nil, fmt.Errorf("sweep: move invalid run file aside: %w", err)
			}
		}
	}
	entries := manifestEntries(scan)
	var pending []*Run
	for _, r := range runs {
		if entries[r.ID].Status == outputs.StatusDone {
			rep.Skipped++
			continue
		}
		pending = append(pending, r)
	}
	if err := s.writeManifest(entries); err != nil {
		return nil, err
	}
	log.Info("sweep", "name", s.Plan.Config.Name, "runs", rep.Runs, "done_before", rep.Skipped,
		"to_run", len(pending), "workers", workers, "out", s.Out)

	prog := newProgress(s.Progress, log, s.LogEvery, len(pending), s.clock)
	var (
		mu        sync.Mutex
		published int
		abortErr  error
		aborted   atomic.Bool // abortErr != nil, readable without mu
		lastMan   = s.clock()
	)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	// publish records a finished run (ok false: interrupted, not recorded).
	publish := func(r *Run, rec outputs.RunRecord, pts []outputs.Point, ok bool) {
		if !ok || aborted.Load() {
			return
		}
		// Publishing (encode, write, fsync, rename) runs outside the
		// lock so that workers do not wait for each other's fsync.
		err := outputs.WriteRun(outputs.RunPath(s.Out, r.ID), &rec, pts)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			if abortErr == nil {
				abortErr = err
				aborted.Store(true)
				cancel()
			}
			return
		}
		published++
		rep.Executed++
		if rec.Status == outputs.StatusDone {
			rep.Done++
		} else {
			rep.Failed = append(rep.Failed, FailedRun{r.ID, r.Group, rec.Error})
			log.Error("run failed", "id", r.ID, "group", r.Group, "err", rec.Error)
		}
		entries[r.ID] = manifestEntry{r.ID, rec.Status, r.Group, rec.Error}
		prog.finished(rec.Status == outputs.StatusDone)
		if now := s.clock(); now.Sub(lastMan) > 5*time.Second { // a task's writeManifest writes none
			lastMan = now
			if err := s.writeManifest(entries); err != nil {
				log.Warn("manifest not updated", "err", err)
			}
		}
		if s.AfterPublish != nil {
			if err := s.AfterPublish(published, r.ID); err != nil && abortErr == nil {
				abortErr = fmt.Errorf("%w: %w", errAborted, err)
				aborted.Store(true)
				cancel()
			}
		}
	}
	p := pool.New().WithMaxGoroutines(workers)
	for _, u := range shareUnits(pending, workers, !s.NoShare) {
		if runCtx.Err() != nil {
			break
		}
		p.Go(func() {
			if runCtx.Err() != nil {
				return
			}
			s.executeUnit(runCtx, sim, u, log, publish)
		})
	}
	p.Wait()
	prog.stop()
	rep.Elapsed = s.clock().Sub(start)
	sort.Slice(rep.Failed, func(i, j int) bool { return rep.Failed[i].ID < rep.Failed[j].ID })
	if abortErr != nil {
		// Index what was published before the stop, and say what stopped
		// it (attack round 3, U17: after a full disk the manifest said 0
		// runs). Best effort: the failed publish removed its temporary
		// file, which usually leaves room for the manifest.
		if s.Task == nil {
			stopped := fmt.Sprintf("%v; the runs listed were published before the stop, the others are to do: rerun the same command to continue", abortErr)
			if err := writeManifestStopped(s.Out, entries, stopped); err != nil {
				log.Warn("manifest not updated", "err", err)
			}
		}
		return rep, fmt.Errorf("sweep: %w", abortErr)
	}
	if err := s.writeManifest(entries); err != nil {
		return rep, err
	}
	if ctx.Err() != nil {
		log.Warn("sweep interrupted: finished runs are kept; rerun the same command to continue",
			"done_now", rep.Executed, "out", s.Out)
		return rep, &interruptedError{executed: rep.Executed, cause: context.Cause(ctx), ctxErr: ctx.Err()}
	}
	if !s.NoCollect && s.Task == nil {
		sum, err := outputs.Collect(s.Out)
		if err != nil {
			return rep, err
		}
		rep.Collected = sum
	}
	log.Info("sweep finished", "executed", rep.Executed, "done", rep.Done, "failed", len(rep.Failed),
		"skipped", rep.Skipped, "elapsed", rep.Elapsed.Round(time.Millisecond))
	if len(rep.Failed) > 0 {
		return rep, fmt.Errorf("%w: %d of %d run(s) failed (see %s)", ErrRunsFailed, len(rep.Failed), rep.Runs,
			filepath.Join(s.Out, ManifestFile))
	}
	return rep, nil
}

// execute runs one simulation, of any family, and returns its record; ok
// is false when the run was interrupted by cancellation (it is then not
// recorded). sim nil runs it by its algorithm's NewRun.
func (s *Sweep) execute(ctx context.Context, sim SimulateFunc, r *Run, log *slog.Logger) (rec outputs.RunRecord, pts []outputs.Point, ok bool) {
	rec = r.Record(s.Plan.Config.Name)
	if sim == nil {
		sim = r.entry().NewRun
	}
	res, err := safeRun(ctx, sim, r.Spec, log, r.ID)
	if err != nil && ctx.Err() != nil {
		return rec, nil, false
	}
	if err == nil {
		pts, err = checkCurve(res.Curve, r.Spec.T)
	}
	if err == nil {
		err = addMetrics(pts, res.Metrics)
	}
	if err == nil {
		err = r.entry().Result(r.Spec, res, &rec)
	}
	if err != nil {
		rec.Status, rec.Error = outputs.StatusFailed, err.Error()
		return rec, nil, true
	}
	rec.Status = outputs.StatusDone
	rec.Syncs, rec.Scalars = int64(res.Syncs), res.Scalars
	last := pts[len(pts)-1]
	rec.Rounds, rec.PseudoRegret, rec.RealisedRegret = int(last.Round), last.Pseudo, last.Realised
	rec.WallSeconds = res.WallSeconds
	return rec, pts, true
}

// addMetrics copies the curve metrics a run reported (core.Result.Metrics:
// one value per checkpoint) into its points.
func addMetrics(pts []outputs.Point, metrics map[string][]float64) error {
	for k, vs := range metrics {
		if len(vs) != len(pts) {
			return fmt.Errorf("curve metric %s: %d values for %d checkpoints", k, len(vs), len(pts))
		}
		for i, v := range vs {
			if pts[i].Metrics == nil {
				pts[i].Metrics = map[string]float64{}
			}
			pts[i].Metrics[k] = v
		}
	}
	return nil
}

// safeRun runs spec through sim, turning a panic of the run into an
// error (the stack goes to the log, not into the results, which must be
// reproducible) and a missing result into a failure.
func safeRun(ctx context.Context, sim SimulateFunc, spec registry.RunSpec, log *slog.Logger, id string) (res *core.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			if e, ok := v.(error); ok && errors.Is(e, registry.ErrStreamStopped) {
				// Its group was cancelled while it waited for contexts.
				err = e
				return
			}
			log.Error("run panicked", "id", id, "panic", v, "stack", string(debug.Stack()))
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	res, err = sim(ctx, spec)
	if err == nil && res == nil {
		err = errors.New("simulator returned no result")
	}
	return res, err
}

// checkCurve converts a regret curve of T rounds, refusing one that is
// empty, out of order, not ending at T or holding non-finite values.
func checkCurve(curve []core.Checkpoint, T int) ([]outputs.Point, error) {
	if len(curve) == 0 {
		return nil, errors.New("empty regret curve")
	}
	pts := make([]outputs.Point, len(curve))
	prev := 0
	for i, c := range curve {
		if c.Round <= prev || c.Round > T {
			return nil, fmt.Errorf("curve checkpoint %d at round %d (after round %d, T = %d)", i, c.Round, prev, T)
		}
		if math.IsNaN(c.Pseudo) || math.IsInf(c.Pseudo, 0) || math.IsNaN(c.Realised) || math.IsInf(c.Realised, 0) {
			return nil, fmt.Errorf("bad numerics: non-finite regret at round %d (pseudo %v, realised %v)", c.Round, c.Pseudo, c.Realised)
		}
		prev = c.Round
		pts[i] = outputs.Point{Round: int64(c.Round), Pseudo: c.Pseudo, Realised: c.Realised, Syncs: int64(c.Syncs)}
	}
	if prev != T {
		return nil, fmt.Errorf("curve ends at round %d, want T = %d", prev, T)
	}
	return pts, nil
}

// saveConfig writes the sweep file beside the outputs.
func (s *Sweep) saveConfig() error {
	raw := s.Plan.Config.Raw()
	if len(raw) == 0 {
		return nil
	}
	sum := sha256.Sum256(raw)
	write := func(p string) error {
		return outputs.WriteFileAtomic(p, func(w io.Writer) error { _, err := w.Write(raw); return err })
	}
	if err := os.MkdirAll(filepath.Join(s.Out, ConfigsDir), 0o755); err != nil {
		return fmt.Errorf("save sweep file: %w", err)
	}
	if err := write(filepath.Join(s.Out, ConfigsDir, hex.EncodeToString(sum[:6])+".toml")); err != nil {
		return err
	}
	return write(filepath.Join(s.Out, ConfigFile))
}

// writeManifest publishes DIR/manifest.json (entries sorted by id); a
// task leaves it to the collect.
func (s *Sweep) writeManifest(entries map[string]manifestEntry) error {
	if s.Task != nil {
		return nil
	}
	return writeManifest(s.Out, entries)
}

// manifestEntries indexes the published run files of a scan by run id.
func manifestEntries(scan *outputs.Scan) map[string]manifestEntry {
	entries := map[string]manifestEntry{}
	for _, f := range scan.Runs {
		entries[f.Record.RunID] = manifestEntry{f.Record.RunID, f.Record.Status, f.Record.Group, f.Record.Error}
	}
	return entries
}

// checkManifestLayout refuses a directory whose manifest.json was written
// by a newer fedbandit (its format_version is a layout this build does not
// know): such a directory is read, resumed and collected only by that
// release or a later one. Anything else about the manifest is no reason
// to stop (it is an index, rewritten from the run files, which are checked
// one by one: outputs.ScanRuns).
func checkManifestLayout(dir string) error {
	p := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var m struct {
		FormatVersion json.Number `json:"format_version"`
	}
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	if _, err := outputs.CheckLayout(m.FormatVersion.String()); errors.As(err, new(*outputs.NewerLayoutError)) {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

// writeManifest publishes dir/manifest.json (entries sorted by id).
func writeManifest(dir string, entries map[string]manifestEntry) error {
	return writeManifestStopped(dir, entries, "")
}

// writeManifestStopped is writeManifest of a sweep that stopped before
// its end: stopped says why.
func writeManifestStopped(dir string, entries map[string]manifestEntry, stopped string) error {
	m := manifest{FormatVersion: outputs.FormatVersion, Stopped: stopped, Entries: make([]manifestEntry, 0, len(entries))}
	for _, e := range entries {
		m.Entries = append(m.Entries, e)
		if e.Status == outputs.StatusDone {
			m.Done++
		} else {
			m.Failed++
		}
	}
	m.Runs = len(m.Entries)
	sort.Slice(m.Entries, func(i, j int) bool { return m.Entries[i].ID < m.Entries[j].ID })
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	b = append(b, '\n')
	return outputs.WriteFileAtomic(filepath.Join(dir, ManifestFile), func(w io.Writer) error { _, err := w.Write(b); return err })
}

// Collect writes DIR/runs.arrow and DIR/curves.arrow (outputs.Collect)
// and DIR/manifest.json while holding the directory's lock, so that it
// never reads run files a sweep is still writing: with a sweep or an
// array task running it fails at once, saying so (a sweep collects by
// itself when it finishes; an array's collect job runs after its tasks).
// A directory without the ResultsMarker is refused (ClaimDir).
func Collect(dir string) (*outputs.CollectSummary, error) {
	if err := CheckOwned(dir); errors.Is(err, ErrNotOwned) {
		return nil, fmt.Errorf("collect: %w", err)
	}
	if st, err := os.Stat(filepath.Join(dir, outputs.RunsDir)); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("collect %s: no %s/ directory: not a sweep output directory (`run sweep SWEEP --out %s` writes one)", dir, outputs.RunsDir, dir)
	}
	unlock, err := lockDir(dir)
	if errors.Is(err, errBusy) {
		return nil, fmt.Errorf("collect: %w (a sweep collects the tables itself when it finishes; an array's collect job runs after its tasks)", err)
	}
	if err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	defer unlock()
	if err := checkManifestLayout(dir); err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	sum, err := outputs.Collect(dir)
	if err != nil {
		return nil, err
	}
	scan, err := outputs.ScanRuns(dir)
	if err != nil {
		return nil, err
	}
	return sum, writeManifest(dir, manifestEntries(scan))
}

// SupersededDir (inside DIR/runs) receives the run files whose id this
// build computes differently (registry.Superseded; Report.Superseded).
const SupersededDir = "superseded"

// setAsideSuperseded moves the run files that this build plans under
// another id out of the way: those registry.Superseded names (the
// layout-1 FedUCB files). A file of this sweep's own plan, or any other
// file, is never touched.
func (s *Sweep) setAsideSuperseded(scan *outputs.Scan, runs []*Run, rep *Report, log *slog.Logger) error {
	planned := make(map[string]bool, len(runs))
	for _, r := range runs {
		planned[r.ID] = true
	}
	keep := scan.Runs[:0]
	for _, f := range scan.Runs {
		rec := f.Record
		why, superseded := registry.Superseded(&rec)
		if !superseded || planned[rec.RunID] {
			keep = append(keep, f)
			continue
		}
		dir := filepath.Join(s.Out, outputs.RunsDir, SupersededDir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("sweep: %w", err)
		}
		src := outputs.RunPath(s.Out, rec.RunID)
		// Another task of an array may have moved it first.
		if err := os.Rename(src, filepath.Join(dir, filepath.Base(src))); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("sweep: set aside superseded run file: %w", err)
		}
		log.Info(why+": set aside; this build gives its run a new id and redoes it", "file", src, "to", dir)
		rep.Superseded = append(rep.Superseded, rec.RunID)
	}
	scan.Runs = keep
	return nil
}
