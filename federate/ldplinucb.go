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
	if su.gamma > 0 {
		// The discrete Gaussian: each report's entries on the grid, the
		// noise's variance parameters those of the Gaussian's scales.
		l.gamma = su.gamma
		bstd := make([]float64, su.d)
		for e := range bstd {
			bstd[e] = su.cal.Sigma
		}
		l.gd, l.bd = make([]*tree.Discrete, s.M), make([]*tree.Discrete, s.M)
		for i, r := range l.r {
			l.gd[i], l.bd[i] = tree.NewDiscrete(r, gstd, su.gamma), tree.NewDiscrete(r, bstd, su.gamma)
		}
		l.nw, l.nu = make([]float64, len(gstd)), make([]float64, su.d)
	}
	if s.glm() {
		g := &glocNoise{localNoise: l, thetaH: make([]float64, su.d), grad: make([][]float64, s.M),
			step: 1 / math.Sqrt(float64(s.M)*float64(s.T))}
		for i := range g.grad {
			g.grad[i] = make([]float64, su.d)
		}
		return parts{learner: g, schedule: everyB{b: s.B}, protocol: exactSum{}}, nil
	}
	return parts{learner: l, schedule: everyB{b: s.B}, protocol: exactSum{}}, nil
}

// glocNoise is LDP-LinUCB's generalized-linear variant on a logistic-link
// instance: LDP-GLOC (Zheng et al. 2020, Algorithm 3, after Jun et al.'s
// GLOC; the third-party reimplementation in liangzp/LDP-Bandit is the
// reference for its details). A public online estimate theta_h, updated
// by gradient steps on the users' noisy gradients, gives each user a
// pseudo-response z = x.theta_h (clipped to [-1, 1]); she reports x x^T,
// x z and her gradient (g(x.theta_h) - y) x, each with Gaussian noise of
// the calibrated sigma (accountant.ModelUserLDPGLM: sensitivity
// sqrt(2 + 4 + 4)). The lazy learner's ridge regression of z on x then
// ranks the actions (the logistic link is increasing, so the best mean is
// the best x.theta). theta_h moves at every synchronisation by -step times
// the sum of all silos' noisy gradients since the last one, step =
// 1/sqrt(M T); every user of a batch sees the theta_h published before it.
type glocNoise struct {
	*localNoise
	thetaH []float64
	grad   [][]float64 // per silo: noisy gradients since the last synchronisation
	step   float64
}

func (l *glocNoise) observe(i int, b *batchStats, x []float64, y float64) float64 {
	v := dot(x, l.thetaH)
	z := max(-1, min(1, v))
	l.localNoise.observe(i, b, x, z)
	r, g := l.r[i], l.grad[i]
	resid := logistic(v) - y
	if l.gamma > 0 {
		l.bd[i].Fill(l.nu, 0, 0)
		for e, xe := range x {
			g[e] += toGrid(resid*xe, l.gamma) + l.nu[e]
		}
		return math.NaN()
	}
	for e, xe := range x {
		g[e] += float64(resid*xe) + float64(l.bstd*r.NormFloat64())
	}
	return math.NaN()
}

// restart moves theta_h by the batch's noisy gradients (post-processing
// of the users' reports), then restarts the lazy learner.
func (l *glocNoise) restart(up []bool, p, theta []float64) {
	for _, g := range l.grad {
		for e, v := range g {
			l.thetaH[e] -= float64(l.step * v)
		}
		clear(g)
	}
	l.localNoise.restart(up, p, theta)
}

// localNoise is the lazy learner fed with each user's noisy report: her
// summand x x^T (packed) and x y, plus independent Gaussian noise of the
// calibrated standard deviation per entry (the Gram's off-diagonal
// entries under the Gram-noise convention), drawn from silo i's stream
// "user-noise" in entry order, Gram first. With the discrete noise
// (gamma > 0) each report entry is rounded to the grid and gets gamma
// times an exact discrete Gaussian draw of the variance parameter of its
// scale (tree.NewDiscrete): the report is then exactly on the grid, and
// whatever the silo does with it is post-processing.
type localNoise struct {
	*lazyLearner
	gstd []float64
	bstd float64
	r    []*rand.Rand
	w, u []float64 // one report

	gamma  float64          // grid of the discrete noise (0: floating-point Gaussian)
	gd, bd []*tree.Discrete // per silo, on its stream: the Gram's and the bias's (and gradient's) noise
	nw, nu []float64        // one report's discrete noise
}

func (l *localNoise) observe(i int, b *batchStats, x []float64, y float64) float64 {
	clear(l.w)
	clear(l.u)
	kern.AddObs(l.w, l.u, x, y)
	r := l.r[i]
	if l.gamma > 0 {
		l.gd[i].Fill(l.nw, 0, 0)
		l.bd[i].Fill(l.nu, 0, 0)
		onGrid(b.w, l.w, l.gamma)
		onGrid(b.u, l.u, l.gamma)
		addTo(b.w, l.nw)
		addTo(b.u, l.nu)
		return math.NaN()
	}
	for e, sd := range l.gstd {
		b.w[e] += l.w[e] + float64(sd*r.NormFloat64())
	}
	for e := range l.u {
		b.u[e] += l.u[e] + float64(l.bstd*r.NormFloat64())
	}
	return math.NaN()
}
