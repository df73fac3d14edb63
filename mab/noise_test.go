package mab

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fedbandit/fedbandit/core"
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

// sumRecorder passes every call to the run's own protocol and keeps the
// releases of its first batch: it observes, it draws nothing.
type sumRecorder struct {
	protocol
	batch int
	sums  [][2]float64 // slot, release
}

func (s *sumRecorder) start(b, n, k int) { s.batch = b; s.protocol.start(b, n, k) }

func (s *sumRecorder) sum(i int) float64 {
	v := s.protocol.sum(i)
	if s.batch == 1 {
		s.sums = append(s.sums, [2]float64{float64(i), v})
	}
	return v
}

// TestBatchNoiseThroughRound measures the noise through the run's own
// rounds, which TestReleaseNoiseThroughRun (the protocol driven by the
// test) does not: 3,000 runs of T = 8 (one batch of 4 users per arm, two
// arms) of each SecAgg entry on an instance whose rewards are exactly 0
// and 1 (means 0 and 1, no reward noise), each played through Round, the
// known sum of its rewards subtracted from each release (conf 1e-9, so
// that SecAgg's modular sum decodes every release), the protocol New wired to the ledger only
// observed (sumRecorder); the releases' variance must be the ledger's: its
// batch of n users at its noise parameter e (the discrete Laplace at
// exp(-e'/g), or n shares of the share variance, over g^2); and the
// ledger's claim for that batch must be what the protocol's own parameter
// gives (batchRDP at the protocol's eps; for the pure entry, that eps
// rounded down to 2^-20). Chi-square interval about the known mean 0 at a
// false-alarm rate of 1e-6 per case. Mutation-checked: I42-mab-wire (the
// run tells the protocol one user more than its batch has: variance
// 4/5), I42-mab-cal (the ledger's noise parameter raised after its
// batches were charged) and I42-mab-rand (the discrete Gaussian's
// variance halved) each fail it.
func TestBatchNoiseThroughRound(t *testing.T) {
	const runs, alpha = 3000, 1e-6
	chi := distuv.ChiSquared{K: 2 * runs}
	lo, hi := chi.Quantile(alpha/2)/(2*runs), chi.Quantile(1-alpha/2)/(2*runs)
	for _, c := range []struct {
		alg    string
		params map[string]float64
	}{
		{"dist-dp-se", map[string]float64{"per_user": 0, "conf": 1e-9}},
		{"dist-rdp-se", map[string]float64{"per_user": 0, "conf": 1e-9}},
		{"dist-rdp-se", map[string]float64{"per_user": 1, "conf": 1e-9}},
		{"dist-cdp-se", map[string]float64{"conf": 1e-9}},
	} {
		var ss, want float64
		var n int
		for seed := range runs {
			p, _, err := New(Spec{Algorithm: c.alg, Eps: 1, Delta: 1e-5, T: 8, Seed: uint64(seed), Params: c.params,
				Instance: Instance{Means: []float64{0, 1}, NoiseSD: 0, Reward: RewardGaussianClipped}})
			if err != nil {
				t.Fatal(err)
			}
			r := p.(*Run)
			s := r.proto.(*secagg)
			rec := &sumRecorder{protocol: r.proto, batch: r.b}
			r.proto = rec
			for round := 1; round <= 8; round++ {
				r.Round(round)
			}
			for _, v := range rec.sums {
				z := v[1] - float64(float64(r.ledger.batches[0].n)*v[0]) // slot i is arm i, of mean i
				ss += float64(z * z)
			}
			n += len(rec.sums)
			if seed > 0 {
				continue
			}
			b := r.ledger.batches[0]
			g, _ := s.params(b.n, 1)
			gf := float64(g)
			if s.kind == noiseCentral || s.kind == noisePolya {
				eDown := math.Floor(r.ledger.noiseEps*(1<<epsBits)) / (1 << epsBits)
				q := math.Exp(-eDown / gf)
				want = 2 * q / ((1 - q) * (1 - q)) / (gf * gf)
				if got := math.Floor(s.eps*(1<<epsBits)) / (1 << epsBits); b.eps != got {
					t.Errorf("%s: the ledger claims %v for the batch, the protocol's eps %v gives %v", c.alg, b.eps, s.eps, got)
				}
			} else {
				num, den := shareVariance(g, b.n, r.ledger.noiseEps)
				want = float64(b.n) * float64(num) / float64(den) / (gf * gf)
				alg, _ := Lookup(c.alg)
				params, err := core.Resolve(alg.Params, c.params)
				if err != nil {
					t.Fatal(err)
				}
				if _, got, err := batchRDP(alg, s.eps, 1e-5, params, b.n); err != nil || got != b.eps {
					t.Errorf("%s: the ledger claims %v for the batch of %d, the protocol's parameter %v gives %v (%v)", c.alg, b.eps, b.n, s.eps, got, err)
				}
			}
		}
		if got := ss / float64(n); n != 2*runs || !(got >= want*lo && got <= want*hi) {
			t.Errorf("%s %v: %d releases of variance %.6g through Round, the ledger's noise gives %.6g (interval %.4f-%.4f of it)", c.alg, c.params, n, got, want, lo, hi)
		}
	}
}
