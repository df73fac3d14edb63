package bco

import (
	"fmt"
	"math"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/rng"
)

// Sequence kinds (the instance key `sequence`).
const (
	// Stochastic losses: each user's noise level is drawn uniformly, from
	// the run's own stream.
	Stochastic = "stochastic"
	// Drifting losses: an oblivious adversary's sequence, fixed by the
	// instance seed before any run starts (the same for every run and
	// silo): the level follows a slow sine of period `period` rounds.
	Drifting = "drifting"
)

// Instance is a `kind = "bco"` instance: the ball of radius Radius in R^D
// and the loss sequence.
type Instance struct {
	D        int     `json:"d"`
	Radius   float64 `json:"radius"`
	Loss     string  `json:"loss"`     // one of Losses
	Modulus  float64 `json:"modulus"`  // mu, for the strongly convex losses (> 0)
	Noise    float64 `json:"noise"`    // nu in [0, 0.3]: the noise amplitude in units of Radius
	Sequence string  `json:"sequence"` // Stochastic or Drifting
	Period   int     `json:"period"`   // Drifting: rounds per sine period (>= 2)
	Seed     uint64  `json:"seed"`     // draws a and z (and is the adversary's seed)
}

// Spec fully specifies one run of the family.
type Spec struct {
	Algorithm string             `json:"algorithm"`
	Instance  Instance           `json:"instance"`
	Params    map[string]float64 `json:"params,omitempty"` // the algorithm's own parameters (absent: defaults)
	Eps       float64            `json:"eps"`              // private algorithms
	Delta     float64            `json:"delta"`            // private algorithms
	M         int                `json:"M"`                // silos (1: the paper's setting)
	B         int                `json:"B"`                // rounds between iterate averaging (M > 1)
	T         int                `json:"T"`                // rounds per silo
	Every     int                `json:"every"`            // checkpoint spacing
	Seed      uint64             `json:"seed"`
}

// MinScale and MaxScale bound the radius and the modulus: beyond them the
// losses' powers of the radius under- or overflow float64 and a run's
// regret is NaN (attack round 3, U7: radius 1e-300 passed validation and
// failed in the pilot; runs are finite over the whole range for every
// loss, TestR3_U7ScaleBounds).
const (
	MinScale = 1e-50
	MaxScale = 1e100
)

// Validate checks an instance; errors name the key.
func (in Instance) Validate() error {
	switch {
	case in.D < 1:
		return fmt.Errorf("d = %d: need at least 1", in.D)
	case in.D > 1_000_000:
		return fmt.Errorf("d = %d: at most 1000000", in.D)
	case !(in.Radius >= MinScale && in.Radius <= MaxScale):
		return fmt.Errorf("radius = %v: the body is the ball of this radius; need %g <= radius <= %g", in.Radius, MinScale, MaxScale)
	case !(in.Noise >= 0 && in.Noise <= 0.3):
		return fmt.Errorf("noise = %v: need 0 <= noise <= 0.3 (the amplitude in units of the radius that keeps every target inside the ball)", in.Noise)
	}
	class, err := ClassOf(in.Loss)
	if err != nil {
		return err
	}
	strongly := class == ClassStrongly || class == ClassStronglySmooth
	switch {
	case strongly && !(in.Modulus >= MinScale && in.Modulus <= MaxScale):
		return fmt.Errorf("modulus = %v: loss %q is strongly convex, need %g <= modulus <= %g", in.Modulus, in.Loss, MinScale, MaxScale)
	case !strongly && in.Modulus != 0:
		return fmt.Errorf("modulus = %v: loss %q is not strongly convex; leave modulus out", in.Modulus, in.Loss)
	}
	switch in.Sequence {
	case Stochastic:
		if in.Period != 0 {
			return fmt.Errorf("period = %d: only for sequence = %q", in.Period, Drifting)
		}
	case Drifting:
		if in.Period < 2 {
			return fmt.Errorf("period = %d: a drifting sequence needs a period of at least 2 rounds", in.Period)
		}
	default:
		return fmt.Errorf("sequence = %q: want %q or %q", in.Sequence, Stochastic, Drifting)
	}
	return nil
}

// Validate checks a spec; errors name the key. A private run's eps must
// be at least MinEps of its report's sensitivity.
func (s Spec) Validate() error {
	if err := s.validateHeader(); err != nil {
		return err
	}
	alg, _ := Lookup(s.Algorithm)
	if !alg.Private() {
		return nil
	}
	C, G, _ := s.Instance.shape().boundsAt(0.3 * s.Instance.Radius)
	return checkEps(s.Eps, s.Delta, sensitivity(alg, C, G))
}

// validateHeader is Validate without the eps bound of the instance's
// sensitivity: the rules of the algorithm, the instance and the header.
func (s Spec) validateHeader() error {
	alg, err := Lookup(s.Algorithm)
	if err != nil {
		return err
	}
	if err := s.Instance.Validate(); err != nil {
		return err
	}
	if _, err := core.Resolve(alg.Params, s.Params); err != nil {
		return fmt.Errorf("algorithm %q: %w", alg.Name, err)
	}
	switch {
	case s.T < 1:
		return fmt.Errorf("T = %d: need at least 1 round", s.T)
	case s.M < 1:
		return fmt.Errorf("M = %d: need at least 1 silo", s.M)
	case s.B < 1:
		return fmt.Errorf("B = %d: need at least 1 round between averaging", s.B)
	case s.Every < 1:
		return fmt.Errorf("checkpoint_every = %d: need at least 1", s.Every)
	case s.M > 1 && s.B > s.T:
		// As the linear family refuses T < B (attack round 3, W12).
		return fmt.Errorf("B = %d: more than T = %d rounds, so the M = %d silos would never average their iterates", s.B, s.T, s.M)
	}
	if alg.Trust != core.TrustNone {
		if !(s.Eps > 0) || math.IsInf(s.Eps, 0) {
			return fmt.Errorf("eps = %v: a private algorithm needs a finite eps > 0", s.Eps)
		}
		if !(s.Delta > 0 && s.Delta < 1) {
			return fmt.Errorf("delta = %v: need 0 < delta < 1 (the Gaussian mechanism gives no pure DP)", s.Delta)
		}
	}
	return nil
}

// shape is the instance's geometry before its vectors are drawn: its
// radius, loss, modulus and targets' offset b0 = 0.2 R and amplitude.
func (in Instance) shape() *geometry {
	return &geometry{d: in.D, r: in.Radius, loss: in.Loss, mu: in.Modulus, nu: in.Noise, b0: 0.2 * in.Radius}
}

// geometry draws the instance's shape from its seed: a and the direction
// of z are independent uniform unit vectors.
func (in Instance) geometry() *geometry {
	r := rng.New(rng.NewKey("bco-instance", in.Seed), "geometry")
	g := in.shape()
	g.a = unitVector(r.NormFloat64, in.D)
	g.z = unitVector(r.NormFloat64, in.D)
	for i := range g.z {
		g.z[i] *= 0.3 * in.Radius
	}
	g.za = dot(g.z, g.a)
	return g
}

// unitVector draws a uniform direction on the sphere S^{d-1}.
func unitVector(normal func() float64, d int) []float64 {
	u := make([]float64, d)
	for {
		var n2 float64
		for i := range u {
			u[i] = normal()
			n2 += float64(u[i] * u[i])
		}
		if n2 > 0 {
			n := math.Sqrt(n2)
			for i := range u {
				u[i] /= n
			}
			return u
		}
	}
}
