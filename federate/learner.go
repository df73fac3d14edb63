package federate

import (
	"math"

	"github.com/fedbandit/fedbandit/internal/mutation"
	"github.com/fedbandit/fedbandit/internal/vec"
)

// A learner chooses each silo's actions and folds its users' observations
// into the silo's batch statistics. The simulator asks it for an action,
// hands it the user's clipped observation, and after every
// synchronisation restarts it from the published statistics.
type learner interface {
	// choose returns the action silo i plays from set at confidence
	// width beta; scores is scratch of at least set.n + 4*len(set.panels)
	// values.
	choose(i int, set *actionSet, beta float64, scores []float64) int
	// observe adds one user's observation (x projected to ||x|| <= 1, y
	// clamped) to silo i's batch statistics b and updates whatever the
	// learner keeps. It returns the leverage x^T V^-1 x under the V silo i
	// acted on (NaN if the learner keeps no per-silo V).
	observe(i int, b *batchStats, x []float64, y float64) float64
	// restart is called after every synchronisation (and once before the
	// first round) with the published V^-1 in width form and theta =
	// V^-1 U_syn, for the silos i with up[i] (the ones that took part);
	// the learner must copy what it keeps. Only the eager learner keeps
	// per-silo state: the others act on the published state alone and
	// need every silo in every synchronisation (validateSubset).
	restart(up []bool, p, theta []float64)
}

// batchStats are a silo's local statistics since its last
// synchronisation: packed Gram w = sum x x^T and bias u = sum x y.
type batchStats struct {
	w, u []float64
}

// eagerLearner is Algorithm 1's learner: each silo acts on V = Lambda I +
// W_syn + W_i, updated after every local observation by the
// recursive least-squares step (the kernel table's Learn).
type eagerLearner struct {
	d        int
	p, theta [][]float64 // per silo: V^-1 in width form, theta = V^-1 (U_syn + U_i)
	g        []float64   // scratch of Learn
}

func newEagerLearner(m, d int) *eagerLearner {
	l := &eagerLearner{d: d, p: make([][]float64, m), theta: make([][]float64, m), g: make([]float64, vec.ScratchLen(d))}
	for i := range l.p {
		l.p[i], l.theta[i] = make([]float64, d*(d+1)/2), make([]float64, d)
	}
	return l
}

func (l *eagerLearner) choose(i int, set *actionSet, beta float64, scores []float64) int {
	return argmaxUCB(set, l.d, l.theta[i], l.p[i], beta, scores)
}

func (l *eagerLearner) observe(i int, b *batchStats, x []float64, y float64) float64 {
	return kern.Learn(b.w, b.u, l.p[i], l.theta[i], x, y, l.g)
}

func (l *eagerLearner) restart(up []bool, p, theta []float64) {
	for i := range l.p {
		if !up[i] {
			continue // it keeps V = Lambda I + W_syn (as it last downloaded it) + W_i
		}
		copy(l.p[i], p)
		copy(l.theta[i], theta)
	}
}

// lazyLearner is Algorithm 8's learner: every silo acts on the
// synchronised statistics only, so that a user's data reaches other users'
// actions only through the privatised release; local observations just
// accumulate.
type lazyLearner struct {
	d        int
	p, theta []float64 // the published state
}

func newLazyLearner(d int) *lazyLearner {
	return &lazyLearner{d: d, p: make([]float64, d*(d+1)/2), theta: make([]float64, d)}
}

func (l *lazyLearner) choose(_ int, set *actionSet, beta float64, scores []float64) int {
	return argmaxUCB(set, l.d, l.theta, l.p, beta, scores)
}

func (l *lazyLearner) observe(_ int, b *batchStats, x []float64, y float64) float64 {
	kern.AddObs(b.w, b.u, x, y)
	return math.NaN()
}

func (l *lazyLearner) restart(_ []bool, p, theta []float64) {
	copy(l.p, p)
	copy(l.theta, theta)
}

// gridLearner puts every user's summand on the grid of the discrete noise
// before it enters the batch statistics (docs/privacy.md, "The discrete
// Gaussian"): the inner learner adds her x x^T and x y to zeroed scratch
// statistics (and updates what it keeps), and each entry, rounded to the
// nearest multiple of gamma (ties to even), is added to the batch. Every
// batch, node and published sum is then an exact multiple of gamma, and
// each user's contribution is a lattice vector within gamma/2 per entry of
// her exact summand, the sensitivity bound the accountant charges
// (accountant.DiscreteSensitivities).
type gridLearner struct {
	learner
	gamma float64
	one   batchStats
}

func newGridLearner(l learner, gamma float64, d int) *gridLearner {
	return &gridLearner{learner: l, gamma: gamma, one: batchStats{w: make([]float64, d*(d+1)/2), u: make([]float64, d)}}
}

func (g *gridLearner) observe(i int, b *batchStats, x []float64, y float64) float64 {
	clear(g.one.w)
	clear(g.one.u)
	q := g.learner.observe(i, &g.one, x, y)
	if mutation.On("M17") { // the summand not rounded
		addTo(b.w, g.one.w)
		addTo(b.u, g.one.u)
		return q
	}
	onGrid(b.w, g.one.w, g.gamma)
	onGrid(b.u, g.one.u, g.gamma)
	return q
}

// onGrid adds src, each entry rounded to the grid (toGrid), to dst.
func onGrid(dst, src []float64, gamma float64) {
	for e, v := range src {
		dst[e] += toGrid(v, gamma)
	}
}

// toGrid rounds v to the nearest multiple of gamma, ties to even (gamma a
// power of two: the scaling is exact).
func toGrid(v, gamma float64) float64 {
	if mutation.On("N16") { // rounded down: error up to gamma, charged gamma/2
		return float64(math.Floor(v/gamma) * gamma)
	}
	return float64(math.RoundToEven(v/gamma) * gamma)
}
