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
	// PeakBytes estimates the peak memory: the shared instances plus one
	// run's state per worker (registry.Cost.Bytes), or per worker
	// executing a unit of runs sharing a stream, all of its runs' states
	// (twice: the heap's headroom) and the stream's window. It comes from
	// the cost models alone, before any pilot.
	PeakBytes int64
	// SharedBytes is the memory of the shared instances.
	SharedBytes int64
}

// Work is the total of one unit of work (registry.Cost.Unit).
type Work struct {
	Unit  string
	Total float64
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
// first free worker.
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
	var window int64
	for _, u := range shareUnits(pending, workers, share) {
		var sec float64
		if len(u.runs) == 1 {
			sec = EstimateRun(u.runs[0], rates, rate)
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
				own := EstimateRun(r, rates, rate)
				s := max(own-stream, 0)
				if v, ok := rates.SimSeconds(r); ok {
					s = v
				}
				sec += s
				e.CPUSeconds += s
				e.LongestRunSeconds = max(e.LongestRunSeconds, own)
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
	for _, in := range p.Instances {
		e.SharedBytes += in.Bytes
	}
	for _, f := range free {
		e.WallSeconds = max(e.WallSeconds, f)
	}
	// One run's state per worker, or a whole unit's runs and its window;
	// a unit's states live together for its whole execution, so the Go
	// heap grows to twice them between collections (GOGC = 100): fig3a
	// measured 161 MB max RSS against 158 MB so counted.
	perWorker := maxRun
	for _, u := range shareUnits(pending, workers, share) {
		if len(u.runs) > 1 {
			perWorker = max(perWorker, 2*int64(len(u.runs))*maxRun+window)
		}
	}
	e.PeakBytes = e.SharedBytes + int64(min(workers, max(e.Pending, 1)))*perWorker
	return e
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

// EstimateRun is one run's estimated CPU seconds, as Estimate counts it:
// from its class's measured rate, else from its family's cost model
// (registry.Cost: work over the model's speed). rate > 0 is the speed of
// this machine in the linear model's multiply-adds per second (--rate):
// every family's model speed is then scaled by rate /
// DefaultMaddsPerSecond.
func EstimateRun(r *Run, rates *Rates, rate float64) float64 {
	if sec, ok := rates.RunSeconds(r); ok {
		return sec
	}
	c := r.Cost()
	speed := c.Rate
	if rate > 0 {
		speed *= rate / DefaultMaddsPerSecond
	}
	return c.Work / speed
}
