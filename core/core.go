// Package core is the family-neutral heart of the simulator: the contract
// every bandit family implements (Problem), the loop that drives it (Drive),
// what a run records (Result, Checkpoint) and the privacy claim every run
// carries (Privacy).
//
// The linear contextual family (package federate), the distributed-DP
// multi-armed bandits (package mab) and locally private bandit convex
// optimisation (package bco) are clients of this package; the registry above
// them maps sweep-file keys onto their specs. core imports no family.
package core

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// Problem is one run of one algorithm on one instance, advanced a round at
// a time. Round t plays every silo's (or user's) turn of round t and
// returns the group's instantaneous pseudo-regret (from the means) and
// realised regret (from the observed or, for convex losses, the incurred
// values). Implementations are single-threaded and deterministic.
type Problem interface {
	Round(t int) (pseudo, realised float64)
	// Counters reports the synchronisations (or batches, or releases)
	// so far and the scalars communicated to the server.
	Counters() (syncs int, scalars int64)
}

// Checkpoint is the state of the regret curves after Round rounds.
type Checkpoint struct {
	Round    int     // t (1-indexed)
	Pseudo   float64 // cumulative pseudo-regret up to t
	Realised float64 // cumulative realised regret up to t
	Syncs    int     // synchronisations (batches, releases) so far
}

// Metric declares one curve metric, where it is produced: what `run plot
// --metric` and `run table --metric` show, its curves.arrow column and
// the words the commands, their help and the tables' field metadata use.
// core declares the metrics Drive records for every problem (Metrics); a
// family declares those its problems report (core.Metered) in its own
// package's list, and the registry hands that list to package outputs
// with the family's name, which gathers every declaration into one table
// (outputs.Metrics) and refuses, at start-up, a column, name or plot file
// declared twice (docs/extending.md, "A curve metric").
type Metric struct {
	Name     string // the --metric value, e.g. "communication"
	Column   string // its curves.arrow column: the key it is reported under
	Unit     string // unit of the column
	Label    string // axis label
	Head     string // `run table`'s column head for the value at t
	File     string // base name of `run plot`'s files (DIR/<File>.png)
	Footnote string // what `run table` says the numbers are
	Doc      string // the column's meaning (its field metadata, help and README row)
	// Since is the table layout (outputs.FormatVersion) the metric first
	// appeared in: a run recorded in an older layout holds null, and
	// comparisons of such a run with a fresh one hold modulo the metric
	// (outputs.Point.Modulo). A new metric comes with the next layout;
	// outputs refuses one above the layout this build writes.
	Since int
}

// ScalarsSentColumn is the curve metric Drive records for every problem
// at every checkpoint: the cumulative scalars sent to the server
// (Problem.Counters), the communication of the run so far (declared in
// Metrics as the metric "communication").
const ScalarsSentColumn = "scalars_sent"

// Metrics are the curve metrics Drive records for every problem, of
// every family (outputs.Metrics lists them after the regret metrics).
var Metrics = []Metric{
	{Name: "communication", Column: ScalarsSentColumn, Unit: "scalars",
		Label: "Scalars sent to the server", Head: "scalars sent", File: "communication",
		Footnote: "cumulative scalars sent to the server up to t (runs.arrow's scalars at T), summed over the silos or users",
		Doc:      "Cumulative scalars sent to the server up to t, as the run's counters count them (runs.arrow's scalars at T): recorded by core.Drive for every family.",
		Since:    4},
}

// Metered is a Problem that reports curve metrics of its own at every
// checkpoint, by the curves.arrow column that holds them (each declared
// once, in its family's list of Metric): a family adds a metric without
// touching the loop or the tables.
type Metered interface {
	Metrics(t int) map[string]float64
}

// Result is what every run records, whatever its family.
type Result struct {
	Curve []Checkpoint
	// Metrics holds the curve metrics of every checkpoint of Curve, by
	// column: ScalarsSentColumn for every problem, and those a Metered
	// problem reported.
	Metrics  map[string][]float64
	Pseudo   float64 // cumulative pseudo-regret at T
	Realised float64 // cumulative realised regret at T
	Syncs    int
	Scalars  int64
	Privacy  Privacy
	// HindsightNote says how exact the regret's comparator is, when the
	// family computes it only to a certified precision ("" when exact).
	HindsightNote string
	WallSeconds   float64 // wall time of the simulation (not part of byte-identity)
	// Detail is the family's own result, when it has more than this
	// (the linear family's *federate.Result: calibration, per-silo
	// totals), read by its registry entry's Result.
	Detail any
}

// addMetrics appends the metrics of the last checkpoint; every checkpoint
// must report the same metrics, each finite.
func (r *Result) addMetrics(m map[string]float64) error {
	n := len(r.Curve)
	if r.Metrics == nil {
		r.Metrics = make(map[string][]float64, len(m))
	}
	if len(m) != len(r.Metrics) && n > 1 {
		return fmt.Errorf("%d curve metrics reported, %d before", len(m), len(r.Metrics))
	}
	for k, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("curve metric %s = %v: %w", k, v, ErrNonFinite)
		}
		if len(r.Metrics[k]) != n-1 {
			return fmt.Errorf("curve metric %s not reported at every checkpoint", k)
		}
		r.Metrics[k] = append(r.Metrics[k], v)
	}
	return nil
}

// ErrNonFinite is returned (wrapped) by Drive when a round's regret is NaN
// or infinite.
var ErrNonFinite = errors.New("non-finite regret")

// Drive plays rounds 1..T of p, records a checkpoint every `every` rounds
// and at T, checks between rounds that ctx is live and that the regret is
// finite. every must be at least 1 and T at least 1.
func Drive(ctx context.Context, p Problem, T, every int) (*Result, error) {
	if T < 1 {
		return nil, fmt.Errorf("core.Drive: T = %d, need at least 1", T)
	}
	if every < 1 {
		return nil, fmt.Errorf("core.Drive: checkpoint spacing %d, need at least 1", every)
	}
	start := time.Now()
	res := &Result{Curve: make([]Checkpoint, 0, T/every+1)}
	var pseudo, realised float64
	for t := 1; t <= T; t++ {
		if t&1023 == 1 { // every 1024 rounds: ctx.Err takes a lock
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("cancelled at round %d of %d: %w", t, T, err)
			}
		}
		dp, dr := p.Round(t)
		pseudo += dp
		realised += dr
		if t%every == 0 || t == T {
			if math.IsNaN(pseudo+realised) || math.IsInf(pseudo+realised, 0) {
				return nil, fmt.Errorf("round %d: %w (pseudo %v, realised %v)", t, ErrNonFinite, pseudo, realised)
			}
			syncs, scalars := p.Counters()
			res.Curve = append(res.Curve, Checkpoint{Round: t, Pseudo: pseudo, Realised: realised, Syncs: syncs})
			m := map[string]float64{}
			if mp, ok := p.(Metered); ok {
				for k, v := range mp.Metrics(t) {
					m[k] = v
				}
			}
			if _, ok := m[ScalarsSentColumn]; ok {
				return nil, fmt.Errorf("round %d: the problem reports curve metric %s, which Drive records itself", t, ScalarsSentColumn)
			}
			m[ScalarsSentColumn] = float64(scalars)
			if err := res.addMetrics(m); err != nil {
				return nil, fmt.Errorf("round %d: %w", t, err)
			}
		}
	}
	res.Pseudo, res.Realised = pseudo, realised
	res.Syncs, res.Scalars = p.Counters()
	res.WallSeconds = time.Since(start).Seconds()
	return res, nil
}
