package mab

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestReleaseNoiseThroughRun measures the noise a run actually sends: a
// batch of n = 16 users per arm, every reward 0, released 10,000 times
// through the protocol that New wires to the run's calibrated ledger
// (as New does), in each mode; the release's variance must be the one the
// accountant charges for that ledger's noise parameter e: the discrete
// Laplace with parameter exp(-e'/g) (variance 2p/(1-p)^2, e' = e rounded
// down to 2^-20) for dist-dp-se, n shares of the rounded-up share
// variance for dist-rdp-se's Skellam, both over g^2 (chi-square interval
// of the sample variance about the known mean 0, false-alarm rate 1e-6
// per case). Mutation-checked: I42-wiring (the protocol drawn at the
// target eps, not the calibrated parameter) and N1 (Skellam variance
// halved) fail it.
func TestReleaseNoiseThroughRun(t *testing.T) {
	const n, trials, alpha = 16, 10000, 1e-6
	chi := distuv.ChiSquared{K: trials}
	lo, hi := chi.Quantile(alpha/2)/trials, chi.Quantile(1-alpha/2)/trials
	for _, c := range []struct {
		alg     string
		perUser float64
	}{{"dist-dp-se", 0}, {"dist-dp-se", 1}, {"dist-rdp-se", 0}, {"dist-rdp-se", 1}} {
		p, _, err := New(Spec{Algorithm: c.alg, Eps: 1, Delta: 1e-5, T: n, Seed: 5,
			Params:   map[string]float64{"per_user": c.perUser, "conf": 1e-9},
			Instance: Instance{Means: []float64{0.3, 0.6}, NoiseSD: 0.1, Reward: RewardGaussianClipped}})
		if err != nil {
			t.Fatal(err)
		}
		r := p.(*Run)
		s := r.proto.(*secagg)
		g, _ := s.params(n, 1)
		gf := float64(g)
		var want float64
		if c.alg == "dist-dp-se" {
			eDown := math.Floor(r.ledger.noiseEps*(1<<epsBits)) / (1 << epsBits)
			p := math.Exp(-eDown / gf)
			want = 2 * p / ((1 - p) * (1 - p)) / (gf * gf)
		} else {
			num, den := shareVariance(g, n, r.ledger.noiseEps)
			want = float64(n) * float64(num) / float64(den) / (gf * gf)
		}
		var ss float64
		for range trials {
			s.start(1, n, 2)
			for i := range 2 {
				for range n {
					s.add(i, 0)
				}
			}
			v := s.sum(1)
			ss += float64(v * v)
		}
		if got := ss / trials; !(got >= want*lo && got <= want*hi) {
			t.Errorf("%s per_user %v: release variance %.6g, the ledger's noise gives %.6g (interval %.4f-%.4f of it)", c.alg, c.perUser, got, want, lo, hi)
		}
	}
}
