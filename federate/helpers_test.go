package federate

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/rng"
)

// smallSpec is a small synthetic instance used throughout the tests.
func smallSpec(alg string) Spec {
	return Spec{
		Algorithm: alg,
		Synthetic: SyntheticSpec{D: 4, K: 12, NoiseVar: 0.25, FixedBasis: true, Seed: 3},
		Eps:       1, Delta: 0.1,
		M: 3, T: 64, B: 4, Seed: 11,
	}
}

// newTestSim validates s (with defaults), calibrates it and builds a sim
// with the given hooks.
func newTestSim(t testing.TB, s Spec, h hooks) *sim {
	t.Helper()
	s = s.WithDefaults()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	cal, err := calibration(s)
	if err != nil {
		t.Fatal(err)
	}
	sm, err := newSim(s, cal, h)
	if err != nil {
		t.Fatal(err)
	}
	return sm
}

// eager returns the eager learner of a test sim.
func eager(t testing.TB, sm *sim) *eagerLearner {
	t.Helper()
	el, ok := sm.learner.(*eagerLearner)
	if !ok {
		t.Fatalf("the sim's learner is %T, not the eager learner", sm.learner)
	}
	return el
}

// trees returns the silos' p-sum trees of a test sim's private protocol.
func trees(t testing.TB, sm *sim) siloTrees {
	t.Helper()
	if p, ok := sm.protocol.(treeProtocol); ok {
		return p.trees()
	}
	t.Fatalf("the sim's protocol %T has no trees", sm.protocol)
	return siloTrees{}
}

// funcSchedule is a schedule given by its due function (mutation
// controls).
type funcSchedule func(t int) bool

func (funcSchedule) observed(int, float64)       {}
func (f funcSchedule) due(t int, up []bool) bool { return all(up, f(t)) }

// runSim plays all rounds of a test sim.
func runSim(sm *sim) *Result {
	cr, err := core.Drive(context.Background(), sm, sm.s.T, sm.s.Every)
	if err != nil {
		panic(err)
	}
	return sm.result(*cr)
}

// makeLTR builds an LTR instance with m silos of nq queries each, ndocs
// documents per query, dimension d; feat and mean give each document's
// (raw) features and mean reward.
func makeLTR(m, nq, ndocs, d int, seed uint64, feat func(r *rand.Rand, x []float64), mean func(r *rand.Rand, x []float64) float64) *LTRData {
	r := rng.New(rng.NewKey("test-ltr", seed))
	data := &LTRData{Name: "test", Dim: d, R: 1, Crs: 0.1}
	for i := 0; i < m; i++ {
		var own []int
		for q := 0; q < nq; q++ {
			var qq LTRQuery
			x := make([]float64, d)
			for a := 0; a < ndocs; a++ {
				feat(r, x)
				qq.X = append(qq.X, x...)
				qq.Mu = append(qq.Mu, mean(r, x))
			}
			own = append(own, len(data.Queries))
			data.Queries = append(data.Queries, qq)
		}
		data.Silos = append(data.Silos, own)
	}
	return data
}

// unitFeatures draws a uniform unit vector.
func unitFeatures(r *rand.Rand, x []float64) {
	var ss float64
	for j := range x {
		x[j] = r.NormFloat64()
		ss += x[j] * x[j]
	}
	for j := range x {
		x[j] /= math.Sqrt(ss)
	}
}

// resultBits renders a Result (without WallSeconds) as exact bits for
// byte-identity comparisons.
func resultBits(r *Result) []uint64 {
	var b []uint64
	f := func(v float64) { b = append(b, math.Float64bits(v)) }
	for _, c := range r.Curve {
		b = append(b, uint64(c.Round), uint64(c.Syncs))
		f(c.Pseudo)
		f(c.Realised)
	}
	for i := range r.SiloPseudo {
		f(r.SiloPseudo[i])
		f(r.SiloRealised[i])
	}
	b = append(b, uint64(r.Syncs), uint64(r.Scalars), uint64(r.NonPD))
	f(r.BetaT)
	f(r.Calibration.Sigma)
	f(r.Calibration.Lambda)
	return b
}

// rowsOf returns the actions of s as a row-major n x d matrix.
func rowsOf(s *actionSet, d int) []float64 {
	x := make([]float64, s.n*d)
	for a := 0; a < s.n; a++ {
		s.row(x[a*d:(a+1)*d], a)
	}
	return x
}

// kernelRunSpecs are the runs on which the kernel tests compare an
// assembly kernel with its Go version end to end: small synthetic
// FedLinUCB and LDP, the paper's d = 10, K = 100 shape, and an LTR
// instance with 37 documents per query.
func kernelRunSpecs() map[string]Spec {
	synth := smallSpec(AlgLDP)
	synth.Synthetic.D, synth.Synthetic.K, synth.T = 10, 100, 40
	ltr := Spec{
		Instance: InstanceLTR, Algorithm: AlgFedLinUCB, Eps: 1, Delta: 0.1, M: 2, T: 60, B: 5, Seed: 4,
		LTR: makeLTR(2, 6, 37, 13, 2, unitFeatures, func(r *rand.Rand, x []float64) float64 { return 0.5 + 0.3*x[1] }),
	}
	return map[string]Spec{
		"small-fedlinucb": smallSpec(AlgFedLinUCB), "small-ldp": smallSpec(AlgLDP),
		"synthetic-d10-K100-ldp": synth, "ltr-d13-37docs": ltr,
	}
}

// runBitsAndArms runs s and returns its results' bits (resultBits) and
// every chosen arm in order.
func runBitsAndArms(t testing.TB, s Spec) ([]uint64, []int) {
	var arms []int
	sm := newTestSim(t, s, hooks{played: func(_, _, arm int) { arms = append(arms, arm) }})
	return resultBits(runSim(sm)), arms
}

// checkPanics reports an error naming what if f returns without panicking.
func checkPanics(t testing.TB, what string, f func()) {
	t.Helper()
	if !panics(f) {
		t.Errorf("%s: no panic", what)
	}
}

// panics reports whether f panics.
func panics(f func()) (panicked bool) {
	defer func() { panicked = recover() != nil }()
	f()
	return false
}
