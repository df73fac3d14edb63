package runner

import (
	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/outputs"
)

// DefaultMaddsPerSecond is the assumed speed of one core, counted in the
// cost model's M T K d^2 multiply-adds per run. It is a deliberate round
// figure from the paper's synthetic instance on a 2.45 GHz Zen 3 core
// with AVX2 (1e10 in 2.1 s, where fresh contexts cost as much as the UCB
// scores; learning-to-rank runs at d = 57 reach about 2e10); override it
// with the rate measured on your machine (docs/bench/runner.md).
const DefaultMaddsPerSecond = 4e9

// Estimate is what `run plan` prints: how much work a sweep is and what it
// needs.
type Estimate struct {
	Runs    int // planned runs
	Done    int // of which already published as done in the output directory
	Failed  int // of which published as failed (they are retried)
	Pending int // runs a sweep would execute (not done)
	// Madds is the total number of multiply-adds of the pending runs,
	// sum over runs of M T K d^2 (K: actions per round).
	Madds float64
	// CPUSeconds is the single-core CPU time of the pending runs: from
	// the measured Rates where given, else Madds / rate.
	CPUSeconds float64
	// Measured counts the pending runs whose time comes from measured
	// rates (the others from the multiply-add model).
	Measured int
	// WallSeconds is the time the runs take on the workers, scheduled as
	// a sweep does: in plan order, each to the first free worker.
	WallSeconds float64
	// LongestRunSeconds is the CPU time of the longest pending run.
	LongestRunSeconds float64
	// PeakBytes estimates the peak memory: the shared instances plus one
	// run's state per worker (O(M d^2) each), or per worker executing a
	// unit of runs sharing a stream, all of its runs' states (twice: the
	// heap's headroom) and the stream's window.
	PeakBytes int64
	// SharedBytes is the memory of the shared ltr instances.
	SharedBytes int64
}

// genericMaddsPerSiloRound is the cost model's figure for one
// silo-round of a run of another family than the linear one (mab, bco),
// whose work is not M T K d^2: a round figure, 0.1 us per silo-round at
// DefaultMaddsPerSecond (a mab round costs about 0.08 us, a bco round at
// d = 10 a few tenths). `run plan` times a pilot of each cost class
// instead (MeasureRates).
const genericMaddsPerSiloRound = 400

// RunMadds is the cost model of one run: M T K d^2 multiply-adds (other
// families: M T genericMaddsPerSiloRound).
func RunMadds(r *Run) float64 {
	if r.Generic != nil {
		return float64(r.Silos()) * float64(r.Rounds()) * genericMaddsPerSiloRound
	}
	d := float64(r.Instance.Dim)
	return float64(r.Spec.M) * float64(r.Spec.T) * r.Instance.Actions * d * d
}

// RunBytes estimates the memory of one run beyond the shared data: per
// silo a local Gram, bias and inverse (3 d^2 + d), the tree nodes of the
// protocol (kappa levels, per silo for P_alt), the synchronised statistics
// and the curve.
func RunBytes(r *Run) int64 {
	if g := r.Generic; g != nil {
		// Per silo (or arm) a few d-vectors, and the curve.
		points := int64(g.T/max(g.Every, 1) + 1)
		return 8*int64(r.Silos())*8*int64(r.Instance.Dim+1) + 32*points + 1<<20
	}
	d := int64(r.Instance.Dim)
	m := int64(r.Spec.M)
	k := int64(1)
	for n := (r.Spec.T + r.Spec.B - 1) / r.Spec.B; n > 1; n >>= 1 {
		k++
	}
	mat := d*d + d
	points := int64(r.Spec.T/max(r.Spec.Every, 1) + 1)
	return 8*(m*3*mat+(m+2)*k*mat+4*mat+int64(r.Spec.M)*2) + 32*points + 1<<20
}

// Estimate computes the plan's cost as a sweep executes it (runs sharing
// their context streams: EstimateShared with share true).
func (p *Plan) Estimate(scan *outputs.Scan, workers int, rates *Rates, rate float64) Estimate {
	return p.EstimateShared(scan, workers, rates, rate, true)
}

// EstimateShared computes the plan's cost; scan (may be nil) is the
// content of the output directory, workers the number of concurrent runs,
// rates the measured speeds (nil: none), rate the multiply-adds per second
// of one core for runs whose class has no measured speed (0:
// DefaultMaddsPerSecond), and share whether runs share their context
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
		e.Madds += RunMadds(r)
		if _, ok := rates.RunSeconds(r); ok {
			e.Measured++
		}
		maxRun = max(maxRun, RunBytes(r))
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
			if key, _ := federate.SharedContextsKey(u.runs[0].Spec); !prepared[key] {
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
			window = max(window, federate.FeedWindowBytes)
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
// measured for classes that can share their stream (Rates.SimPerSiloRound).
func (rt *Rates) SimSeconds(r *Run) (float64, bool) {
	if rt == nil {
		return 0, false
	}
	v, ok := rt.SimPerSiloRound[CostClass(r)]
	return v * float64(r.Silos()) * float64(r.Rounds()), ok
}

// EstimateRun is one run's estimated CPU seconds, as Estimate counts it:
// from its class's measured rate, else from the multiply-add model at
// rate per second (DefaultMaddsPerSecond when rate <= 0).
func EstimateRun(r *Run, rates *Rates, rate float64) float64 {
	if sec, ok := rates.RunSeconds(r); ok {
		return sec
	}
	if rate <= 0 {
		rate = DefaultMaddsPerSecond
	}
	return RunMadds(r) / rate
}
