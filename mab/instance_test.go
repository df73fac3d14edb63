package mab

import (
	"strings"
	"testing"
)

// The published script's means for seeds 0, 1, 2 (easy) and 0 (hard), from
// Debian's python3-numpy 1.24.2: np.random.seed(s); g *
// np.random.rand(10) + (0.5 - g/2), first three values.
//
// Mutation control (run 2026-11-25): writing gap*u + 0.5 - gap/2 (which
// the compiler may fuse into a multiply-add and which adds in another
// order) fails: the last bits differ from numpy's.
func TestNumpyLegacyMeans(t *testing.T) {
	cases := []struct {
		seed uint64
		gap  float64
		want []float64
	}{
		{0, 0.5, []float64{0.5244067519636624, 0.6075946831862098, 0.551381688035822}},
		{1, 0.5, []float64{0.458511002351287, 0.610162246721079, 0.25005718740867244}},
		{2, 0.5, []float64{0.4679974510710019, 0.26296311591394567, 0.5248312389393546}},
		{0, 0.1, []float64{0.5048813503927325, 0.5215189366372419, 0.5102763376071644}},
	}
	for _, c := range cases {
		in := DefaultInstance()
		in.Gap, in.Seed, in.MeansFrom = c.gap, c.seed, MeansNumpyLegacy
		mu, err := in.MeanValues()
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range c.want {
			if mu[i] != w {
				t.Errorf("seed %d gap %v: mean[%d] = %v, want %v (bit for bit)", c.seed, c.gap, i, mu[i], w)
			}
		}
	}
}

func TestChaCha8Means(t *testing.T) {
	in := DefaultInstance()
	in.Gap = 0.1
	mu, err := in.MeanValues()
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range mu {
		if m < 0.45 || m >= 0.55 {
			t.Errorf("mean[%d] = %v outside [0.45, 0.55)", i, m)
		}
	}
}

// Every out-of-range key is an error naming it. Mutation control (run
// 2026-11-25): accepting arms = 1 fails.
func TestBadInput(t *testing.T) {
	good := func() Spec {
		in := DefaultInstance()
		in.Gap = 0.5
		return Spec{Algorithm: "dist-rdp-se", Eps: 1, Delta: 1e-5, T: 100, Instance: in}
	}
	cases := []struct {
		key string
		mod func(*Spec)
	}{
		{"arms", func(s *Spec) { s.Instance.Arms = 1 }},
		{"gap", func(s *Spec) { s.Instance.Gap = 0 }},
		{"gap", func(s *Spec) { s.Instance.Gap = 1.5 }},
		{"noise_sd", func(s *Spec) { s.Instance.NoiseSD = -0.1 }},
		{"reward", func(s *Spec) { s.Instance.Reward = "gauss" }},
		{"means_from", func(s *Spec) { s.Instance.MeansFrom = "numpy" }},
		{"means[1]", func(s *Spec) { s.Instance.Gap = 0; s.Instance.Arms = 0; s.Instance.Means = []float64{0.2, 1.2} }},
		{"S", func(s *Spec) { s.Params = map[string]float64{"S": 0.5} }},
		{"eps", func(s *Spec) { s.Eps = 0 }},
		{"eps", func(s *Spec) { s.Eps = -1 }},
		{"delta", func(s *Spec) { s.Delta = 0 }},
		{"T", func(s *Spec) { s.T = 0 }},
		{"conf", func(s *Spec) { s.Params = map[string]float64{"conf": 0} }},
		{"algorithm", func(s *Spec) { s.Algorithm = "ucb" }},
		{"nope", func(s *Spec) { s.Params = map[string]float64{"nope": 1} }},
	}
	for _, c := range cases {
		s := good()
		c.mod(&s)
		_, _, err := New(s)
		if err == nil || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%s: err = %v, want an error naming %q", c.key, err, c.key)
		}
	}
	if _, _, err := New(good()); err != nil {
		t.Errorf("good spec: %v", err)
	}
	s := good()
	s.Algorithm, s.Eps = "se", 0 // eps is not used by se
	if _, _, err := New(s); err != nil {
		t.Errorf("se with eps = 0: %v", err)
	}
}
