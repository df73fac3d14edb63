package bco

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestLTRPlaysTheMethod: a bco-ltr instance whose every document is the
// synthetic instance's (x = a, y = b0: the synthetic losses at noise 0)
// plays the family's methods exactly as the synthetic instance does: the
// same streams, steps, projections and averaging give the same regret
// curves (both hindsight minima are 0 there), for every algorithm, loss
// and M. Mutation controls: dealing the documents' targets with the wrong
// sign, or dropping the projection of Round, breaks it.
func TestLTRPlaysTheMethod(t *testing.T) {
	for _, loss := range LTRLosses {
		for _, alg := range Algorithms() {
			for _, m := range []int{1, 3} {
				s := spec(alg.Name, loss, 3000, 7)
				s.Instance.Noise = 0
				s.M, s.B = m, 10
				want, err := Run(context.Background(), s)
				if err != nil {
					t.Fatal(err)
				}
				g := s.Instance.geometry()
				data := &LTRData{D: g.d, X: append([]float64(nil), g.a...), Y: []float64{g.b0}}
				ls := LTRSpec{Algorithm: s.Algorithm, Params: s.Params, Eps: s.Eps, Delta: s.Delta, M: s.M, B: s.B, T: s.T,
					Every: s.Every, Seed: s.Seed, Instance: LTRInstance{Data: data, Radius: 1, Loss: loss, Order: OrderDataset}}
				got, err := RunLTR(context.Background(), ls)
				if err != nil {
					t.Fatal(err)
				}
				if len(got.Curve) != len(want.Curve) || got.Syncs != want.Syncs || got.Scalars != want.Scalars {
					t.Fatalf("%s %s M=%d: curves %d/%d, counters %d %d / %d %d", loss, alg.Name, m, len(got.Curve), len(want.Curve), got.Syncs, got.Scalars, want.Syncs, want.Scalars)
				}
				for i, c := range got.Curve {
					w := want.Curve[i]
					if c.Round != w.Round || math.Abs(c.Realised-w.Realised) > 1e-9*(1+math.Abs(w.Realised)) || c.Pseudo != c.Realised {
						t.Errorf("%s %s M=%d: checkpoint %d: %+v, synthetic %+v", loss, alg.Name, m, i, c, w)
						break
					}
				}
				if got.Privacy.Certified != want.Privacy.Certified || math.Abs(got.Privacy.DeliveredEps-want.Privacy.DeliveredEps) > 1e-9*want.Privacy.DeliveredEps {
					t.Errorf("%s %s: claim %+v, synthetic %+v", loss, alg.Name, got.Privacy, want.Privacy)
				}
			}
		}
	}
}

func randomLTR(r *rand.Rand, n, d int) *LTRData {
	data := &LTRData{D: d, X: make([]float64, n*d), Y: make([]float64, n)}
	for i := range n {
		fillUnit(data.X[i*d:(i+1)*d], r)
		data.Y[i] = float64(r.IntN(3)) / 2
	}
	return data
}

// TestLTROrder: each pass deals every document once; the dataset order is
// the documents' own, the shuffled one a permutation drawn from the
// instance seed, a fresh one per pass, the same for every run seed.
func TestLTROrder(t *testing.T) {
	data := randomLTR(rand.New(rand.NewPCG(1, 1)), 50, 3)
	deal := func(order string, seed, runSeed uint64) []int {
		s := LTRSpec{Algorithm: "one-point", M: 1, B: 1, T: 1, Every: 1, Seed: runSeed,
			Instance: LTRInstance{Data: data, Radius: 1, Loss: LossSquared, Order: order, Seed: seed}}
		p, err := newLTRProblem(s)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]int, 150)
		for i := range out {
			out[i] = p.deal()
		}
		return out
	}
	ds := deal(OrderDataset, 0, 1)
	for i, k := range ds {
		if k != i%50 {
			t.Fatalf("dataset order: %d at %d", k, i)
		}
	}
	a, b, c := deal(OrderShuffled, 1, 1), deal(OrderShuffled, 1, 2), deal(OrderShuffled, 2, 1)
	if !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Error("the shuffled order depends on the run seed, or not on the instance seed")
	}
	for p := range 3 {
		pass := slices.Clone(a[p*50 : (p+1)*50])
		if slices.Equal(pass, ds[:50]) {
			t.Errorf("pass %d is not shuffled", p)
		}
		slices.Sort(pass)
		if !slices.Equal(pass, ds[:50]) {
			t.Errorf("pass %d is not a permutation", p)
		}
	}
	if slices.Equal(a[:50], a[50:100]) {
		t.Error("two passes deal the same permutation")
	}
}

// TestLTRRegretExact: at every checkpoint the cumulative regret is the
// loss played so far minus the minimum in hindsight, recomputed
// independently: projected gradient descent to its limit for the squared
// loss, the certified bracket of the absolute loss checked against random
// points of the ball. Over three passes of the documents and M = 2.
func TestLTRRegretExact(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	data := randomLTR(r, 40, 4)
	for _, loss := range LTRLosses {
		s := LTRSpec{Algorithm: "ldp-two-point", Eps: 1, Delta: 1e-5, M: 2, B: 3, T: 60, Every: 7, Seed: 3,
			Params:   map[string]float64{"analytic": 1},
			Instance: LTRInstance{Data: data, Radius: 0.4, Loss: loss, Order: OrderShuffled, Seed: 5}}
		p, err := newLTRProblem(s)
		if err != nil {
			t.Fatal(err)
		}
		var cum float64
		for tt := 1; tt <= s.T; tt++ {
			_, re := p.Round(tt)
			cum += re
			if tt%s.Every != 0 && tt != s.T {
				continue
			}
			total := func(w []float64) float64 {
				var v float64
				for k, c := range p.counts {
					v += c * p.loss(k, w)
				}
				return v
			}
			var best float64
			if loss == LossSquared {
				w := make([]float64, 4)
				g := make([]float64, 4)
				for range 20000 {
					clear(g)
					for k, c := range p.counts {
						e := dot(data.X[k*4:(k+1)*4], w) - data.Y[k]
						for j := range g {
							g[j] += c * e * data.X[k*4+j]
						}
					}
					for j := range w {
						w[j] -= g[j] / float64(p.next)
					}
					project(w, 0.4)
				}
				best = total(w)
			} else {
				best = p.prevBest
				v := make([]float64, 4)
				for range 3000 {
					fillUnit(v, r)
					sc := 0.4 * math.Cbrt(r.Float64())
					for j := range v {
						v[j] *= sc
					}
					if f := total(v); f < best-p.gap-1e-12 {
						t.Fatalf("round %d: a point of the ball has total loss %v below the certified minimum %v - %v", tt, f, best, p.gap)
					}
				}
			}
			if want := p.played - best; math.Abs(cum-want) > 1e-9*(1+math.Abs(want)) {
				t.Errorf("%s round %d: cumulative regret %v, played - min = %v", loss, tt, cum, want)
			}
		}
		if loss == LossAbsolute && !strings.Contains(p.HindsightNote(), "certified within") {
			t.Errorf("note %q", p.HindsightNote())
		}
	}
}

// TestLTRBadInput: every bad field is an error naming its key.
func TestLTRBadInput(t *testing.T) {
	data := randomLTR(rand.New(rand.NewPCG(3, 3)), 5, 2)
	ok := LTRSpec{Algorithm: "one-point", M: 1, B: 1, T: 10, Every: 1,
		Instance: LTRInstance{Data: data, Radius: 1, Loss: LossSquared, Order: OrderShuffled}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		edit func(*LTRSpec)
		key  string
	}{
		{func(s *LTRSpec) { s.Instance.Loss = LossQuadratic }, "loss = "},
		{func(s *LTRSpec) { s.Instance.Radius = 0 }, "radius = "},
		{func(s *LTRSpec) { s.Instance.Radius = math.Inf(1) }, "radius = "},
		{func(s *LTRSpec) { s.Instance.Order = "random" }, "order = "},
		{func(s *LTRSpec) { s.T = 0 }, "T = "},
		{func(s *LTRSpec) { s.Every = 0 }, "checkpoint_every = "},
		{func(s *LTRSpec) { s.Algorithm = "ldp-one-point" }, "eps = "},
		{func(s *LTRSpec) { s.Params = map[string]float64{"step_scale": -1} }, "step_scale"},
	} {
		s := ok
		tc.edit(&s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("want an error naming %q, got %v", tc.key, err)
		}
	}
}

// TestR4_10LTRRadiusBounded: a bco-ltr ball below 1e-8 is refused (its
// regret was rounding noise, and exactly 0 below about 1e-16); 1e-8 and
// 1e100 are accepted.
func TestR4_10LTRRadiusBounded(t *testing.T) {
	in := LTRInstance{Data: &LTRData{D: 1, X: []float64{1}, Y: []float64{0}}, Loss: LossSquared, Order: OrderDataset}
	for _, r := range []float64{1e-20, 1e-9, 0.99e-8} {
		in.Radius = r
		if err := in.Validate(); err == nil || !strings.Contains(err.Error(), "need 1e-8 <= radius <= 1e100") {
			t.Errorf("radius %g: %v", r, err)
		}
	}
	for _, r := range []float64{MinLTRRadius, 1, 1e100} {
		in.Radius = r
		if err := in.Validate(); err != nil {
			t.Errorf("radius %g: %v", r, err)
		}
	}
}
