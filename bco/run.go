package bco

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/mutation"
	"github.com/fedbandit/fedbandit/internal/rng"
)

// silo is one silo's iterate and streams.
type silo struct {
	x, u, y []float64
	explore *rand.Rand // exploration directions u_t
	loss    *rand.Rand // stochastic noise levels
	privacy *rand.Rand // the users' report noise
}

// newSilos returns the M silos of a run of dimension d, each on its own
// named streams of the run's key (both problems build them here: one
// silo's privacy stream is independent of every other's).
func newSilos(runKey rng.Key, m, d int) []silo {
	silos := make([]silo, m)
	for i := range silos {
		pi := i
		if mutation.On("P5-18b") { // every silo on silo 0's privacy stream
			pi = 0
		}
		silos[i] = silo{
			x: make([]float64, d), u: make([]float64, d), y: make([]float64, d),
			explore: rng.New(runKey, "silo", i, "explore"),
			loss:    rng.New(runKey, "silo", i, "loss"),
			privacy: rng.New(runKey, "silo", pi, "privacy"),
		}
	}
	return silos
}

// sendReport is the family's one randomiser, which every problem's Round
// calls: silo si's user plays x + rho u (points = 1), or x + rho u and
// then x - rho u (points = 2), suffers loss(j, y) at the j-th point y,
// and sends her report: the loss, or the difference f1 - f2, plus
// N(0, (sigma norm)^2) from her silo's privacy stream, where norm is 1
// for a loss and ||x1 - x2|| = 2 rho for a difference (n^T (x1 - x2) with
// n ~ N(0, sigma^2 I_d) has exactly that law, so one normal stands for
// the d-dimensional draw; sigma 0: no noise). It returns the loss played
// (the mean of the two for two points), the report and its noise's
// standard deviation sigma norm.
func sendReport(points int, sigma, rho float64, si *silo, loss func(j int, y []float64) float64) (played, report, sd float64) {
	for j := range si.y {
		si.y[j] = si.x[j] + float64(rho*si.u[j])
	}
	f1 := loss(0, si.y)
	v, norm := f1, 1.0
	played = f1
	if points == 2 {
		for j := range si.y {
			si.y[j] = si.x[j] - float64(rho*si.u[j])
		}
		f2 := loss(1, si.y)
		played = (f1 + f2) / 2
		v, norm = f1-f2, 2*rho
		if mutation.On("P5-17") { // the difference's scale taken as rho, not ||x1 - x2||
			norm = rho
		}
	}
	if sigma == 0 {
		return played, v, 0
	}
	sd = sigma * norm
	if mutation.On("I42-bco-rand") { // uniform noise of the same standard deviation
		return played, v + float64(sd*math.Sqrt(3)*(float64(2*si.privacy.Float64())-1)), sd
	}
	return played, v + float64(sd*si.privacy.NormFloat64()), sd
}

// problem is one run on a synthetic instance: the loop's source.
type problem struct {
	loop
	s        Spec
	g        *geometry
	bound    float64 // the eps sigma delivers at delta (calibrate), +Inf when none is known
	fmin     float64 // min F (stochastic pseudo-regret)
	phase    float64 // drifting sequence's phase
	hist     [levels]float64
	played   float64 // total loss of the played points, all silos
	prevReal float64 // realised regret after the previous round
	claim    core.Privacy

	// The round's state: the current user's noise level and expected
	// loss at the points played, and the pseudo-regret summed so far.
	k      int
	e      float64
	pseudo float64
}

// New builds a run of a spec and returns it with its privacy claim.
func New(s Spec) (core.Problem, core.Privacy, error) {
	p, err := newProblem(s)
	if err != nil {
		return nil, core.Privacy{}, err
	}
	return p, p.claim, nil
}

// Run simulates a spec on core.Drive and records its claim.
func Run(ctx context.Context, s Spec) (*core.Result, error) {
	p, err := newProblem(s)
	if err != nil {
		return nil, fmt.Errorf("bco.Run: %w", err)
	}
	res, err := core.Drive(ctx, p, s.T, s.Every)
	if err != nil {
		return nil, fmt.Errorf("bco.Run: %w", err)
	}
	res.Privacy = p.claim
	return res, nil
}

func newProblem(s Spec) (*problem, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	alg, _ := Lookup(s.Algorithm)
	params, _ := core.Resolve(alg.Params, s.Params)
	g := s.Instance.geometry()
	class, _ := ClassOf(g.loss)
	C, G, beta := g.bounds()
	p := &problem{s: s, g: g}
	p.alg, p.syncEvery, p.T, p.src = alg, s.B, s.T, p
	claim := core.Privacy{Trust: core.TrustNone}
	sens := sensitivity(alg, C, G)
	if alg.Private() {
		sigma, bound, c, err := calibrate(s.Eps, s.Delta, sens, params["analytic"] == 1)
		if err != nil {
			return nil, err
		}
		p.sigma, p.bound, claim = sigma, bound, c
	}
	p.tu = tuneRun(alg, params, class, g.d, g.r, C, G, beta, g.mu, p.sigma, s.T, s.Delta)
	p.silos = newSilos(rng.NewKey("bco-run", s.Seed), s.M, g.d)
	if s.Instance.Sequence == Stochastic {
		p.fmin = g.expectedMin()
	} else {
		p.phase = 2 * math.Pi * rng.New(rng.NewKey("bco-instance", s.Instance.Seed), "adversary").Float64()
	}
	p.claim = claim
	return p, nil
}

// levelAt returns the noise level of silo i's user in round t.
func (p *problem) levelAt(si *silo, t int) int {
	if p.s.Instance.Sequence == Stochastic {
		return si.loss.IntN(levels)
	}
	v := math.Sin(2*math.Pi*float64(t)/float64(p.s.Instance.Period) + p.phase)
	return int(math.Round(float64(levels-1) / 2 * (1 + v)))
}

// user draws silo i's user's noise level for round t; her loss sums
// the expected loss at the points she plays (stochastic pseudo-regret).
func (p *problem) user(t, _ int, si *silo) func(j int, y []float64) float64 {
	k := p.levelAt(si, t)
	p.k, p.e = k, 0
	return func(_ int, y []float64) float64 {
		if p.s.Instance.Sequence == Stochastic {
			p.e += p.g.expected(y)
		}
		return p.g.value(y, k)
	}
}

// done counts the user's level and loss, and her pseudo-regret.
func (p *problem) done(_ int, loss float64) {
	var pseudoI float64
	if p.s.Instance.Sequence == Stochastic {
		pseudoI = p.e/float64(p.alg.Points) - p.fmin
	}
	p.hist[p.k]++
	p.played += loss
	p.pseudo += pseudoI
}

// regret is the round's pseudo-regret and the growth of the played loss
// over the hindsight minimum of the levels seen.
func (p *problem) regret(int) (pseudo, realised float64) {
	pseudo, p.pseudo = p.pseudo, 0
	reg := p.played - p.g.hindsight(&p.hist)
	realised, p.prevReal = reg-p.prevReal, reg
	if p.s.Instance.Sequence == Drifting {
		pseudo = realised // an oblivious sequence has no expectation to take
	}
	return pseudo, realised
}

// fillUnit draws a uniform direction on the sphere into u.
func fillUnit(u []float64, r *rand.Rand) {
	for {
		var n2 float64
		for j := range u {
			u[j] = r.NormFloat64()
			n2 += float64(u[j] * u[j])
		}
		if n2 > 0 {
			inv := 1 / math.Sqrt(n2)
			for j := range u {
				u[j] *= inv
			}
			return
		}
	}
}

// project moves x onto the ball of radius r (Euclidean projection).
func project(x []float64, r float64) {
	n := math.Sqrt(dot(x, x))
	if n > r {
		f := r / n
		for j := range x {
			x[j] *= f
		}
	}
}
