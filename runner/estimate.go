package runner

import (
	"slices"

	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
)

// DefaultMaddsPerSecond is the linear family's model speed of one core
// (registry.DefaultMaddsPerSecond), the reference of --rate: every
// family's model speed is scaled by the same factor (EstimateRun).
const DefaultMaddsPerSecond = registry.DefaultMaddsPerSecond

// Estimate is what `run plan` prints: how much work a sweep is and what it
// needs.
type Estimate struct {
	Runs    int // planned runs
	Done    int // of which already published as done in the output directory
	Failed  int // of which published as failed (they are retried)
	Pending int // runs a sweep would execute (not done)
	// Work is the total work of the pending runs in each family's unit
	// (registry.Cost), in order of first appearance.
	Work []Work
	// CPUSeconds is the single-core CPU time of the pending runs: from
	// the measured Rates where given, else from each family's cost
	// model.
	CPUSeconds float64
	// Measured counts the pending runs whose time comes from measured
	// rates (the others from the cost models).
	Measured int
	// WallSeconds is the time the runs take on the workers, scheduled as
	// a sweep does: in plan order, each to the first free worker.
	WallSeconds float64
	// LongestRunSeconds is the CPU time of the longest pending run.
	LongestRunSeconds float64
	// PeakBytes estimates the peak memory (resident) of the runs: the
	// process's base (ProcessBaseBytes), twice the shared
	// instances and one run's state per worker (registry.Cost.Bytes), or
	// per worker executing a unit of runs sharing a stream, twice all of
	// its runs' states and the stream's window, plus the largest load's
	// transient buffers (Instance.LoadBytes). Twice: between collections
	// the Go heap grows to twice what is live (GOGC = 100), and the runs
	// allocate as they go (curves, hindsight solves); the buffers of a
	// load stay resident after it returns. It comes from the cost models
	// alone, before any pilot.
	PeakBytes int64
	// SharedBytes is the memory of the shared instances.
	SharedBytes int64
}

// Work is the total of one unit of work (registry.Cost.Unit).
type Work struct {
	Unit  string
	Total float64
}

// ProcessBaseBytes is the resident memory of a sweep before any instance
// or run: the runtime, the program and its buffers (31-33 MiB max RSS
// measured for sweeps of a few tiny runs, BENCHMARKS.md).
const ProcessBaseBytes = 32 << 20

// RunOverheadSeconds and CurveRowSeconds are what a sweep spends on each
// run beyond its simulation, in CPU seconds: planning it, publishing its
// file (written, synced and renamed) and collecting its record into the
// tables, and per curve row (a checkpoint) writing it and collecting it.
// Measured on the reference machine (BENCHMARKS.md, "Estimates against
// measurements"): 20,000 runs of T = 10 took 14.4 s of CPU with 2
// workers and 22.1 s with 1 (0.7 and 1.1 ms a run), 100 runs of 100,001
// checkpoints 18 to 30 s more than of 2, by the machine's load (1.8 to
// 3 us a row). Attack round 4, R4-27: the estimate said "about 0s" for
// a sweep of 20,000 short runs that took 38 s.
const (
	RunOverheadSeconds = 0.9e-3
	CurveRowSeconds    = 2.5e-6
)

// RunOverhead is run r's CPU time beyond its simulation
// (RunOverheadSeconds, CurveRowSeconds a checkpoint).
func RunOverhead(r *Run) float64 {
	return RunOverheadSeconds + float64(float64(r.Checkpoints())*CurveRowSeconds)
}

// RunBytes estimates the memory of one run beyond the shared data, by
// its family's cost model (registry.Cost.Bytes).
func RunBytes(r *Run) int64 { return r.Cost().Bytes }

// Estimate computes the plan's cost as a sweep executes it (runs sharing
// their context streams: EstimateShared with share true).
func (p *Plan) Estimate(scan *outputs.Scan, workers int, rates *Rates, rate float64) Estimate {
	return p.EstimateShared(scan, workers, rates, rate, true)
}

// EstimateShared computes the plan's cost; scan (may be nil) is the
// content of the output directory, workers the number of concurrent runs,
// rates the measured speeds (nil: none), rate the speed of this machine
// for runs whose class has no measured speed (EstimateRun; 0: the cost
// models' own), and share whether runs share their context
// streams (Sweep.NoShare false). The pending runs are cut into units as
// the sweep cuts them (shareUnits): a unit of several runs costs its
// stream once (StreamSeconds: drawing, and preparing the instance) plus
// each run's time without its stream; units go in order, each to the
// first free worker. Every run adds its RunOverhead; the memoised work
// of a registry.Cost.MemoKey is charged to its first runs, one per
// worker (runs of one key executing at once each compute it; a later one
// reads it).
func (p *Plan) EstimateShared(scan *outputs.Scan, workers int, rates *Rates, rate float64, share bool) Estimate {
	workers = max(workers, 1)
	status := map[string]string{}
	if scan != nil {
		for _, f := range scan.Runs {
			status[f.Record.RunID] = f.Record.Status
		}
	}
	e := Estimate{Runs: len(p.Runs)}
	var maxRun int64
	var pending []*Run
	for i := range p.Runs {
		r := &p.Runs[i]
		switch status[r.ID] {
		case outputs.StatusDone:
			e.Done++
			continue
		case outputs.StatusFailed:
			e.Failed++
		}
		e.Pending++
		pending = append(pending, r)
		c := r.Cost()
		if i := slices.IndexFunc(e.Work, func(w Work) bool { return w.Unit == c.Unit }); i >= 0 {
			e.Work[i].Total += c.Work
		} else {
			e.Work = append(e.Work, Work{c.Unit, c.Work})
		}
		if _, ok := rates.RunSeconds(r); ok {
			e.Measured++
		}
		maxRun = max(maxRun, c.Bytes)
	}
	free := make([]float64, workers) // when each worker is next free
	prepared := map[string]bool{}    // streams whose instance is prepared
	memo := map[string]int{}         // runs charged a MemoKey's work
	// extra is run r's overhead and, for the first runs of its MemoKey,
	// the memoised work.
	extra := func(r *Run) float64 {
		sec := RunOverhead(r)
		if c := r.Cost(); c.MemoKey != "" && memo[c.MemoKey] < workers {
			memo[c.MemoKey]++
			sec += scaled(c.MemoSeconds, rate)
		}
		return sec
	}
	var window int64
	for _, u := range shareUnits(pending, workers, share) {
		var sec float64
		if len(u.runs) == 1 {
			sec = simSeconds(u.runs[0], rates, rate) + extra(u.runs[0])
			e.CPUSeconds += sec
			e.LongestRunSeconds = max(e.LongestRunSeconds, sec)
		} else {
			stream, prep := StreamSeconds(u.runs[0], rates)
			sec = stream + prep // every unit of the stream waits for the preparation
			e.CPUSeconds += stream
			if key := streamKey(u.runs[0]); !prepared[key] {
				prepared[key] = true
				e.CPUSeconds += prep
			}
			for _, r := range u.runs {
				own := simSeconds(r, rates, rate)
				s := max(own-stream, 0)
				if v, ok := rates.SimSeconds(r); ok {
					s = v
				}
				x := extra(r)
				sec += s + x
				e.CPUSeconds += s + x
				e.LongestRunSeconds = max(e.LongestRunSeconds, own+x)
			}
			window = max(window, streamOf(u.runs[0]).WindowBytes)
		}
		w := 0
		for j := range free {
			if free[j] < free[w] {
				w = j
			}
		}
		free[w] += sec
	}
	var load int64
	for _, in := range p.Instances {
		e.SharedBytes += in.Bytes
		load = max(load, in.LoadBytes)
	}
	for _, f := range free {
		e.WallSeconds = max(e.WallSeconds, f)
	}
	// One run's state per worker, or a whole unit's runs and its window;
	// the Go heap grows to twice what is live between collections (GOGC
	// = 100): fig3a (units) measured 161 MB max RSS against 158 MB so
	// counted; a bco-ltr sweep on 304,220 documents 460 MiB against 374
	// MiB (BENCHMARKS.md). A load's buffers (load) stay resident.
	perWorker := 2 * maxRun
	for _, u := range shareUnits(pending, workers, share) {
		if len(u.runs) > 1 {
			perWorker = max(perWorker, 2*int64(len(u.runs))*maxRun+window)
		}
	}
	e.PeakBytes = ProcessBaseBytes + 2*e.SharedBytes + load + int64(min(workers, max(e.Pending, 1)))*perWorker
	return e
}

// scaled is model seconds at this machine's speed: rate > 0 is its speed
// in the linear model's multiply-adds per second (--rate), the model's
// DefaultMaddsPerSecond otherwise.
func scaled(sec, rate float64) float64 {
	if rate > 0 {
		return sec * DefaultMaddsPerSecond / rate
	}
	return sec
}

// SimSeconds is the CPU time of run r without drawing its context stream,
// measured for classes that can share their stream (Rates.SimPerUnit).
func (rt *Rates) SimSeconds(r *Run) (float64, bool) {
	if rt == nil {
		return 0, false
	}
	c := r.Cost()
	v, ok := rt.SimPerUnit[c.Class]
	return v * c.Work, ok
}

// EstimateRun is one run's estimated CPU seconds on its own (a run that
// shares neither a stream nor memoised work): its simulation (simSeconds),
// its RunOverhead and its memoised work (registry.Cost.MemoSeconds).
func EstimateRun(r *Run, rates *Rates, rate float64) float64 {
	return simSeconds(r, rates, rate) + RunOverhead(r) + scaled(r.Cost().MemoSeconds, rate)
}

// simSeconds is run r's simulation in CPU seconds: from its class's
// measured rate, else from its family's cost model (registry.Cost: work
// over the model's speed), at this machine's speed (scaled: rate > 0,
// --rate, scales every family's model speed by rate /
// DefaultMaddsPerSecond).
func simSeconds(r *Run, rates *Rates, rate float64) float64 {
	if sec, ok := rates.RunSeconds(r); ok {
		return sec
	}
	c := r.Cost()
	return scaled(c.Work/c.Rate, rate)
}
