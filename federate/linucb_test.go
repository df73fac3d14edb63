package federate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedbandit/fedbandit/internal/rng"
	"gonum.org/v1/gonum/mat"
)

// plainLinUCB is a textbook LinUCB (Abbasi-Yadkori et al. 2011) written
// independently of the simulator: dense V, explicit inverse every round.
type plainLinUCB struct {
	d      int
	lambda float64
	v      *mat.SymDense
	b      *mat.VecDense
}

func newPlainLinUCB(d int, lambda float64) *plainLinUCB {
	v := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		v.SetSym(i, i, lambda)
	}
	return &plainLinUCB{d: d, lambda: lambda, v: v, b: mat.NewVecDense(d, nil)}
}

// scores returns x.theta + beta ||x||_{V^-1} of every action in x.
func (l *plainLinUCB) scores(x []float64, beta float64) []float64 {
	var inv mat.Dense
	if err := inv.Inverse(l.v); err != nil {
		panic(err)
	}
	var theta mat.VecDense
	theta.MulVec(&inv, l.b)
	u := make([]float64, len(x)/l.d)
	for a := range u {
		xa := mat.NewVecDense(l.d, append([]float64(nil), x[a*l.d:(a+1)*l.d]...))
		u[a] = mat.Dot(xa, &theta) + beta*math.Sqrt(mat.Inner(xa, &inv, xa))
	}
	return u
}

func (l *plainLinUCB) update(x []float64, y float64) {
	xa := mat.NewVecDense(l.d, append([]float64(nil), x...))
	l.v.SymRankOne(l.v, 1, xa)
	l.b.AddScaledVec(l.b, y, xa)
}

// linUCBMismatch runs the simulator on s (one silo) and plain LinUCB on
// the same contexts and reward noise, and returns the first round at which
// the simulator's action is not a maximiser of plain LinUCB's scores (0 if
// none) and the number of distinct actions. Both compute the scores with
// different (correctly rounded) operations, so a maximiser is any action
// within 1e-9 (relative) of the maximum: only exact ties, such as round 1
// where every score is beta/sqrt(Lambda) up to rounding, can be resolved
// differently. Plain LinUCB is then fed the simulator's action, so one
// tie does not make the two diverge.
func linUCBMismatch(t *testing.T, s Spec) (round, distinct int) {
	t.Helper()
	var arms []int
	sm := newTestSim(t, s, hooks{played: func(_, _, arm int) { arms = append(arms, arm) }})
	runSim(sm)

	// The independent learner sees the same contexts (a fresh instance on
	// the same streams) and the same reward noise.
	s = sm.s
	var inst instance
	if s.Instance == InstanceLTR {
		inst = newLTR(s, RunKey(s.Seed))
	} else {
		inst = newSynthetic(s, RunKey(s.Seed))
	}
	rew := rng.New(RunKey(s.Seed), "silo", 0, "reward")
	lin := newPlainLinUCB(s.Dim(), sm.cal.Lambda)
	std := inst.noiseStd()
	d := s.Dim()
	seen := map[int]bool{}
	for t0 := 1; t0 <= s.T; t0++ {
		set := inst.next(0)
		x, mu := rowsOf(set, d), set.mu
		u := lin.scores(x, sm.cal.Beta(t0))
		top := u[kern.ArgmaxFirst(u)]
		arm := arms[t0-1]
		seen[arm] = true
		if u[arm] < top-1e-9*(1+math.Abs(top)) && round == 0 {
			round = t0
		}
		var e float64
		if std > 0 {
			e = std * rew.NormFloat64()
			rew.NormFloat64()
		}
		y := mu[arm] + e
		if !s.NoClip {
			y = math.Min(math.Max(y, 0), 1)
		}
		lin.update(x[arm*d:(arm+1)*d], y)
	}
	return round, len(seen)
}

// TestFedLinUCBM1B1IsLinUCB: FedLinUCB with one silo synchronising every
// round chooses, every round, an action that maximises the scores of a
// plain LinUCB fed the same contexts and rewards (the same action except
// on exact ties), on both instances and with and without reward clamping.
// The mutation control (the lazy variant with B = 4, which acts on stale
// synchronised statistics) must diverge.
func TestFedLinUCBM1B1IsLinUCB(t *testing.T) {
	ltrData := makeLTR(1, 7, 9, 5, 1, unitFeatures, func(r *rand.Rand, x []float64) float64 { return 0.5 + 0.4*x[0] - 0.3*x[2] })
	ltrData.NoiseStd = 0.3
	tests := []struct {
		name string
		spec Spec
	}{
		{"synthetic-noclip", Spec{Synthetic: SyntheticSpec{D: 5, K: 20, NoiseVar: 0.25, FixedBasis: true, Seed: 2}, NoClip: true}},
		{"synthetic-clamped", Spec{Synthetic: SyntheticSpec{D: 5, K: 20, NoiseVar: 0.25, Seed: 2}}},
		{"ltr-noclip", Spec{Instance: InstanceLTR, LTR: ltrData, NoClip: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.spec
			s.Algorithm, s.M, s.T, s.B, s.Seed = AlgFedLinUCB, 1, 300, 1, 5
			if r, n := linUCBMismatch(t, s); r != 0 || n < 3 {
				t.Fatalf("first mismatch at round %d (0 = none), %d distinct actions (want >= 3)", r, n)
			}
			// Mutation control: lazy with B = 4 acts on stale statistics.
			s.B, s.Lazy = 4, true
			if r, _ := linUCBMismatch(t, s); r == 0 {
				t.Fatal("mutation control (lazy, B=4) matched plain LinUCB: the comparison has no power")
			}
		})
	}
}
