package mab

import (
	"math"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/internal/mutation"
)

// Run is one run of batched successive elimination (the paper's
// Algorithm 1): in batch b every active arm is pulled by n_b fresh users in
// turn (arm by arm, in blocks of n_b rounds, as the authors' script does),
// the protocol releases each arm's sum, and every arm whose upper
// confidence bound falls below the largest lower bound is eliminated.
// Users contribute once. Round is O(1) apart from the batch ends.
type Run struct {
	bandit
	proto  protocol
	ledger ledger // what the accountant certifies; proto draws at its noise parameter (the audit reads both)
	crs    float64
	size   func(b, k int) int // users per arm in batch b with k active arms
	maxN   int                // batch sizes are capped at T (a larger batch cannot complete)

	active []int
	b, n   int // current batch and its users per arm
	pos    int // rounds played in the batch

	syncs   int
	scalars int64
	stats   *Stats // the SecAgg protocol's counters (nil for the others)
}

// Round plays round t: one user pulls the current arm.
func (r *Run) Round(t int) (pseudo, realised float64) {
	i := r.pos / r.n
	x, pseudo, realised := r.pull(r.active[i])
	r.proto.add(i, x)
	r.pos++
	if r.pos == r.n*len(r.active) {
		r.endBatch()
	}
	return pseudo, realised
}

// endBatch releases every active arm's sum and eliminates.
func (r *Run) endBatch() {
	k := len(r.active)
	w := float64(r.crs * r.proto.width(r.b, r.n, k))
	mean := make([]float64, k)
	maxLCB := math.Inf(-1)
	for i := range r.active {
		mean[i] = r.proto.sum(i) / float64(r.n)
		maxLCB = math.Max(maxLCB, mean[i]-w)
	}
	kept := r.active[:0]
	for i, a := range r.active {
		if !(mean[i]+w < maxLCB) {
			kept = append(kept, a)
		}
	}
	r.active = kept
	r.syncs++
	r.scalars += int64(k)
	r.b++
	r.begin()
}

// begin starts batch r.b.
func (r *Run) begin() {
	b := r.b
	if mutation.On("P5-02") { // the run's schedule one batch ahead of the ledger's
		b--
	}
	r.n = min(r.size(b, len(r.active)), r.maxN)
	r.pos = 0
	if mutation.On("I42-mab-wire") { // the protocol told one user more than the batch has
		r.proto.start(r.b, r.n+1, len(r.active))
		return
	}
	r.proto.start(r.b, r.n, len(r.active))
}

// Counters reports the completed batches and the sums released.
func (r *Run) Counters() (syncs int, scalars int64) { return r.syncs, r.scalars }

// Stats reports the SecAgg analyser's counters (zero for the protocols
// without SecAgg): the column the wrap-arounds are counted in.
func (r *Run) Stats() Stats {
	if r.stats == nil {
		return Stats{}
	}
	return *r.stats
}

// Active returns the arms still active.
func (r *Run) Active() []int { return append([]int(nil), r.active...) }

func gaussianClipped(sd float64) func(*rand.Rand, float64) float64 {
	return func(r *rand.Rand, mu float64) float64 {
		if mutation.On("N8") { // not clipped at 1
			return max(mu+float64(sd*r.NormFloat64()), 0)
		}
		return min(max(mu+float64(sd*r.NormFloat64()), 0), 1)
	}
}

func bernoulliReward(r *rand.Rand, mu float64) float64 {
	if r.Float64() < mu {
		return 1
	}
	return 0
}
