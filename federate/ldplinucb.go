package federate

import (
	"math"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/federate/tree"
	"github.com/fedbandit/fedbandit/internal/rng"
)

// AlgLDPLinUCB is LDP-LinUCB (Zheng et al., NeurIPS 2020; protocol.md
// section 8), the local-DP baseline: every user adds Gaussian noise to her
// own summand x x^T and x y before the silo sees it, once
// (accountant.ModelUserLDP). Silos act on the sums published every B
// rounds, which are exact sums of noisy reports (nothing more to hide).
// Its registry entry is in algorithms.go.
const AlgLDPLinUCB = "ldp-linucb"

// ldpLinUCBParts builds LDP-LinUCB: the users' local noise in front of
// the lazy learner, a synchronisation every B rounds, the exact sum.
func ldpLinUCBParts(su runSetup) (parts, error) {
	s := su.spec
	gstd, err := tree.GramStd(su.d, su.cal.Sigma, s.GramNoise)
	if err != nil {
		return parts{}, err
	}
	l := &localNoise{lazyLearner: newLazyLearner(su.d), gstd: gstd, bstd: su.cal.Sigma,
		r: make([]*rand.Rand, s.M), w: make([]float64, tree.PackedLen(su.d)), u: make([]float64, su.d)}
	for i := range l.r {
		l.r[i] = rng.New(su.runKey, "silo", i, "user-noise")
	}
	return parts{learner: l, schedule: everyB{b: s.B}, protocol: exactSum{}}, nil
}

// localNoise is the lazy learner fed with each user's noisy report: her
// summand x x^T (packed) and x y, plus independent Gaussian noise of the
// calibrated standard deviation per entry (the Gram's off-diagonal
// entries under the Gram-noise convention), drawn from silo i's stream
// "user-noise" in entry order, Gram first.
type localNoise struct {
	*lazyLearner
	gstd []float64
	bstd float64
	r    []*rand.Rand
	w, u []float64 // one report
}

func (l *localNoise) observe(i int, b *batchStats, x []float64, y float64) float64 {
	clear(l.w)
	clear(l.u)
	addObs(l.w, l.u, x, y)
	r := l.r[i]
	for e, sd := range l.gstd {
		b.w[e] += l.w[e] + sd*r.NormFloat64()
	}
	for e := range l.u {
		b.u[e] += l.u[e] + l.bstd*r.NormFloat64()
	}
	return math.NaN()
}
