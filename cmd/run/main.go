// Command run executes fedbandit sweeps: seeded, concurrent, resumable
// grids of federated bandit simulations whose results are Arrow tables.
//
//	run                          the main job: prepare the embedded MQ2008 set, run a
//	                             small sweep, write Arrow tables and a plot
//	run plan SWEEP.toml          expand a sweep; print run count, cost, memory
//	run sweep SWEEP.toml --out DIR   execute it (resumable; Ctrl-C stops cleanly)
//	run collect DIR              (re)write DIR/runs.arrow and DIR/curves.arrow
//	run plot DIR                 draw DIR/regret.png and .svg (--over instance: the MAB paper's panels)
//	run slurm SWEEP.toml --out DIR   a Slurm job array for a cluster (docs/cluster.md)
//	run task SWEEP.toml --out DIR --tasks N   one task of such an array
//	run status DIR               an array's progress per task; rerun the incomplete ones
//	run audit                    empirical privacy audit of one release (eager vs lazy)
//	run table DIR                mean ± SE per configuration (--format text, markdown, csv, json)
//	run export DIR --csv         DIR/runs.csv and curves.csv for a pandas without pyarrow
//
// `run --version` names the build. A usage error exits 2 after a short
// usage (internal/cliconv). Run `run COMMAND --help` for details; sweeps/README.md documents the
// sweep file and outputs/README.md every output column.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"reflect"
	"syscall"
	"time"

	"github.com/alecthomas/kong"

	"github.com/fedbandit/fedbandit/internal/buildinfo"
	"github.com/fedbandit/fedbandit/internal/cliconv"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/runner"
)

// cli is the command tree.
type cli struct {
	Verbose bool             `help:"Log debug detail." short:"v"`
	Version kong.VersionFlag `help:"Print this build's version, VCS revision, simulator semantics and results layout, and exit."`

	Quickstart QuickstartCmd `cmd:"" default:"withargs" help:"The main job (default when no command is given): prepare the embedded real MQ2008 dataset (cached), run a small sweep per family (FedLinUCB and LDP at three eps; SE and Dist-DP-SE on one query's documents; online least squares by the two-point method, non-private and LDP; several seeds), write Arrow tables and a plot."`
	Plan       PlanCmd       `cmd:"" help:"Expand a sweep file and print its run count, how many are already done, and CPU-time and memory estimates. Runs nothing."`
	Sweep      SweepCmd      `cmd:"" help:"Run a sweep: every run not already done in --out, concurrently, each published atomically; then collect the tables. Rerun the same command to resume."`
	Collect    CollectCmd    `cmd:"" help:"Write DIR/runs.arrow (one row per run) and DIR/curves.arrow (one row per run and checkpoint) from DIR/runs/."`
	Plot       PlotCmd       `cmd:"" help:"Draw time-average regret vs round (mean and standard-error band per configuration) as DIR/regret.png and DIR/regret.svg; a row of panels per family, instance class and horizon, at most 10 curves a panel; over instances (the default when the instances differ only in their seed: the MAB paper's figures) as DIR/regret-instances.png and .svg."`
	Slurm      SlurmCmd      `cmd:"" help:"Write (and with --submit submit) a Slurm job array that runs a sweep on a cluster, one share of the plan per task, and a collect job after it. Same sweep file, same bytes as run sweep. See docs/cluster.md."`
	Task       TaskCmd       `cmd:"" help:"Execute task I of N of a sweep's plan into a shared output directory (what each array task runs; the index comes from --index, $SLURM_ARRAY_TASK_ID or $JOB_COMPLETION_INDEX)."`
	Status     StatusCmd     `cmd:"" help:"Show an array job's progress per task from its published runs, and the command that reruns only the incomplete tasks."`
	Table      TableCmd      `cmd:"" help:"Print every configuration's time-average regret at chosen rounds (--at 1000,2500,5000,10000), mean ± standard error over seeds (--over instance: over instances, as run plot --over instance); --markdown for docs."`
	Export     ExportCmd     `cmd:"" help:"Write CSV copies of a results directory's tables (DIR/runs.csv, DIR/curves.csv) for a pandas without pyarrow."`
	Scaling    ScalingCmd    `cmd:"" help:"Fit how regret grows with M, T or eps (--over): over M the privacy cost (pseudo-regret minus FedLinUCB's at the same M and seed) per algorithm, over T or eps the mean pseudo-regret per configuration (with --baseline ALG: the cost against ALG, paired by seed); print the exponents and the local exponents with 95% intervals and draw DIR/scaling.png and .svg (scaling-T, scaling-eps)."`
	Reproduce  ReproduceCmd  `cmd:"" help:"Every experiment of the seed papers by one command: plan (total estimate first), run (resumable, any worker count, the same bytes) and write DIR/REPORT.md, each figure beside its reference values and the papers' claims with a verdict (--quick: every experiment in about a minute; --scale paper: Slurm arrays)."`
	Audit      AuditCmd      `cmd:"" help:"Audit private algorithms empirically (privacy.md T8): draw one silo's release many times under two neighbouring datasets through the real code path and compare the measured privacy with the accountant's claim. One spec from the flags (eager and lazy learner), or every private configuration of a sweep file (--sweep); --out writes audit.arrow and a plot."`
}

// signalCause is the cancellation cause of the command's context: the
// signal that asked it to stop.
type signalCause struct{ sig os.Signal }

func (c signalCause) Error() string { return "received " + c.sig.String() }

// exitStatus is the conventional exit status after a signal: 128 + its
// number (130 for Ctrl-C, 143 for SIGTERM).
func (c signalCause) exitStatus() int {
	if s, ok := c.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// stopGrace is how long a command has, after the first Ctrl-C or
// SIGTERM, to stop by itself (running simulations stop at their next
// round, the manifest is written) before the process exits anyway: work
// that does not watch the context (a calibration's numeric search) must
// not keep the user waiting. Exiting then is as safe as SIGKILL, which
// every writer is built for (files are published atomically; a rerun
// redoes what was in flight).
const stopGrace = 500 * time.Millisecond

// notifyContext returns a context cancelled, with a signalCause, by the
// first SIGINT or SIGTERM; after it the signals' default action (exit)
// applies again, so a second Ctrl-C stops at once. If the command has not
// returned stopGrace after the first signal, exit is called with the
// signal's conventional status (128 + its number) and a message on
// stderr.
func notifyContext(exit func(int)) context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sigs
		signal.Stop(sigs)
		cause := signalCause{s}
		cancel(cause)
		time.Sleep(stopGrace)
		fmt.Fprintf(os.Stderr, "run: %v: stopped; work in progress is discarded, published results are kept; rerun the same command to continue\n", cause)
		exit(cause.exitStatus())
	}()
	return ctx
}

// AfterApply refuses a control character (newline, carriage return, tab,
// NUL, ...) in every text flag and argument: no file name, title or Slurm
// value of this tool needs one, and a newline reaching a job script or a
// log line would start a command or forge a line.
func (c *cli) AfterApply(kctx *kong.Context) error {
	check := func(name string, v reflect.Value) error {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return nil
			}
			v = v.Elem()
		}
		switch {
		case v.Kind() == reflect.String:
			return noControl(name, v.String())
		case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String:
			for i := 0; i < v.Len(); i++ {
				if err := noControl(name, v.Index(i).String()); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, f := range kctx.Flags() {
		if err := check("--"+f.Name, f.Target); err != nil {
			return err
		}
	}
	if n := kctx.Selected(); n != nil {
		for _, a := range n.Positional {
			if err := check("<"+a.Name+">", a.Target); err != nil {
				return err
			}
		}
	}
	return nil
}

func main() { os.Exit(runMain(os.Args[1:], os.Stderr)) }

// newParser builds the command-line parser of run over c; opts come after
// the program's own (tests redirect the output and the exit).
func newParser(c *cli, opts ...kong.Option) (*kong.Kong, error) {
	return kong.New(c, append([]kong.Option{
		kong.Name("run"),
		kong.Description("Run seeded, resumable sweeps of federated bandit simulations and write their results as Arrow tables.\n\nWith no command, runs the main job on the embedded MQ2008 dataset."),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Vars{"version": versionLine()},
	}, opts...)...)
}

// versionLine is what --version prints: the build (module version, VCS
// revision, Go release), the simulator semantics that run ids are keyed
// by, and the results layout this build writes.
func versionLine() string {
	return fmt.Sprintf("%s; simulator semantics v%d, results layout %d", buildinfo.Read(), runner.SemanticsVersion, outputs.FormatVersion)
}

// runMain runs the command line args, reporting errors on stderr, and returns the exit status: 0, 1
// for an error, 2 for a usage error (cliconv), 128 + the signal's number
// after Ctrl-C or SIGTERM.
func runMain(args []string, stderr io.Writer) int {
	var c cli
	k, err := newParser(&c)
	if err != nil {
		panic(err) // the grammar is the program's own
	}
	kctx, status, ok := cliconv.Start(k, args, stderr, &c.Verbose)
	if !ok {
		return status
	}

	// The first Ctrl-C (or SIGTERM) cancels the context: running
	// simulations stop at the next round, finished runs stay published. A
	// second one kills at once.
	ctx := notifyContext(os.Exit)
	kctx.BindTo(ctx, (*context.Context)(nil))
	err = kctx.Run()
	var sc signalCause
	switch {
	case err == nil && errors.As(context.Cause(ctx), &sc):
		// The signal came as the command finished (work that does not
		// watch the context): still the signal's status, as if the grace
		// period had run out.
		fmt.Fprintf(stderr, "run: %v as the command finished; published results are kept; rerun the same command to continue\n", sc)
		return sc.exitStatus()
	case err == nil:
		return 0
	case errors.As(err, &sc):
		fmt.Fprintln(stderr, "run:", err)
		return sc.exitStatus()
	case errors.Is(err, runner.ErrInterrupted):
		fmt.Fprintln(stderr, "run:", err)
		return 130
	case errors.As(context.Cause(ctx), &sc):
		// A command that stopped on the signal with an error of its own
		// (a context error from deep inside): still the signal's status.
		fmt.Fprintf(stderr, "run: %v: stopped (%v); published results are kept; rerun the same command to continue\n", sc, err)
		return sc.exitStatus()
	}
	return cliconv.Report(stderr, k, kctx, err)
}

// isTerminal reports whether f is a character device (a terminal), where a
// progress bar is shown instead of log lines.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
