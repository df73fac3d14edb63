package mab

import (
	"fmt"
	"math"

	"github.com/fedbandit/fedbandit/internal/numpyrand"
	"github.com/fedbandit/fedbandit/internal/rng"
)

// Reward laws of an instance.
const (
	RewardGaussianClipped = "gaussian-clipped" // N(mu, noise_sd^2) clipped to [0, 1] (the paper's)
	RewardBernoulli       = "bernoulli"        // Bernoulli(mu)
)

// Ways of drawing the means from gap and seed.
const (
	MeansChaCha8     = "chacha8"      // mu_a = gap U_a + (0.5 - gap/2), U from the instance's own stream
	MeansNumpyLegacy = "numpy-legacy" // the published script: np.random.seed(seed); gap * np.random.rand(arms) + (0.5 - gap/2)
)

// MaxArms bounds the number of arms (key "arms", or the length of
// "means"): a run holds a few numbers per arm, about 60 MiB at the bound
// with T = 10^5, and a larger K would exhaust memory while the instance
// is loaded (attack round 3, K2).
const MaxArms = 1_000_000

// Instance is the sweep file's instance of kind "mab". Either Gap (the
// width of the range the means are drawn from; the paper's "easy" 0.5 and
// "hard" 0.1, which is not the gap between the two best arms) or Means is
// set.
type Instance struct {
	Arms      int       // key "arms": number of arms K (>= 2)
	Gap       float64   // key "gap": width of the means' range, in (0, 1]
	Means     []float64 // key "means": explicit means in [0, 1] (then arms and gap are not used)
	NoiseSD   float64   // key "noise_sd": standard deviation of the Gaussian reward before clipping (>= 0)
	Reward    string    // key "reward": RewardGaussianClipped or RewardBernoulli
	Seed      uint64    // key "seed": the instance's seed (the paper's instance r is seed r)
	MeansFrom string    // key "means_from": MeansChaCha8 or MeansNumpyLegacy
}

// Validate reports the first out-of-range key by name.
func (in Instance) Validate() error {
	if in.Means != nil {
		if len(in.Means) < 2 {
			return fmt.Errorf("means: %d values, need at least 2 arms", len(in.Means))
		}
		if len(in.Means) > MaxArms {
			return fmt.Errorf("means: %d values, at most %d arms", len(in.Means), MaxArms)
		}
		for i, m := range in.Means {
			if !(m >= 0 && m <= 1) {
				return fmt.Errorf("means[%d] = %v: need a value in [0, 1]", i, m)
			}
		}
		if err := distinctMeans("means", in.Means); err != nil {
			return err
		}
		if in.Arms != 0 && in.Arms != len(in.Means) {
			return fmt.Errorf("arms = %d but means has %d values", in.Arms, len(in.Means))
		}
		if in.Gap != 0 {
			return fmt.Errorf("gap = %v: give gap or means, not both", in.Gap)
		}
	} else {
		if in.Arms < 2 {
			return fmt.Errorf("arms = %d: need at least 2", in.Arms)
		}
		if in.Arms > MaxArms {
			return fmt.Errorf("arms = %d: at most %d", in.Arms, MaxArms)
		}
		if !(in.Gap > 0 && in.Gap <= 1) {
			return fmt.Errorf("gap = %v: need a value in (0, 1]", in.Gap)
		}
		switch in.MeansFrom {
		case MeansChaCha8:
		case MeansNumpyLegacy:
			if in.Seed > math.MaxUint32 {
				return fmt.Errorf("seed = %d: numpy's legacy seeding takes a 32-bit seed", in.Seed)
			}
		default:
			return fmt.Errorf("means_from = %q: want %q or %q", in.MeansFrom, MeansChaCha8, MeansNumpyLegacy)
		}
	}
	if !(in.NoiseSD >= 0) || math.IsInf(in.NoiseSD, 0) {
		return fmt.Errorf("noise_sd = %v: need a finite value >= 0", in.NoiseSD)
	}
	switch in.Reward {
	case RewardGaussianClipped, RewardBernoulli:
	default:
		return fmt.Errorf("reward = %q: want %q or %q", in.Reward, RewardGaussianClipped, RewardBernoulli)
	}
	return nil
}

// MeanValues returns the instance's arm means (validated first).
func (in Instance) MeanValues() ([]float64, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if in.Means != nil {
		return append([]float64(nil), in.Means...), nil
	}
	var u []float64
	if in.MeansFrom == MeansNumpyLegacy {
		// np.random.seed(seed); np.random.rand(K), bit for bit.
		m := numpyrand.New(uint32(in.Seed))
		u = make([]float64, in.Arms)
		for i := range u {
			u[i] = m.Double()
		}
	} else {
		r := rng.New(rng.NewKey("mab-instance", in.Seed), "means")
		u = make([]float64, in.Arms)
		for i := range u {
			u[i] = r.Float64()
		}
	}
	mu := make([]float64, in.Arms)
	for i := range mu {
		// float64() keeps the product rounded on its own, as numpy's is.
		mu[i] = float64(in.Gap*u[i]) + (0.5 - float64(in.Gap/2))
	}
	if err := distinctMeans(fmt.Sprintf("gap = %v", in.Gap), mu); err != nil {
		return nil, err
	}
	return mu, nil
}

// distinctMeans refuses means that are all equal: every arm is then the
// best, and regret is identically 0 (attack round 3, W7; the linear
// family refuses theta = 0 likewise). what leads the error ("means", or
// "gap = 1e-300" whose drawn means all round to 0.5).
func distinctMeans(what string, mu []float64) error {
	for _, m := range mu[1:] {
		if m != mu[0] {
			return nil
		}
	}
	return fmt.Errorf("%s: every arm's mean is %v: regret would be identically 0 (give means that differ, or a wider gap)", what, mu[0])
}

// DefaultInstance is the instance every absent key takes its value from:
// the paper's K = 10 arms, N(mu, 0.1^2) rewards clipped to [0, 1], means
// from the instance's own stream. gap (or means) has no default.
func DefaultInstance() Instance {
	return Instance{Arms: 10, NoiseSD: 0.1, Reward: RewardGaussianClipped, MeansFrom: MeansChaCha8}
}
