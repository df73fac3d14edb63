package federate

import (
	"fmt"
	"math"

	"github.com/fedbandit/fedbandit/internal/rng"
)

// The synthetic kind: the paper's Gaussian instance (SyntheticSpec).
var syntheticKind = &instanceKind{
	// A synthetic instance with SharedContexts draws its contexts from
	// the instance seed: every run of the same instance, M, T and K reads
	// the same stream.
	sharedStream: func(s Spec) (string, bool) {
		if !s.Synthetic.SharedContexts {
			return "", false
		}
		y := s.Synthetic
		theta := make([]uint64, len(y.Theta))
		for j, v := range y.Theta {
			theta[j] = math.Float64bits(v)
		}
		return fmt.Sprintf("gen=%q seed=%d M=%d T=%d K=%d d=%d fixed=%t theta=%x",
			y.ContextGen, y.Seed, s.M, s.T, y.K, y.D, y.FixedBasis, theta), true
	},
	defaults: func(s *Spec) {
		if s.Synthetic.D == 0 {
			s.Synthetic.D = DefaultD
		}
		if s.Synthetic.K == 0 {
			s.Synthetic.K = DefaultK
		}
		if s.Synthetic.ContextGen == "" {
			s.Synthetic.ContextGen = ContextsFast
		}
		if s.Synthetic.Link == LinkIdentity {
			s.Synthetic.Link = "" // one spelling, one run id
		}
		if s.R == 0 && s.Synthetic.NoiseVar > 0 {
			s.R = math.Sqrt(s.Synthetic.NoiseVar)
		}
		if s.R == 0 && s.Synthetic.Link == LinkLogistic {
			s.R = 0.5 // Bernoulli rewards are 1/2-sub-Gaussian
		}
		if s.Crs == 0 {
			s.Crs = 1
		}
	},
	dim: func(s Spec) int {
		if s.Synthetic.D == 0 {
			return DefaultD
		}
		return s.Synthetic.D
	},
	dimField: "Synthetic.D",
	glm:      func(s Spec) bool { return s.Synthetic.Link == LinkLogistic },
	validate: func(s Spec, alg *Algorithm) error {
		if err := s.Synthetic.Check(); err != nil {
			return err
		}
		if s.Synthetic.NoiseVar == 0 && s.R == 0 && s.Synthetic.Link == "" && alg.UsesKey("R") {
			return &FieldError{Field: "Synthetic.NoiseVar", Msg: "Synthetic.NoiseVar = 0 (noiseless) makes beta_t's noise scale R = sqrt(NoiseVar) = 0: give NoiseVar > 0 (the paper's is 0.25) or set R > 0"}
		}
		return nil
	},
	build: func(s Spec, runKey rng.Key) instance { return newSynthetic(s, runKey) },
}

// Bounds of a synthetic instance's size (attack round 3, K2's
// counterpart: k = 10^12 allocated the contexts before any check and died
// with "fatal error: out of memory"): D at most MaxSyntheticD (the
// learner's d x d matrices), K D at most MaxSyntheticContexts (a round's
// contexts, 800 MB at the bound).
const (
	MaxSyntheticD        = 100_000
	MaxSyntheticContexts = 100_000_000
)

// MaxThetaEntry bounds |theta*_j| of a given theta: beyond it mean rewards
// and regrets lose all precision (and overflow soon after).
const MaxThetaEntry = 1e6

// Check checks a synthetic instance's parameters as they are (no
// defaults: call it on explicit values, or after Spec.WithDefaults). It is
// the one set of rules for the kind; every error is a *FieldError naming
// the field ("Synthetic.D", ...).
func (y SyntheticSpec) Check() error {
	bad := func(field, format string, a ...any) error {
		return &FieldError{Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if y.D < 2 {
		return bad("Synthetic.D", "Synthetic.D = %d, want >= 2 (d-1 random coordinates plus the constant one)", y.D)
	}
	if y.D > MaxSyntheticD {
		return bad("Synthetic.D", "Synthetic.D = %d, want at most %d", y.D, MaxSyntheticD)
	}
	if y.K < 1 {
		return bad("Synthetic.K", "Synthetic.K = %d actions, want >= 1", y.K)
	}
	if float64(y.K)*float64(y.D) > MaxSyntheticContexts {
		return bad("Synthetic.K", "Synthetic.K = %d actions of dimension D = %d: want K D at most %g (a round's contexts are K D numbers)", y.K, y.D, float64(MaxSyntheticContexts))
	}
	switch y.ContextGen {
	case ContextsFast, ContextsChaCha8:
	case ContextsNumPy:
		if !y.FixedBasis || !y.SharedContexts {
			return bad("Synthetic.ContextGen", "Synthetic.ContextGen %q is the published instance: it needs FixedBasis and SharedContexts (fixed_basis = true, shared_contexts = true)", y.ContextGen)
		}
		if y.K <= y.D {
			return bad("Synthetic.K", "Synthetic.K = %d with ContextGen %q: want K > D = %d (the first D actions are the fixed basis)", y.K, y.ContextGen, y.D)
		}
		if y.Seed > math.MaxUint32 {
			return bad("Synthetic.Seed", "Synthetic.Seed = %d with ContextGen %q: numpy seeds are below 2^32", y.Seed, y.ContextGen)
		}
	default:
		return bad("Synthetic.ContextGen", "Synthetic.ContextGen %q, want %q, %q or %q", y.ContextGen, ContextsFast, ContextsChaCha8, ContextsNumPy)
	}
	if y.Theta != nil {
		if len(y.Theta) != y.D {
			return bad("Synthetic.Theta", "Synthetic.Theta has %d values, want D = %d", len(y.Theta), y.D)
		}
		zero := true
		for j, v := range y.Theta {
			if !finite(v) || math.Abs(v) > MaxThetaEntry {
				return bad("Synthetic.Theta", "Synthetic.Theta[%d] = %v, want finite values of magnitude <= %g", j, v, MaxThetaEntry)
			}
			zero = zero && v == 0
		}
		if zero {
			return bad("Synthetic.Theta", "Synthetic.Theta is all zero: every action would have the same mean reward and regret would be identically 0 (prep fit refuses such a theta for the same reason)")
		}
	}
	switch y.Link {
	case "":
	case LinkLogistic:
		if y.NoiseVar != 0 {
			return bad("Synthetic.NoiseVar", "Synthetic.NoiseVar = %v with Link %q: its rewards are Bernoulli, without Gaussian noise (set it to 0)", y.NoiseVar, y.Link)
		}
	default:
		return bad("Synthetic.Link", "Synthetic.Link %q, want %q or %q", y.Link, LinkIdentity, LinkLogistic)
	}
	if !finite(y.NoiseVar) || y.NoiseVar < 0 {
		return bad("Synthetic.NoiseVar", "Synthetic.NoiseVar = %v, want a finite variance >= 0", y.NoiseVar)
	}
	return nil
}
