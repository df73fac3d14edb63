package federate

import (
	"math"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/federate/rng"
)

// instance produces each silo's candidate actions round by round.
type instance interface {
	// next returns silo i's candidate actions of the current round: the
	// learner's view of action a in x[a*d:(a+1)*d] and its mean reward in
	// mu[a]. The slices are read-only and valid until the next call.
	next(i int) (x, mu []float64)
	// noiseStd is the standard deviation of the Gaussian reward noise.
	noiseStd() float64
}

// InstanceKey returns the root key of a synthetic instance's streams
// (theta* and, with SharedContexts, the contexts).
func InstanceKey(seed uint64) rng.Key { return rng.NewKey("fedbandit/synthetic-instance", seed) }

// RunKey returns the root key of all of a run's streams.
func RunKey(seed uint64) rng.Key { return rng.NewKey("fedbandit/run", seed) }

// synthetic is the paper's Gaussian instance (protocol.md section 5, after
// the published code): raw contexts are a uniform unit (d-1)-vector with 1
// appended, theta* is 0.5 times a uniform unit (d-1)-vector with 0.5
// appended, the mean reward is raw x . theta* (in [0, 1]) and the learner
// sees x/||x||.
type synthetic struct {
	d, k  int
	theta []float64 // theta*, length d
	// fixed holds the learner views and means of the published code's
	// fixed first actions (rows of eye(d) with the last column set to 1);
	// empty unless FixedBasis.
	fixedX, fixedMu []float64
	nFixed          int
	ctx             []normalSource // per-silo context streams
	z               []float64      // the round's Gaussian draws
	x, mu           []float64      // the current round's actions
	std             float64
}

// SyntheticTheta returns theta* of the synthetic instance with the given
// dimension and instance seed.
func SyntheticTheta(d int, seed uint64) []float64 {
	r := rng.New(InstanceKey(seed), "theta")
	theta := make([]float64, d)
	var ss float64
	for j := 0; j < d-1; j++ {
		theta[j] = r.NormFloat64()
		ss += theta[j] * theta[j]
	}
	scale := 0.5 / math.Sqrt(ss)
	for j := 0; j < d-1; j++ {
		theta[j] *= scale
	}
	theta[d-1] = 0.5
	return theta
}

func newSynthetic(s Spec, runKey rng.Key) *synthetic {
	y := s.Synthetic
	d := y.D
	in := &synthetic{d: d, k: y.K, theta: SyntheticTheta(d, y.Seed), std: math.Sqrt(y.NoiseVar)}
	in.x, in.mu = make([]float64, y.K*d), make([]float64, y.K)
	if y.FixedBasis {
		in.nFixed = min(d, y.K)
		raw := make([]float64, d)
		for a := 0; a < in.nFixed; a++ {
			clear(raw)
			raw[a] = 1
			raw[d-1] = 1
			nrm := math.Sqrt(dot(raw, raw))
			for j := range raw {
				in.fixedX = append(in.fixedX, raw[j]/nrm)
			}
			in.fixedMu = append(in.fixedMu, dot(raw, in.theta))
		}
	}
	ctxKey := runKey
	if y.SharedContexts {
		ctxKey = InstanceKey(y.Seed)
	}
	in.ctx = make([]normalSource, s.M)
	for i := range in.ctx {
		if y.ContextGen == ContextsChaCha8 {
			in.ctx[i] = chachaNormals{rng.New(ctxKey, "silo", i, "contexts")}
		} else {
			in.ctx[i] = newFastNormals(rng.Derive(ctxKey, "silo", i, "contexts"))
		}
	}
	in.z = make([]float64, (y.K-in.nFixed)*(d-1))
	return in
}

func (in *synthetic) noiseStd() float64 { return in.std }

func (in *synthetic) next(i int) ([]float64, []float64) {
	d := in.d
	x, mu := in.x, in.mu
	copy(x, in.fixedX)
	copy(mu, in.fixedMu)
	in.ctx[i].fill(in.z)
	th := in.theta[:d-1]
	for a := in.nFixed; a < in.k; a++ {
		z := in.z[(a-in.nFixed)*(d-1) : (a-in.nFixed+1)*(d-1)]
		var ss float64
		for _, v := range z {
			ss += v * v
		}
		// raw = (z/||z||, 1): ||raw||^2 = 1 + 1 = 2 up to rounding; the
		// learner's view is raw/||raw|| computed from the rounded values,
		// as the published code does.
		inv := 1 / math.Sqrt(ss)
		var uu, m float64
		for j, v := range z {
			u := v * inv
			z[j] = u
			uu += u * u
			m += u * th[j]
		}
		mu[a] = m + in.theta[d-1]
		inrm := 1 / math.Sqrt(uu+1)
		row := x[a*d : (a+1)*d]
		for j, u := range z {
			row[j] = u * inrm
		}
		row[d-1] = inrm
	}
	return x, mu
}

// ltr is the learning-to-rank instance: each round each silo draws one of
// its queries uniformly with replacement; the actions are its documents.
type ltr struct {
	data *LTRData
	q    []*rand.Rand // per-silo query streams
}

func newLTR(s Spec, runKey rng.Key) *ltr {
	in := &ltr{data: s.LTR, q: make([]*rand.Rand, s.M)}
	for i := range in.q {
		in.q[i] = rng.New(runKey, "silo", i, "queries")
	}
	return in
}

func (in *ltr) noiseStd() float64 { return in.data.NoiseStd }

func (in *ltr) next(i int) ([]float64, []float64) {
	own := in.data.Silos[i]
	q := &in.data.Queries[own[in.q[i].IntN(len(own))]]
	return q.X, q.Mu
}

func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
