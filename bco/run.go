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
	return played, v + float64(sd*si.privacy.NormFloat64()), sd
}

// problem is one run: it implements core.Problem.
type problem struct {
	s        Spec
	alg      *Algorithm
	g        *geometry
	tu       tuning
	sigma    float64 // report noise per unit sensitivity (0: non-private)
	bound    float64 // the eps sigma delivers at delta (calibrate), +Inf when none is known
	silos    []silo
	fmin     float64 // min F (stochastic pseudo-regret)
	phase    float64 // drifting sequence's phase
	hist     [levels]float64
	played   float64 // total loss of the played points, all silos
	prevReal float64 // realised regret after the previous round
	syncs    int
	scalars  int64
	claim    core.Privacy
	hooks    hooks
}

// hooks are the audit's and the tests' instruments on a run's Round;
// nil in a run.
type hooks struct {
	// loss replaces the user's loss at the j-th point she plays (the
	// audit's worst-case pair).
	loss func(j int, y []float64) float64
	// sent observes every report silo i sends and its noise's standard
	// deviation.
	sent func(i int, report, sd float64)
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
	p := &problem{s: s, alg: alg, g: g}
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

// Round plays round t for every silo: the user suffers her loss at the
// point(s) played and sends her (noisy) report; the silo steps.
func (p *problem) Round(t int) (pseudo, realised float64) {
	g, tu := p.g, &p.tu
	eta := tu.step(p.alg, t, p.s.T)
	for i := range p.silos {
		si := &p.silos[i]
		k := p.levelAt(si, t)
		fillUnit(si.u, si.explore)
		// The expected loss at the point(s) played (stochastic
		// pseudo-regret), summed as the randomiser plays them.
		var e, pseudoI float64
		loss := func(_ int, y []float64) float64 {
			if p.s.Instance.Sequence == Stochastic {
				e += g.expected(y)
			}
			return g.value(y, k)
		}
		if p.hooks.loss != nil {
			loss = p.hooks.loss
		}
		lossPlayed, report, sd := sendReport(p.alg.Points, p.sigma, tu.delta, si, loss)
		if p.hooks.sent != nil {
			p.hooks.sent(i, report, sd)
		}
		if p.s.Instance.Sequence == Stochastic {
			pseudoI = e/float64(p.alg.Points) - p.fmin
		}
		// Gradient step on the estimate scale * report * u, then projection
		// onto the shrunk ball.
		c := eta * tu.scale * report
		for j := range si.x {
			si.x[j] -= float64(c * si.u[j])
		}
		project(si.x, tu.shrink)
		p.hist[k]++
		p.played += lossPlayed
		pseudo += pseudoI
		p.scalars++
	}
	if len(p.silos) > 1 && t%p.s.B == 0 {
		p.average()
	}
	reg := p.played - g.hindsight(&p.hist)
	realised, p.prevReal = reg-p.prevReal, reg
	if p.s.Instance.Sequence == Drifting {
		pseudo = realised // an oblivious sequence has no expectation to take
	}
	return pseudo, realised
}

// average replaces every silo's iterate by the mean (the server's
// synchronisation); each silo sends its d coordinates.
func (p *problem) average() {
	d := p.g.d
	mean := p.silos[0].y // scratch: y is rewritten before its next use
	clear(mean)
	for i := range p.silos {
		for j, v := range p.silos[i].x {
			mean[j] += v
		}
	}
	inv := 1 / float64(len(p.silos))
	for j := range mean {
		mean[j] *= inv
	}
	for i := range p.silos {
		copy(p.silos[i].x, mean[:d])
	}
	p.syncs++
	p.scalars += int64(len(p.silos) * d)
}

// Counters reports the synchronisations (iterate averagings) and the
// scalars sent (one report per user, d per silo and averaging).
func (p *problem) Counters() (int, int64) { return p.syncs, p.scalars }

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
