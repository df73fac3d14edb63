package federate

import (
	"context"
	"math"
	"strings"
	"testing"
)

// dubeySpec is a small run on the Dubey & Pentland instance.
func dubeySpec(alg string, m, t int, regime float64) Spec {
	s := Spec{Instance: InstanceDubey, Dubey: &DubeySpec{D: 5, K: 10, Seed: 1}, Algorithm: alg, Protocol: ProtocolPAlt,
		Eps: 1, Delta: 0.1, Preset: "paper", M: m, T: t, B: 1, Every: t, Seed: 1}
	if regime > 0 {
		s.Params = map[string]float64{"regime": regime}
	}
	return s
}

// TestDubeyInstance: theta* lies in the unit ball with ||theta*|| >= 0.8;
// every round of every silo has exactly one action of mean in [0.7, 0.8]
// and K-1 in [0.5, 0.6] (so a gap >= 0.1), every action has norm 1 and
// <x, theta*> equal to its recorded mean; the optimal action's position
// varies. Mutation-checked: drawing the optimal mean in [0.5, 0.8], or
// dropping the orthogonal projection, fails it.
func TestDubeyInstance(t *testing.T) {
	for _, d := range []int{2, 5, 16} {
		theta := DubeyTheta(d, 7)
		if n := math.Sqrt(dot(theta, theta)); n < DubeyOptHi || n > 1 {
			t.Fatalf("d = %d: ||theta*|| = %v, want in [0.8, 1]", d, n)
		}
		in := newDubey(DubeySpec{D: d, K: 12, Seed: 7}, 3, RunKey(1))
		x := make([]float64, d)
		positions := map[int]bool{}
		for round := 0; round < 200; round++ {
			for i := 0; i < 3; i++ {
				set := in.next(i)
				if set.n != 12 {
					t.Fatalf("%d actions", set.n)
				}
				opt := -1
				for a := 0; a < set.n; a++ {
					mu := set.mu[a]
					switch {
					case mu >= DubeyOptLo && mu <= DubeyOptHi:
						if opt >= 0 {
							t.Fatalf("d = %d: two optimal actions (%d, %d)", d, opt, a)
						}
						opt = a
					case mu < DubeySubLo || mu > DubeySubHi:
						t.Fatalf("d = %d: action %d has mean %v, in neither range", d, a, mu)
					}
					set.row(x, a)
					if n := math.Sqrt(dot(x, x)); math.Abs(n-1) > 1e-12 {
						t.Fatalf("d = %d: ||x|| = %v", d, n)
					}
					if v := dot(x, theta); math.Abs(v-mu) > 1e-12 {
						t.Fatalf("d = %d: <x, theta*> = %v, recorded mean %v", d, v, mu)
					}
				}
				if opt < 0 {
					t.Fatalf("d = %d: no optimal action", d)
				}
				positions[opt] = true
			}
		}
		if len(positions) < 12 {
			t.Errorf("d = %d: the optimal action took %d of 12 positions in 600 rounds", d, len(positions))
		}
	}
}

// recordingLearner records the rewards a learner observes.
type recordingLearner struct {
	learner
	ys []float64
}

func (r *recordingLearner) observe(i int, b *batchStats, x []float64, y float64) float64 {
	r.ys = append(r.ys, y)
	return r.learner.observe(i, b, x, y)
}

// TestDubeyBernoulli: the rewards are 0 or 1 with the chosen action's
// mean: the random policy's N = 12,000 rewards, split by range of the
// mean (suboptimal, optimal), each have sum(y - mu) / sqrt(sum mu(1-mu))
// within 4.42 (two-sided N(0, 1) tail 1e-5 each: false alarm at most 2e-5
// for the test; deterministic seeds, so it passes or fails for good).
// Mutation-checked: rewards Bernoulli(mu + 0.03) fail it (z = 5.98 for the
// suboptimal actions), and Gaussian rewards fail the 0/1 check.
func TestDubeyBernoulli(t *testing.T) {
	s := dubeySpec(AlgRandom, 4, 3000, 0)
	sm := newTestSim(t, s, hooks{})
	rec := &recordingLearner{learner: sm.learner}
	sm.learner = rec
	var mus []float64
	in := sm.inst.(*dubey)
	sm.h.played = func(_, _, arm int) { mus = append(mus, in.set.mu[arm]) }
	for tt := 1; tt <= s.T; tt++ {
		sm.round(tt)
	}
	if len(rec.ys) != len(mus) || len(mus) != s.M*s.T {
		t.Fatalf("%d rewards, %d means", len(rec.ys), len(mus))
	}
	var sum, v [2]float64
	var n [2]int
	for j, y := range rec.ys {
		if y != 0 && y != 1 {
			t.Fatalf("reward %v, want 0 or 1", y)
		}
		g := 0
		if mus[j] >= DubeyOptLo {
			g = 1
		}
		sum[g] += y - mus[j]
		v[g] += mus[j] * (1 - mus[j])
		n[g]++
	}
	for g, name := range []string{"suboptimal", "optimal"} {
		if n[g] < 500 {
			t.Fatalf("%d %s rewards", n[g], name)
		}
		if z := sum[g] / math.Sqrt(v[g]); math.Abs(z) > 4.42 {
			t.Errorf("%s actions: z = %.2f over %d rewards (want |z| <= 4.42)", name, z, n[g])
		}
	}
}

// TestDubeyValidate: the instance's parameters are checked with errors
// naming the field.
func TestDubeyValidate(t *testing.T) {
	for _, c := range []struct {
		y     *DubeySpec
		field string
	}{
		{nil, "Dubey"},
		{&DubeySpec{D: 1, K: 5}, "Dubey.D"},
		{&DubeySpec{D: MaxDubeyD + 1, K: 5}, "Dubey.D"},
		{&DubeySpec{D: 5, K: 1}, "Dubey.K"},
		{&DubeySpec{D: 5, K: 0}, "Dubey.K"},
		{&DubeySpec{D: 100_000, K: 2000}, "Dubey.K"},
	} {
		s := dubeySpec(AlgFedLinUCB, 2, 10, 0)
		s.Dubey = c.y
		err := s.Validate()
		fe, ok := err.(*FieldError)
		if !ok || fe.Field != c.field || !strings.Contains(fe.Msg, c.field) {
			t.Errorf("%+v: %v, want an error naming %s", c.y, err, c.field)
		}
	}
	if err := dubeySpec(AlgFedLinUCB, 2, 10, 0).Validate(); err != nil {
		t.Error(err)
	}
}

// TestDubeyDeterministic: a run is a function of its spec: the same bytes
// twice, other bytes for another run seed or instance seed.
func TestDubeyDeterministic(t *testing.T) {
	s := dubeySpec(AlgFedLinUCB, 3, 200, 0)
	s.Every = 10
	a, _ := Run(context.Background(), s)
	b, _ := Run(context.Background(), s)
	if !slicesEqualBits(resultBits(a), resultBits(b)) {
		t.Fatal("two runs of one spec differ")
	}
	s.Seed = 2
	c, _ := Run(context.Background(), s)
	s.Seed, s.Dubey = 1, &DubeySpec{D: 5, K: 10, Seed: 2}
	e, _ := Run(context.Background(), s)
	if a.Pseudo == c.Pseudo || a.Pseudo == e.Pseudo {
		t.Errorf("pseudo-regret %v, other run seed %v, other instance seed %v", a.Pseudo, c.Pseudo, e.Pseudo)
	}
}
