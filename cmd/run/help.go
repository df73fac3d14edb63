package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
)

// Help texts shown by `run COMMAND --help` (kong's detailed help).

// quickstartConfigs is the number of configurations of the main job's
// three sweeps (quickstart*.toml): FedLinUCB, LDP at three eps; SE,
// Dist-DP-SE; two-point, LDP two-point. TestQuickstart holds it to the
// sweeps.
const quickstartConfigs = 8

// Help explains the main job.
func (c *QuickstartCmd) Help() string {
	return fmt.Sprintf(`Runs on a fresh machine with no download:

  1. extracts the embedded real MQ2008 dataset (LETOR 4.0, 784 queries) and prepares
     it into the cache: ingest to Parquet, lasso theta* with alpha chosen by 5-fold
     cross-validation, contiguous partition into %[3]d silos (done once, keyed by content);
  2. runs %[1]d seeded runs (%[4]d configurations x %[2]d seeds, T = %[5]d), one sweep per
     family, concurrently and resumably. Linear: FedLinUCB, and LDP-FedLinUCB at eps
     0.2, 1 and 5 (delta 0.1; M = %[3]d silos, B = 25). Multi-armed: SE, and Dist-DP-SE at
     eps 1, the documents of query 10056 as arms. Convex: online least squares by the
     two-point method, non-private and LDP (eps 1, delta 1e-5);
  3. writes --out/runs.arrow and curves.arrow (and their Parquet copies),
     --out/regret.png and .svg, and prints a summary with the privacy each
     configuration actually delivers, and how to load the tables in Python.

--quick: %[6]d runs (%[7]d seeds, T = %[8]d), a few seconds.

Examples:

    go run ./cmd/run                         # the main job, outputs in ./fedbandit-quickstart
    go run ./cmd/run --quick --out /tmp/qs   # CI size (a few seconds)`,
		quickstartConfigs*fullSeeds, fullSeeds, quickstartSilos, quickstartConfigs, fullRounds,
		quickstartConfigs*quickSeeds, quickSeeds, quickRounds)
}

// algorithmsHelp lists the registered algorithms with their own
// parameters, and the instance kinds with their keys (registry).
func algorithmsHelp() string {
	var b strings.Builder
	b.WriteString("Algorithms ([[algorithm]] name = ...):\n\n")
	for _, a := range registry.Algorithms() {
		fmt.Fprintf(&b, "    %-10s %s\n", a.Name, a.Summary)
		for _, p := range a.Params {
			def := fmt.Sprintf("default %v, ", p.Default)
			if math.IsNaN(p.Default) {
				def = "" // a default that depends on the run: its doc says
			}
			fmt.Fprintf(&b, "    %-10s   %s (%s%s): %s\n", "", p.Key, def, p.Range(), p.Doc)
		}
	}
	b.WriteString("\nInstance kinds ([[instance]] kind = ...):\n\n")
	for _, k := range registry.Kinds() {
		fmt.Fprintf(&b, "    %-10s %s\n", k.Name, k.Summary)
		for _, key := range k.Keys {
			fmt.Fprintf(&b, "    %-10s   %s: %s\n", "", key.Key, key.Doc)
		}
		if cols := k.Records(); len(cols) > 0 {
			fmt.Fprintf(&b, "    %-10s   (runs.arrow records %s)\n", "", strings.Join(cols, ", "))
		}
	}
	return b.String()
}

// metricsHelp lists the curve metrics --metric takes, the default
// first, each with its column, unit, families and meaning: their
// declarations' words (outputs.Metrics).
func metricsHelp() string {
	var b strings.Builder
	b.WriteString("Curve metrics (--metric NAME):\n\n")
	for _, m := range outputs.Metrics() {
		fmt.Fprintf(&b, "    %-14s %s (column %s, %s; %s; plot files %s.*; since layout %d)\n", m.Name, m.Label, m.Column, m.Unit, m.FamiliesText(), m.File, m.Since)
		fmt.Fprintf(&b, "    %-14s   %s\n", "", m.Doc)
	}
	return b.String()
}

// Help explains sweeps.
func (c *SweepCmd) Help() string {
	return algorithmsHelp() + `
Every run of the sweep file that is not already done in --out is executed, one
worker per core by default. Each finished run is published atomically as
--out/runs/<run id>.arrow; at the end runs.arrow, curves.arrow and the figure are
written. Rerun the same command to resume after Ctrl-C, a crash or a kill: done runs
are skipped, failed runs retried, and the files end up exactly as after an
uninterrupted sweep. A failed run (error, panic, non-finite regret) is recorded with
its message and the command exits non-zero once all runs are done.

Examples:

    run plan  sweeps/fig3a.toml
    run sweep sweeps/fig3a.toml --out results/fig3a
    run sweep sweeps/fig3a.toml --out results/fig3a --workers 1   # same bytes, slower

The sweep file format is documented in sweeps/README.md, the outputs in
outputs/README.md.`
}

// Help explains the plan.
func (c *PlanCmd) Help() string {
	return algorithmsHelp() + `
Expands the grid (instances x algorithms x grid values x seeds; identical runs
once), loads each learning-to-rank instance to compute its content hash, and prints
the number of runs, how many are already done in --out, the CPU time and the
peak memory, and which keys
of the file an algorithm ignores (eps for a non-private one, the learner's keys
for one that does not learn, M, reward and no_clip for the mab family). Runs
nothing but the timing pilots.

The CPU time comes from the speeds measured on this machine: a short timed
pilot of each cost class (about 0.1 s; cached per machine; --remeasure times
them again). Each family counts the work of a run in its own unit (linear:
M T K d^2 multiply-adds; mab: T rounds; bco: M T d coordinate operations).
With --rate R the pilots are skipped: R is this machine's speed in the linear
model's multiply-adds per second of one core, and every family's model speed
is scaled by the same factor. A class whose one run needs more than 1 GiB is
not timed (its model time stands): the plan allocates no run.

The wall time schedules the runs on the workers as a sweep does, assuming a
free core per worker: on a shared or loaded machine it is longer (the CPU time
is not).

--json prints one object for a program: sweep, semantics_version, runs,
configurations, seeds, done, failed, pending, workers, cpu_seconds,
wall_seconds, wall_assumes, longest_run_seconds, times_from ("measured" or
"rate"), work [{unit, total}], peak_bytes, shared_bytes, collect_bytes,
memory_warning (null or the pre-flight's message), instances [{name,
description, hash, d, actions_per_round, bytes}], ignored_keys [{algorithm,
name, keys}] and, with --list, run_list [{run_id, seed, group}].

Examples:

    run plan sweeps/fig2c.toml
    run plan sweeps/fig3a.toml --out results/fig3a --list
    run plan sweeps/fig3a.toml --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["cpu_seconds"])'`
}
