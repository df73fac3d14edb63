package federate

import (
	"math"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/internal/fmath"
	"github.com/fedbandit/fedbandit/internal/numpyrand"
	"github.com/fedbandit/fedbandit/internal/rng"
	"github.com/fedbandit/fedbandit/internal/vec"
)

// instance produces each silo's candidate actions round by round.
type instance interface {
	// next returns silo i's candidate actions of the current round (the
	// learner's view of each action, in panels, and its mean reward). The
	// set is read-only and valid until the next call.
	next(i int) *actionSet
	// noiseStd is the standard deviation of the Gaussian reward noise.
	noiseStd() float64
	// bernoulli reports whether rewards are Bernoulli(mean) instead of
	// mean plus Gaussian noise.
	bernoulli() bool
}

// InstanceKey returns the root key of a synthetic instance's streams
// (theta* and, with SharedContexts, the contexts).
func InstanceKey(seed uint64) rng.Key { return rng.NewKey("fedbandit/synthetic-instance", seed) }

// RunKey returns the root key of all of a run's streams.
func RunKey(seed uint64) rng.Key { return rng.NewKey("fedbandit/run", seed) }

// synthetic is the paper's Gaussian instance (protocol.md section 5, after
// the published code): raw contexts are a uniform unit (d-1)-vector u with
// 1 appended, theta* is 0.5 times a uniform unit (d-1)-vector with 0.5
// appended, the mean reward is raw x . theta* (in [0, 1]) and the learner
// sees x/||x|| = (u, 1)/sqrt2.
type synthetic struct {
	d, k  int
	theta []float64 // theta*, length d
	// The published code's fixed first actions (rows of eye(d) with the
	// last column set to 1), if FixedBasis: a constant panel (nFixed
	// actions) whose means sit in set.mu[:nFixed].
	nFixed int
	ctx    []contextSource // per-silo context streams
	set    actionSet       // the current round's actions
	random panel           // the random actions, refilled every round
	std    float64
	// logistic: the means are 1/(1+exp(-x.theta*)) (Link logistic).
	logistic bool
	// feed, if set, supplies the random actions instead of ctx (a
	// ContextFeed shared by a group of runs; feed.go).
	feed *feedReader
}

// SyntheticTheta returns theta* of the synthetic instance with the given
// dimension and instance seed.
func SyntheticTheta(d int, seed uint64) []float64 {
	r := rng.New(InstanceKey(seed), "theta")
	theta := make([]float64, d)
	var ss float64
	for j := 0; j < d-1; j++ {
		theta[j] = r.NormFloat64()
		ss += float64(theta[j] * theta[j])
	}
	scale := 0.5 / math.Sqrt(ss)
	for j := 0; j < d-1; j++ {
		theta[j] *= scale
	}
	theta[d-1] = 0.5
	return theta
}

// syntheticTheta is theta* of a synthetic spec: Synthetic.Theta if given,
// the published code's under ContextsNumPy, else SyntheticTheta.
func syntheticTheta(s Spec) []float64 {
	y := s.Synthetic
	switch {
	case len(y.Theta) > 0:
		return append([]float64(nil), y.Theta...)
	case y.ContextGen == ContextsNumPy:
		return publishedTheta(uint32(y.Seed), s.T, s.M, y.K, y.D)
	}
	return SyntheticTheta(y.D, y.Seed)
}

func newSynthetic(s Spec, runKey rng.Key) *synthetic {
	y := s.Synthetic
	d := y.D
	in := &synthetic{d: d, k: y.K, theta: syntheticTheta(s), std: math.Sqrt(y.NoiseVar), logistic: y.Link == LinkLogistic}
	if y.FixedBasis {
		in.nFixed = min(d, y.K)
	}
	nRand := y.K - in.nFixed
	// Means: the fixed actions', then whole blocks of random ones.
	in.set.mu = make([]float64, in.nFixed+vec.PanelLen(nRand, 1))
	in.set.n = y.K
	if in.nFixed > 0 {
		raw := make([]float64, d)
		rows := make([]float64, 0, in.nFixed*d)
		for a := 0; a < in.nFixed; a++ {
			clear(raw)
			raw[a] = 1
			raw[d-1] = 1
			nrm := math.Sqrt(dot(raw, raw))
			for j := range raw {
				rows = append(rows, raw[j]/nrm)
			}
			in.set.mu[a] = in.link(dot(raw, in.theta))
		}
		fixed := panel{x: make([]float64, vec.PanelLen(in.nFixed, d)), n: in.nFixed}
		vec.ToPanel(fixed.x, rows, in.nFixed, d)
		in.set.panels = append(in.set.panels, fixed)
	}
	if nRand > 0 {
		in.random = panel{x: make([]float64, vec.PanelLen(nRand, d)), n: nRand}
		in.set.panels = append(in.set.panels, in.random)
	}
	ctxKey := runKey
	if y.SharedContexts {
		ctxKey = InstanceKey(y.Seed)
	}
	in.ctx = make([]contextSource, s.M)
	scratch := &ctxScratch{} // shared: silos fill one at a time
	var numpy *numpyContexts // one stream for all silos, in play order
	if y.ContextGen == ContextsNumPy {
		numpy = &numpyContexts{r: numpyrand.New(uint32(y.Seed)), k: y.K, skip: in.nFixed, z: make([]float64, d-1)}
	}
	for i := range in.ctx {
		if numpy != nil {
			in.ctx[i] = numpy
		} else if y.ContextGen == ContextsChaCha8 {
			in.ctx[i] = &chachaContexts{r: rng.New(ctxKey, "silo", i, "contexts"), scratch: scratch}
		} else {
			in.ctx[i] = newZigContexts(rng.Derive(ctxKey, "silo", i, "contexts"), scratch)
		}
	}
	return in
}

func (in *synthetic) noiseStd() float64 { return in.std }

func (in *synthetic) bernoulli() bool { return in.logistic }

// link maps x.theta* to the mean reward.
func (in *synthetic) link(v float64) float64 {
	if in.logistic {
		return logistic(v)
	}
	return v
}

// logistic is 1/(1+exp(-v)).
func logistic(v float64) float64 { return 1 / (1 + fmath.Exp(-v)) }

func (in *synthetic) next(i int) *actionSet {
	if in.random.n > 0 {
		mu := in.set.mu[in.nFixed:]
		if in.feed != nil {
			x, fmu := in.feed.next(i)
			in.set.panels[len(in.set.panels)-1].x = x
			copy(mu, fmu)
		} else {
			in.ctx[i].fill(in.random.x, mu, in.random.blocks(), in.theta)
		}
		if in.logistic {
			for a, v := range mu {
				mu[a] = logistic(v)
			}
		}
	}
	return &in.set
}

// ltr is the learning-to-rank instance: each round each silo draws one of
// its queries uniformly with replacement; the actions are its documents.
type ltr struct {
	data *LTRData
	q    []*rand.Rand // per-silo query streams
	set  actionSet
}

func newLTR(s Spec, runKey rng.Key) *ltr {
	in := &ltr{data: s.LTR, q: make([]*rand.Rand, s.M)}
	in.set.panels = make([]panel, 1)
	for i := range in.q {
		in.q[i] = rng.New(runKey, "silo", i, "queries")
	}
	return in
}

func (in *ltr) noiseStd() float64 { return in.data.NoiseStd }

func (in *ltr) bernoulli() bool { return in.data.Bernoulli }

func (in *ltr) next(i int) *actionSet {
	own := in.data.Silos[i]
	q := own[in.q[i].IntN(len(own))]
	in.set.panels[0] = in.data.panel(q)
	in.set.mu = in.data.Queries[q].Mu
	in.set.n = len(in.set.mu)
	return &in.set
}

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += float64(v * b[i])
	}
	return s
}
