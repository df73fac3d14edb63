package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/internal/atomicfile"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
	"github.com/fedbandit/fedbandit/reproduce"
	"github.com/fedbandit/fedbandit/runner"
)

// ReproduceCmd is `run reproduce`.
type ReproduceCmd struct {
	Out        string        `help:"Reproduction directory: created (or empty), or one that run reproduce wrote before (rerun the same command to resume: finished runs are not redone). Holds one results directory per experiment, the sweep files run (sweeps/), reproduce.json and REPORT.md." type:"path"`
	Quick      bool          `help:"Few seeds and short horizons, every experiment (about a minute on 2 cores; what CI runs): the same as --scale quick."`
	Scale      string        `help:"default (a workstation: the whole catalogue in about 30 minutes with --workers 2 on 2 cores), quick (as --quick) or paper (the papers' scale: write a Slurm array per experiment with run slurm, docs/cluster.md, instead of running; then run reproduce --report-only DIR once they are collected)." enum:"quick,default,paper" default:"default"`
	Workers    *int          `help:"Concurrent runs, 1..4096 (default: one per core)."`
	MSLR       string        `name:"mslr" help:"A prepared MSLR-WEB10K (prep ingest, then prep fit --features title --alpha 1 and --features body --alpha 1): Zhou & Chowdhury's Figures 2c, 3c and 3d run on it. Without it they run on the embedded MQ2008 as a stand-in, labelled as such." type:"path"`
	Only       []string      `help:"Run (and report) only these experiments, comma-separated (--list shows them)." sep:","`
	List       bool          `help:"List the experiments of the catalogue and exit."`
	ReportOnly string        `name:"report-only" help:"Regenerate DIR/REPORT.md (and the figures) from a reproduction directory without running anything: the same results give the same bytes." type:"path" placeholder:"DIR"`
	CopyTo     string        `name:"copy-to" help:"Also copy the report, byte for byte, to FILE and its figures (the PNGs of DIR/reproduction/) to the folder reproduction/ beside FILE, removing there the PNGs of the report FILE replaces that this one does not show; it touches no other file and refuses a FILE or a PNG it did not write: --copy-to docs/reproduction.md regenerates the committed report." type:"path" placeholder:"FILE"`
	Cache      string        `help:"Where the prepared MQ2008 stand-in is cached (default: the user cache directory, as the main job)." type:"path"`
	LogEvery   time.Duration `help:"Interval of progress log lines when stderr is not a terminal, > 0." default:"30s"`
	speedFlags
	memoryFlag
}

// usageError is a command-line mistake: exit status 2.
type usageError struct{ error }

// ExitCode is the usage error's status.
func (usageError) ExitCode() int { return 2 }

// Help teaches the command.
func (c *ReproduceCmd) Help() string {
	return `Every experiment of the seed papers that fedbandit runs, by one command: it plans them all,
prints the total estimate (runs, CPU, wall), runs them (resumable, the same bytes for any
--workers) and writes DIR/REPORT.md: a summary table, then per experiment the figure in the
paper's layout (PNG and SVG), a table at the paper's checkpoints (mean ± SE over seeds), the
reference values with their source and the ratio to them, and each claim of the paper as a check
with its statistic (holds / does not hold / inconclusive at these seeds).

  run reproduce --out results/repro                 # the default scale (about 30 min, 2 workers)
  run reproduce --out results/repro-q --quick       # every experiment in about a minute
  run reproduce --out results/repro --only cz-fig1,cz-fig4
  run reproduce --out results/repro --mslr ~/data/mslr10k   # Figures 2c, 3c, 3d on MSLR-WEB10K
  run reproduce --out /scratch/repro --scale paper  # Slurm arrays at the papers' scale
  run reproduce --report-only results/repro         # the report again, from the results
  run reproduce --report-only results/repro --copy-to docs/reproduction.md
  run reproduce --list                              # the experiments

The catalogue is reproduce/catalogue.toml; docs/extending.md says how to add an experiment.`
}

// Run reproduces.
func (c *ReproduceCmd) Run(ctx context.Context) error {
	if c.Workers != nil && (*c.Workers < 1 || *c.Workers > maxWorkers) {
		return usageError{checkWorkers(c.Workers)}
	}
	if err := c.speedFlags.validate(); err != nil {
		return usageError{err}
	}
	if c.LogEvery <= 0 {
		return usageError{fmt.Errorf("--log-every %v: want an interval > 0, e.g. 30s", c.LogEvery)}
	}
	if c.CopyTo != "" && filepath.Ext(c.CopyTo) != ".md" {
		return usageError{fmt.Errorf("--copy-to %s: want a Markdown file (FILE.md, e.g. docs/reproduction.md); its figures go in reproduction/ beside it", c.CopyTo)}
	}
	if c.CopyTo != "" {
		if err := reproduce.CheckCopyTo(c.CopyTo); err != nil {
			return copyError(c.CopyTo, err)
		}
	}
	cat, err := reproduce.Load()
	if err != nil {
		return err
	}
	exps, err := cat.Select(c.Only)
	if err != nil {
		return usageError{fmt.Errorf("--only: %w", err)}
	}
	if c.List {
		for _, e := range exps {
			fmt.Printf("%-14s %s, %s: %s\n", e.Name, cat.PaperOf(e).Short(), e.Figure, e.Title)
		}
		return nil
	}
	if c.ReportOnly != "" {
		if c.Out != "" || c.Quick || len(c.Only) > 0 || c.MSLR != "" || c.Scale != reproduce.Default {
			return usageError{errors.New("--report-only DIR takes no --out, --quick, --scale, --only or --mslr: it reports what DIR holds")}
		}
		return c.report(c.ReportOnly, cat)
	}
	if c.Out == "" {
		return usageError{errors.New("--out DIR is required (or --report-only DIR, or --list)")}
	}
	scale := c.Scale
	if c.Quick {
		if scale != reproduce.Default {
			return usageError{fmt.Errorf("--quick and --scale %s: give one of them", scale)}
		}
		scale = reproduce.Quick
	}
	var mslr reproduce.Data
	if c.MSLR != "" {
		if err := checkMSLR(c.MSLR); err != nil {
			return usageError{err}
		}
		abs, err := filepath.Abs(c.MSLR)
		if err != nil {
			return err
		}
		mslr = reproduce.Data{Dir: abs}
	}
	out := c.Out
	rec, err := claimReproduction(out, scale, mslr.Dir)
	if err != nil {
		return err
	}
	rec.Command = "run reproduce " + strings.Join(os.Args[2:], " ")
	rec.Commit = commitOf()
	rec.Machine = machineOf()
	rec.Scale = scale
	rec.MSLR = mslr.Dir

	// The MQ2008 stand-in, prepared once for the experiments that need it.
	if mslr.Dir == "" {
		var feats []string
		for _, e := range exps {
			if e.Data == reproduce.DataMSLR {
				feats = append(feats, e.StandIn.Features...)
			}
		}
		if len(feats) > 0 {
			cache, err := cacheDir(c.Cache)
			if err != nil {
				return err
			}
			dataset, err := PrepareMQ2008(ctx, cache, quickstartSilos, slog.Default(), feats...)
			if err != nil {
				return err
			}
			mslr = reproduce.Data{Dir: dataset, StandIn: true}
		}
	}

	// Plan everything first.
	type job struct {
		e    *reproduce.Experiment
		er   *reproduce.ExpRecord
		plan *runner.Plan
		dir  string
		file string
	}
	var jobs []job
	for _, e := range exps {
		er := rec.Find(e.Name)
		if er == nil {
			rec.Experiments = append(rec.Experiments, reproduce.ExpRecord{Name: e.Name})
			er = &rec.Experiments[len(rec.Experiments)-1]
		}
		var data reproduce.Data
		er.Dir, er.StandIn, er.NotRun = e.Name, false, ""
		if e.Data == reproduce.DataMSLR {
			data = mslr
			if data.StandIn {
				er.Dir, er.StandIn = e.Name+"-mq2008", true
			}
		}
		raw, err := e.SweepFile(scale, data)
		if err != nil {
			return err
		}
		file := filepath.Join(out, reproduce.SweepsDir, e.Name+".toml")
		if err := atomicfile.WriteFile(file, raw); err != nil {
			return err
		}
		cfg, err := runner.ParseConfig(raw, filepath.Dir(file))
		if err != nil {
			return fmt.Errorf("experiment %s: %s: %w", e.Name, file, err)
		}
		plan, err := runner.NewPlan(cfg, registry.Env{})
		if err != nil {
			return fmt.Errorf("experiment %s: %w", e.Name, err)
		}
		er.Runs = len(plan.Runs)
		jobs = append(jobs, job{e: e, er: er, plan: plan, dir: filepath.Join(out, er.Dir), file: file})
	}
	// Keep the record in catalogue order whatever ran before.
	order := map[string]int{}
	for i, n := range cat.Names() {
		order[n] = i
	}
	sortRecord(rec, order)
	for i := range jobs {
		jobs[i].er = rec.Find(jobs[i].e.Name)
	}
	if err := reproduce.WriteRecord(out, rec); err != nil {
		return err
	}
	if scale == reproduce.PaperScale {
		for _, j := range jobs {
			fmt.Printf("== %s: %d runs\n", j.e.Name, len(j.plan.Runs))
			s := &SlurmCmd{Config: j.file, Out: j.dir, Parallel: 100, CPUs: 1, speedFlags: c.speedFlags}
			if err := s.Run(ctx); err != nil {
				return fmt.Errorf("experiment %s: %w", j.e.Name, err)
			}
		}
		fmt.Printf("\nWhen every array is collected: run reproduce --report-only %s\n", out)
		return nil
	}
	workers := workersOr(c.Workers, runtime.NumCPU())
	fmt.Fprintf(os.Stderr, "%-14s %6s %6s %10s %10s\n", "experiment", "runs", "to do", "CPU", "wall")
	var cpu, wall float64
	total, todo := 0, 0
	for _, j := range jobs {
		var scan *outputs.Scan
		if _, err := os.Stat(j.dir); err == nil {
			if scan, err = outputs.ScanRuns(j.dir); err != nil {
				return err
			}
		}
		e, err := c.estimate(ctx, io.Discard, j.plan, scan, workers, func(e runner.Estimate) error {
			if e.Pending > 0 {
				return c.memoryFlag.check("run reproduce "+j.e.Name, e.PeakBytes)
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("experiment %s: %w", j.e.Name, err)
		}
		fmt.Fprintf(os.Stderr, "%-14s %6d %6d %10s %10s\n", j.e.Name, e.Runs, e.Pending, durText(e.CPUSeconds), durText(e.WallSeconds))
		cpu += e.CPUSeconds
		wall += e.WallSeconds
		total += e.Runs
		todo += e.Pending
	}
	fmt.Fprintf(os.Stderr, "%-14s %6d %6d %10s %10s  (estimate, %d workers)\n", "total", total, todo, durText(cpu), durText(wall), workers)
	if mslr.StandIn {
		fmt.Fprintf(os.Stderr, "Figures 2c, 3c and 3d run on the embedded MQ2008 as a stand-in; for MSLR-WEB10K:\n%s", mslrSteps("  "))
	}
	for _, j := range jobs {
		fmt.Fprintf(os.Stderr, "== %s (%s): %d runs\n", j.e.Name, j.e.Figure, len(j.plan.Runs))
		cpu0, t0 := cpuSeconds(), time.Now()
		s := &runner.Sweep{Plan: j.plan, Out: j.dir, Workers: workers, LogEvery: c.LogEvery, Log: slog.Default(), NoShare: c.NoShareContexts}
		if isTerminal(os.Stderr) {
			s.Progress = os.Stderr
		}
		rep, err := s.Execute(ctx)
		j.er.CPUSeconds += cpuSeconds() - cpu0
		j.er.WallSeconds += time.Since(t0).Seconds()
		if werr := reproduce.WriteRecord(out, rec); werr != nil && err == nil {
			err = werr
		}
		if err != nil {
			return fmt.Errorf("experiment %s: %w", j.e.Name, err)
		}
		if rep != nil && rep.Collected != nil && rep.Collected.Failed > 0 {
			return fmt.Errorf("experiment %s: %d runs failed (see %s); rerun the same command to retry them", j.e.Name, rep.Collected.Failed, filepath.Join(j.dir, "manifest.json"))
		}
	}
	return c.report(out, cat)
}

// copyError is the error of --copy-to FILE: a usage error (exit status
// 2) when the copy refuses to replace a file it did not write.
func copyError(file string, err error) error {
	err = fmt.Errorf("--copy-to %s: %w", file, err)
	if errors.Is(err, reproduce.ErrForeign) {
		return usageError{err}
	}
	return err
}

// report writes DIR/REPORT.md and says where it is.
func (c *ReproduceCmd) report(dir string, cat *reproduce.Catalogue) error {
	if _, err := os.Stat(filepath.Join(dir, reproduce.Marker)); err != nil {
		return usageError{fmt.Errorf("%s is not a reproduction directory (no %s: `run reproduce --out DIR` writes one)", dir, reproduce.Marker)}
	}
	if _, err := reproduce.WriteReport(dir, cat, reproduce.ReferenceFS); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	fmt.Printf("report: %s\n", filepath.Join(dir, reproduce.ReportFile))
	if c.CopyTo != "" {
		if err := reproduce.CopyReport(dir, c.CopyTo); err != nil {
			return copyError(c.CopyTo, err)
		}
		fmt.Printf("copied to: %s and %s\n", c.CopyTo, filepath.Join(filepath.Dir(c.CopyTo), reproduce.FiguresDir))
	}
	return nil
}

// claimReproduction makes dir a reproduction directory (missing or
// empty: created and marked) or accepts one that holds the marker and a
// record of the same scale and data, whose record it returns. Anything
// else (another command's results, a dataset, other files) is refused
// and nothing is written.
func claimReproduction(dir, scale, mslr string) (*reproduce.Record, error) {
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return nil, err
	case len(ents) == 0:
	default:
		if _, err := os.Stat(filepath.Join(dir, reproduce.Marker)); err != nil {
			what := "it holds other files"
			if _, err := os.Stat(filepath.Join(dir, runner.ResultsMarker)); err == nil {
				what = "it is the results directory of another run command (run sweep, run audit, ...)"
			} else if _, err := os.Stat(filepath.Join(dir, ingest.ManifestFile)); err == nil {
				what = "it is a prepared dataset"
			}
			return nil, usageError{fmt.Errorf("--out %s: not a reproduction directory (%s): give a new or empty directory, or one run reproduce wrote", dir, what)}
		}
		rec, err := reproduce.ReadRecord(dir)
		if err != nil {
			return nil, err
		}
		if rec.Scale != scale || rec.MSLR != mslr {
			return nil, usageError{fmt.Errorf("--out %s holds a reproduction at scale %s (mslr %q): resume it with the same --scale and --mslr, or give another directory", dir, rec.Scale, rec.MSLR)}
		}
		return rec, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, reproduce.Marker), []byte("This directory holds a reproduction written by `run reproduce`.\n"), 0o644); err != nil {
		return nil, err
	}
	return &reproduce.Record{Scale: scale, MSLR: mslr}, nil
}

func sortRecord(rec *reproduce.Record, order map[string]int) {
	ex := rec.Experiments
	for i := 1; i < len(ex); i++ {
		for j := i; j > 0 && order[ex[j].Name] < order[ex[j-1].Name]; j-- {
			ex[j], ex[j-1] = ex[j-1], ex[j]
		}
	}
}

// The size of MSLR-WEB10K.
const mslrFeatures, mslrQueries = 136, 10000

// checkMSLR checks that dir is a prepared MSLR-WEB10K.
func checkMSLR(dir string) error {
	man, err := ingest.ReadManifest(dir)
	if err != nil {
		return fmt.Errorf("--mslr %s: not a prepared dataset (%v); prepare it with\n%s", dir, err, mslrSteps("  "))
	}
	var bad []string
	if man.Features != mslrFeatures {
		bad = append(bad, fmt.Sprintf("%d features, want %d", man.Features, mslrFeatures))
	}
	if man.Queries != mslrQueries {
		bad = append(bad, fmt.Sprintf("%d queries, want %d (all of MSLR-WEB10K: Fold1 train + vali + test)", man.Queries, mslrQueries))
	}
	if len(bad) > 0 {
		return fmt.Errorf("--mslr %s is not a prepared MSLR-WEB10K: %s; prepare it with\n%s", dir, strings.Join(bad, "; "), mslrSteps("  "))
	}
	return nil
}

// mslrSteps are the commands that prepare MSLR-WEB10K for --mslr.
func mslrSteps(indent string) string {
	return indent + "go run ./cmd/prep ingest ~/data/MSLR-WEB10K.zip --out ~/data/mslr10k\n" +
		indent + "go run ./cmd/prep fit ~/data/mslr10k --features title --alpha 1\n" +
		indent + "go run ./cmd/prep fit ~/data/mslr10k --features body --alpha 1\n" +
		indent + "go run ./cmd/run reproduce --out DIR --mslr ~/data/mslr10k\n"
}

// cacheDir is --cache or the user cache directory's fedbandit folder.
func cacheDir(flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (use --cache): %w", err)
	}
	return filepath.Join(dir, "fedbandit"), nil
}

// commitOf names the source the command runs: the git commit of the
// working directory (with "+dirty" when tracked files differ), else the
// build's VCS stamp, else "unknown".
func commitOf() string {
	if b, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
		c := strings.TrimSpace(string(b))
		if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
			c += "+dirty"
		}
		return c
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return "unknown"
}

// machineOf describes the machine: OS, architecture, cores, CPU model
// and Go version (no host name).
func machineOf() string {
	model := ""
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	s := fmt.Sprintf("%s/%s, %d cores", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	if model != "" {
		s += ", " + model
	}
	return s + ", " + runtime.Version()
}
