package federate

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fedbandit/fedbandit/federate/accountant"
	"github.com/fedbandit/fedbandit/federate/tree"
	"github.com/fedbandit/fedbandit/internal/rng"
	"github.com/fedbandit/fedbandit/internal/vec"
)

// TestLDPLinUCB: LDP-LinUCB runs, is certified whatever its batch (the
// users' reports are noised before the silo uses them: its learner's
// adaptivity is post-processing), and records the local Gaussian
// mechanism's guarantee: the classic sigma under paper, the smallest
// certified one under exact.
func TestLDPLinUCB(t *testing.T) {
	s := Spec{Algorithm: AlgLDPLinUCB, Eps: 1, Delta: 0.1, M: 4, T: 200, B: 20, Seed: 2,
		Synthetic: SyntheticSpec{D: 4, K: 10, NoiseVar: 0.25, Seed: 1}}
	for _, preset := range []string{accountant.PresetPaper, accountant.PresetExact} {
		s.Preset = preset
		r, err := Run(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		c := r.Calibration
		if s.Uncertified() != "" || strings.Contains(c.Note, "NOT CERTIFIED") || r.Syncs != s.T/s.B {
			t.Errorf("%s: uncertified %q, note %q, %d syncs", preset, s.Uncertified(), c.Note, r.Syncs)
		}
		want := accountant.UserLDPSigma(1, 0.1) // sqrt(6) sqrt(2 ln 12.5)
		if preset == accountant.PresetExact {
			want, _ = accountant.ExactLDPSigma(1, 0.1, 1, accountant.ReplaceOne)
		}
		if c.Sigma != want || !(c.DeliveredEps <= 1) {
			t.Errorf("%s: sigma %v (want %v), delivered eps %v", preset, c.Sigma, want, c.DeliveredEps)
		}
	}
	if want := math.Sqrt(6) * math.Sqrt(2*math.Log(12.5)); math.Abs(accountant.UserLDPSigma(1, 0.1)-want) > 1e-12 {
		t.Errorf("UserLDPSigma = %v, want %v", accountant.UserLDPSigma(1, 0.1), want)
	}
}

// TestLDPLinUCBNoise: every report carries fresh noise of the calibrated
// scale in every entry (Gram entries under the convention): n reports of
// the same (x, y) sum to n x x^T and n x y plus noise whose per-entry
// variance is n sigma_e^2. Chi-square test over all entries at a
// false-alarm rate of 1e-4 (fixed seed); a learner that forgot the noise,
// or drew it at half the scale, fails.
func TestLDPLinUCBNoise(t *testing.T) {
	const d, n, sigma = 6, 400, 0.7
	gstd, _ := tree.GramStd(d, sigma, tree.Symmetrised)
	check := func(scale float64) (stat float64, df int) {
		l := &localNoise{lazyLearner: newLazyLearner(d), gstd: make([]float64, len(gstd)), bstd: sigma * scale,
			r: []*rand.Rand{rng.New(rng.NewKey("test", 1), "user-noise")}, w: make([]float64, tree.PackedLen(d)), u: make([]float64, d)}
		for e := range gstd {
			l.gstd[e] = gstd[e] * scale
		}
		b := &batchStats{w: make([]float64, tree.PackedLen(d)), u: make([]float64, d)}
		x := []float64{0.6, 0.48, 0.36, 0.3, 0.3, 0.3}
		for k := 0; k < n; k++ {
			l.observe(0, b, x, 1)
		}
		ew, eu := make([]float64, len(b.w)), make([]float64, d)
		vec.Portable().AddObs(ew, eu, x, 1)
		for e, v := range b.w {
			z := (v - n*ew[e]) / (gstd[e] * math.Sqrt(n))
			stat += z * z
		}
		for e, v := range b.u {
			z := (v - n*eu[e]) / (sigma * math.Sqrt(n))
			stat += z * z
		}
		return stat, len(b.w) + d
	}
	chi := func(df int) distuv.ChiSquared { return distuv.ChiSquared{K: float64(df)} }
	stat, df := check(1)
	lo, hi := chi(df).Quantile(0.5e-4), chi(df).Quantile(1-0.5e-4)
	if stat < lo || stat > hi {
		t.Errorf("noise of the calibrated scale: chi-square %.3g outside [%.3g, %.3g] (df %d)", stat, lo, hi, df)
	}
	for _, scale := range []float64{0, 0.25} {
		if s, _ := check(scale); s >= lo && s <= hi {
			t.Errorf("mutation: noise x %v passes (chi-square %.3g)", scale, s)
		}
	}
}
