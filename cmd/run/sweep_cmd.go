package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
	"github.com/fedbandit/fedbandit/runner"
)

// loadPlan reads a sweep file and expands it.
func loadPlan(path string) (*runner.Plan, error) {
	cfg, err := runner.LoadConfig(path)
	if err != nil {
		return nil, err
	}
	cfg.Progress = func(checked int, elapsed time.Duration) {
		fmt.Fprintf(os.Stderr, "planning %s: %d configurations checked in %s (each by its family's rules; some algorithms calibrate their noise per eps)\n",
			path, checked, elapsed.Round(time.Second))
	}
	start := cpuSeconds()
	plan, err := runner.NewPlan(cfg, registry.Env{})
	if err != nil {
		return nil, err
	}
	plan.PlanCPU = cpuSeconds() - start
	return plan, nil
}

// PlanCmd is `run plan`.
type PlanCmd struct {
	Config  string `arg:"" type:"existingfile" help:"Sweep file (TOML)."`
	Out     string `help:"Output directory of the sweep: count the runs already done there." type:"path"`
	Workers *int   `help:"Workers to assume for the wall-time and memory estimates, 1..4096 (default: one per core)."`
	List    bool   `help:"Also print every run: id, then its configuration and seed, in run order."`
	JSON    bool   `help:"Print the plan as one JSON object on stdout (the estimate's notes go to stderr); with --list it holds every run. Its fields are listed by run plan --help."`
	speedFlags
}

// Validate checks the options.
func (c *PlanCmd) Validate() error {
	if err := checkWorkers(c.Workers); err != nil {
		return err
	}
	return c.speedFlags.validate()
}

// maxWorkers bounds --workers: more concurrent runs than this is a typo
// (each worker holds a run's state).
const maxWorkers = 4096

// checkWorkers checks a --workers flag: absent (the command's default) or
// 1..maxWorkers.
func checkWorkers(w *int) error {
	if w != nil && (*w < 1 || *w > maxWorkers) {
		return fmt.Errorf("--workers %d: want 1..%d concurrent runs (leave it out for the default)", *w, maxWorkers)
	}
	return nil
}

// workersOr is the --workers value, or def when it is absent.
func workersOr(w *int, def int) int {
	if w != nil {
		return *w
	}
	return def
}

// speedFlags choose how run times are estimated: measured by default.
type speedFlags struct {
	Rate      *float64 `help:"Skip the timing pilots and assume this many multiply-adds per second of one core, 1e3..1e15, in the linear family's cost model M T K d^2 per run; the other families' model speeds are scaled by the same factor (see docs/bench/runner.md). Default: the speeds measured on this machine by short timed pilots (cached)."`
	Remeasure bool     `help:"Time the pilots again even if this machine's rates are cached."`
	// NoShareContexts is also how the sweep executes (and so how it is
	// estimated).
	NoShareContexts bool `help:"Let every run draw its own contexts: by default runs that read the same shared synthetic context stream (same instance, shared_contexts, M, T, K) draw it once. The results are the same bytes either way."`
}

// The range of --rate: a core does about 1e9 to 1e11 multiply-adds per
// second; values far outside are typos and would overflow the estimates.
const minRate, maxRate = 1e3, 1e15

func (f *speedFlags) validate() error {
	if f.Rate == nil {
		return nil
	}
	if r := *f.Rate; !(r >= minRate && r <= maxRate) {
		return fmt.Errorf("--rate %v: want the multiply-adds per second of one core, %g..%g", r, minRate, maxRate)
	}
	return nil
}

// estimate is the plan's estimate: from the speeds measured on this
// machine (a short timed pilot of each cost class, cached in
// runner.DefaultRateCache), or with --rate from the multiply-add model.
// It says which on w.
func (f *speedFlags) estimate(ctx context.Context, w io.Writer, plan *runner.Plan, scan *outputs.Scan, workers int, preflight func(runner.Estimate) error) (runner.Estimate, error) {
	e, _, err := f.estimateRates(ctx, w, plan, scan, workers, preflight)
	return e, err
}

// estimateRates is estimate that also returns the per-run speed model:
// one run's CPU seconds (runner.EstimateRun with the measured rates or
// --rate). preflight (nil: none) sees the estimate of the cost models
// before any pilot runs (its memory figures are the same), so that a
// sweep that cannot fit is refused before anything is allocated.
func (f *speedFlags) estimateRates(ctx context.Context, w io.Writer, plan *runner.Plan, scan *outputs.Scan, workers int, preflight func(runner.Estimate) error) (runner.Estimate, func(*runner.Run) float64, error) {
	if preflight != nil {
		if err := preflight(plan.EstimateShared(scan, workers, nil, 0, !f.NoShareContexts)); err != nil {
			return runner.Estimate{}, nil, err
		}
	}
	if f.Rate != nil {
		rate := *f.Rate
		e := withPlanning(plan.EstimateShared(scan, workers, nil, rate, !f.NoShareContexts), plan)
		fmt.Fprintf(w, "  times from the cost model at %.3g multiply-adds/s per core (--rate)\n", rate)
		return e, func(r *runner.Run) float64 { return runner.EstimateRun(r, nil, rate) }, nil
	}
	rates, err := plan.MeasureRates(ctx, scan, runner.DefaultRateCache(), f.Remeasure, nil)
	if err != nil {
		return runner.Estimate{}, nil, err
	}
	e := withPlanning(plan.EstimateShared(scan, workers, rates, 0, !f.NoShareContexts), plan)
	fmt.Fprintf(w, "  times measured on this machine: %d cost classes (%d timed now in %s, %d cached in %s)\n",
		rates.Measured+rates.Cached, rates.Measured, rates.Pilot.Round(time.Millisecond), rates.Cached, runner.DefaultRateCache())
	if rates.Unmeasured > 0 {
		fmt.Fprintf(w, "  %d cost classes not timed (one run's state exceeds the pilots' %s): their times are the cost model's\n",
			rates.Unmeasured, bytesText(runner.PilotMaxBytes))
	}
	return e, func(r *runner.Run) float64 { return runner.EstimateRun(r, rates, 0) }, nil
}

// sweepStartSeconds is the CPU time of a sweep beyond its plan and its
// runs: the process's start and its collect's set-up (sweeps of a few
// tiny runs measured 0.28-0.31 s against 0.19-0.21 s of planning and
// runs, BENCHMARKS.md).
const sweepStartSeconds = 0.1

// withPlanning is e with the plan's own CPU time (loading the instances,
// checking the configurations) and sweepStartSeconds added to its CPU and
// wall time: a sweep plans again before its first run, on one core.
func withPlanning(e runner.Estimate, plan *runner.Plan) runner.Estimate {
	if e.Pending > 0 {
		e.CPUSeconds += plan.PlanCPU + sweepStartSeconds
		e.WallSeconds += plan.PlanCPU + sweepStartSeconds
	}
	return e
}

// hugeCPUHours is the estimate above which `run sweep` warns before it
// starts: a sweep that large is more likely a grid typo than intended, and
// belongs on a cluster if intended.
const hugeCPUHours = 1000

// Run prints the plan.
func (c *PlanCmd) Run(ctx context.Context) error {
	plan, err := loadPlan(c.Config)
	if err != nil {
		return err
	}
	var scan *outputs.Scan
	if c.Out != "" {
		if scan, err = outputs.ScanRuns(c.Out); err != nil {
			return err
		}
	}
	workers := workersOr(c.Workers, runtime.NumCPU())
	notes := io.Writer(os.Stdout)
	if c.JSON {
		notes = os.Stderr
	} else {
		printPlanHead(os.Stdout, plan)
	}
	e, err := c.estimate(ctx, notes, plan, scan, workers, nil)
	if err != nil {
		return err
	}
	var memWarning error
	if e.Pending > 0 {
		// What run sweep's memory pre-flight would say (plan itself
		// allocates no run: its pilots are bounded).
		memWarning = (memoryFlag{}).check("run sweep", e.PeakBytes)
	}
	if c.JSON {
		return writePlanJSON(os.Stdout, plan, e, workers, c.Rate != nil, memWarning, c.List)
	}
	printEstimate(os.Stdout, e, workers)
	if memWarning != nil {
		fmt.Printf("  WARNING: %v\n", memWarning)
	}
	fmt.Printf("  collecting the tables: about %s (streamed: every run's record and one batch of curve rows)\n", bytesText(plan.CollectMemory()))
	if c.List {
		for _, r := range plan.Runs {
			fmt.Printf("%s  seed=%d  %s\n", r.ID, r.Seed(), r.Group)
		}
	}
	return nil
}

// planJSON is run plan --json's object; PlanCmd.Help lists its fields.
type planJSON struct {
	Sweep             string         `json:"sweep"`
	SemanticsVersion  int            `json:"semantics_version"`
	Runs              int            `json:"runs"`
	Configurations    int            `json:"configurations"`
	Seeds             int            `json:"seeds"`
	Done              int            `json:"done"`
	Failed            int            `json:"failed"`
	Pending           int            `json:"pending"`
	Workers           int            `json:"workers"`
	CPUSeconds        float64        `json:"cpu_seconds"`
	WallSeconds       float64        `json:"wall_seconds"`
	WallAssumes       string         `json:"wall_assumes"`
	LongestRunSeconds float64        `json:"longest_run_seconds"`
	TimesFrom         string         `json:"times_from"`
	Work              []planWork     `json:"work"`
	PeakBytes         int64          `json:"peak_bytes"`
	SharedBytes       int64          `json:"shared_bytes"`
	CollectBytes      int64          `json:"collect_bytes"`
	MemoryWarning     *string        `json:"memory_warning"`
	Instances         []planInstance `json:"instances"`
	Ignored           []planIgnored  `json:"ignored_keys"`
	RunList           []planRun      `json:"run_list,omitempty"`
}

// planWork is the pending runs' work in one family's unit.
type planWork struct {
	Unit  string  `json:"unit"`
	Total float64 `json:"total"`
}

// planInstance is one instance of the plan.
type planInstance struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Hash        string  `json:"hash"`
	Dim         int     `json:"d"`
	Actions     float64 `json:"actions_per_round"`
	Bytes       int64   `json:"bytes"`
}

// planIgnored lists the keys of the file an algorithm ignores.
type planIgnored struct {
	Algorithm int      `json:"algorithm"`
	Name      string   `json:"name"`
	Keys      []string `json:"keys"`
}

// planRun is one run of the plan (--list).
type planRun struct {
	RunID string `json:"run_id"`
	Seed  uint64 `json:"seed"`
	Group string `json:"group"`
}

// wallAssumption is what the wall-time estimate takes for granted: it
// schedules the runs on the workers as if each had a core to itself.
const wallAssumption = "idle cores: one free core per worker; on a shared or loaded machine the wall time is longer (the CPU time is not)"

// writePlanJSON writes the plan as one JSON object.
func writePlanJSON(w io.Writer, plan *runner.Plan, e runner.Estimate, workers int, rate bool, memWarning error, list bool) error {
	groups := map[string]bool{}
	for _, r := range plan.Runs {
		groups[r.GroupID] = true
	}
	p := planJSON{
		Sweep: plan.Config.Name, SemanticsVersion: runner.SemanticsVersion, Runs: len(plan.Runs), Configurations: len(groups),
		Seeds: plan.Config.Seeds, Done: e.Done, Failed: e.Failed, Pending: e.Pending, Workers: workers,
		CPUSeconds: e.CPUSeconds, WallSeconds: e.WallSeconds, WallAssumes: wallAssumption, LongestRunSeconds: e.LongestRunSeconds,
		TimesFrom: "measured", Work: []planWork{}, PeakBytes: e.PeakBytes, SharedBytes: e.SharedBytes,
		CollectBytes: plan.CollectMemory(), Instances: []planInstance{}, Ignored: []planIgnored{},
	}
	if rate {
		p.TimesFrom = "rate"
	}
	if memWarning != nil {
		msg := memWarning.Error()
		p.MemoryWarning = &msg
	}
	for _, u := range e.Work {
		p.Work = append(p.Work, planWork{u.Unit, u.Total})
	}
	for _, in := range plan.Instances {
		p.Instances = append(p.Instances, planInstance{in.Config.Name, in.Name, in.Hash, in.Dim, in.Actions, in.Bytes})
	}
	ignored := plan.Config.IgnoredKeys()
	for i, a := range plan.Config.Algorithms {
		if keys := ignored[i]; len(keys) > 0 {
			p.Ignored = append(p.Ignored, planIgnored{i, a.Name, keys})
		}
	}
	if list {
		for _, r := range plan.Runs {
			p.RunList = append(p.RunList, planRun{r.ID, r.Seed(), r.Group})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

// printPlanHead prints what the plan runs: its size, instances and the
// keys its algorithms ignore.
func printPlanHead(w io.Writer, plan *runner.Plan) {
	groups := map[string]bool{}
	for _, r := range plan.Runs {
		groups[r.GroupID] = true
	}
	fmt.Fprintf(w, "sweep %q: %d runs (%d configurations x %d seeds; run ids of simulator semantics v%d)\n", plan.Config.Name, len(plan.Runs), len(groups), plan.Config.Seeds, runner.SemanticsVersion)
	if plan.Elapsed >= time.Second {
		fmt.Fprintf(w, "  planned in %s (loading the instances, checking each configuration): run sweep spends it again before it runs\n", plan.Elapsed.Round(100*time.Millisecond))
	}
	for _, in := range plan.Instances {
		fmt.Fprintf(w, "  instance %s: %s (hash %.12s, d=%d, %.1f actions/round, %s shared)\n",
			in.Config.Name, in.Name, in.Hash, in.Dim, in.Actions, bytesText(in.Bytes))
	}
	ignored := plan.Config.IgnoredKeys()
	for i, a := range plan.Config.Algorithms {
		if keys := ignored[i]; len(keys) > 0 {
			fmt.Fprintf(w, "  algorithm[%d] %s ignores %s (planned once whatever their values)\n", i, a.Name, strings.Join(keys, ", "))
		}
	}
}

// printEstimate prints what the pending runs cost.
func printEstimate(w io.Writer, e runner.Estimate, workers int) {
	fmt.Fprintf(w, "  already done: %d; failed before (retried): %d; to run: %d\n", e.Done, e.Failed, e.Pending)
	var work []string
	for _, u := range e.Work {
		work = append(work, fmt.Sprintf("%.3g %s", u.Total, u.Unit))
	}
	fmt.Fprintf(w, "  cost: %s CPU (longest run %s), about %s wall with %d workers on idle cores; %s\n",
		durText(e.CPUSeconds), durText(e.LongestRunSeconds), durText(e.WallSeconds), workers, strings.Join(work, ", "))
	fmt.Fprintln(w, "  (the wall time assumes a free core per worker: on a shared or loaded machine it is longer, the CPU time is not)")
	fmt.Fprintf(w, "  peak memory: about %s (shared instances %s + per worker one run state, or a unit of runs sharing a context stream)\n", bytesText(e.PeakBytes), bytesText(e.SharedBytes))
}

// durText formats seconds: as a time.Duration up to 100,000 hours, in
// hours beyond (where a Duration would overflow and wrap negative).
func durText(s float64) string {
	switch {
	case math.IsNaN(s) || s < 0:
		return "unknown"
	case s >= 1e5*3600:
		return fmt.Sprintf("%.3gh", s/3600)
	}
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}

// bytesText formats a byte count; a negative one is an estimate that
// overflowed int64.
func bytesText(b int64) string {
	switch {
	case b < 0:
		return "more than 8 EiB"
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

// SweepCmd is `run sweep`.
type SweepCmd struct {
	Config   string        `arg:"" type:"existingfile" help:"Sweep file (TOML)."`
	Out      string        `required:"" type:"path" help:"Output directory (created; rerun with the same directory to resume)."`
	Workers  *int          `help:"Concurrent runs, 1..4096 (default: one per core)."`
	LogEvery time.Duration `help:"Interval of progress log lines when stderr is not a terminal, > 0." default:"30s"`
	NoPlot   bool          `help:"Do not draw regret.png/regret.svg at the end."`
	speedFlags
	memoryFlag
}

// Validate checks the options.
func (c *SweepCmd) Validate() error {
	if err := checkWorkers(c.Workers); err != nil {
		return err
	}
	if c.LogEvery <= 0 {
		return fmt.Errorf("--log-every %v: want an interval > 0, e.g. 30s", c.LogEvery)
	}
	return c.speedFlags.validate()
}

// Run executes the sweep.
func (c *SweepCmd) Run(ctx context.Context) error {
	plan, err := loadPlan(c.Config)
	if err != nil {
		return err
	}
	workers := workersOr(c.Workers, runtime.NumCPU())
	// Refuse a directory run does not own before anything else (the
	// estimate's pilots take a while).
	if err := runner.CheckOwned(c.Out); errors.Is(err, runner.ErrNotOwned) {
		return err
	}
	var scan *outputs.Scan
	if _, err := os.Stat(c.Out); err == nil {
		if scan, err = outputs.ScanRuns(c.Out); err != nil {
			return err
		}
	}
	// The memory pre-flight, from the cost models, before any pilot
	// allocates a run's state.
	e, err := c.estimate(ctx, os.Stderr, plan, scan, workers, func(e runner.Estimate) error {
		if e.Pending > 0 {
			return c.memoryFlag.check("run sweep", e.PeakBytes)
		}
		return nil
	})
	if err != nil {
		return err
	}
	warnEstimate(os.Stderr, e, workers)
	return runSweep(ctx, plan, c.Out, workers, c.LogEvery, !c.NoPlot, c.NoShareContexts)
}

// warnEstimate prints the estimate of the runs about to execute, and a
// warning when it is huge (it does not stop: the user may mean it).
func warnEstimate(w io.Writer, e runner.Estimate, workers int) {
	fmt.Fprintf(w, "%d of %d runs to do: about %s CPU, %s wall with %d workers on idle cores, peak memory about %s (estimate: run plan)\n",
		e.Pending, e.Runs, durText(e.CPUSeconds), durText(e.WallSeconds), workers, bytesText(e.PeakBytes))
	if h := e.CPUSeconds / 3600; h > hugeCPUHours {
		fmt.Fprintf(w, "WARNING: this sweep is estimated at %.3g CPU-hours (%.3g days of wall time here). If that is not intended, "+
			"check the grid with `run plan --list`; if it is, consider spreading it over a cluster. Ctrl-C stops cleanly and keeps finished runs.\n",
			h, e.WallSeconds/86400)
	}
}

// runSweep executes plan into out, then plots; shared with the main job.
func runSweep(ctx context.Context, plan *runner.Plan, out string, workers int, logEvery time.Duration, plot, noShare bool) error {
	s := &runner.Sweep{Plan: plan, Out: out, Workers: workers, LogEvery: logEvery, Log: slog.Default(), NoShare: noShare}
	if isTerminal(os.Stderr) {
		s.Progress = os.Stderr
	}
	rep, err := s.Execute(ctx)
	if rep != nil && rep.Collected != nil {
		fmt.Printf("runs:   %s (%d runs: %d done, %d failed)\ncurves: %s (%d rows)\n",
			rep.Collected.RunsPath, rep.Collected.Runs, rep.Collected.Done, rep.Collected.Failed,
			rep.Collected.CurvesPath, rep.Collected.CurveRows)
		if rep.Collected.Done > 0 {
			fmt.Println()
			if perr := printSummary(os.Stdout, out); perr != nil {
				slog.Error("summary", "err", perr)
			}
			fmt.Println()
		}
		if plot && rep.Collected.Done > 0 {
			if perr := drawPlots(out, plotOptions{}); perr != nil {
				slog.Error("plot", "err", perr)
			}
		}
	}
	return err
}

// CollectCmd is `run collect`.
type CollectCmd struct {
	Dir string `arg:"" type:"existingdir" help:"Sweep output directory."`
}

// Run collects the tables.
func (c *CollectCmd) Run() error {
	sum, err := runner.Collect(c.Dir)
	if err != nil {
		return err
	}
	fmt.Printf("runs:   %s (%d runs: %d done, %d failed)\ncurves: %s (%d rows)\n",
		sum.RunsPath, sum.Runs, sum.Done, sum.Failed, sum.CurvesPath, sum.CurveRows)
	if sum.Done > 0 {
		fmt.Println()
		return printSummary(os.Stdout, c.Dir)
	}
	return nil
}
