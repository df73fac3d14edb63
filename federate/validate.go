package federate

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/fedbandit/fedbandit/federate/accountant"
	"github.com/fedbandit/fedbandit/federate/tree"
)

// Defaults filled in by Spec.WithDefaults.
const (
	// DefaultAlpha is the UCB confidence level of the paper.
	DefaultAlpha = 0.01
	// DefaultPreset is the calibration preset used when Spec.Preset is
	// empty: the published code's, which produced the paper's figures.
	DefaultPreset = accountant.PresetReferenceCode
	// DefaultD and DefaultK are the synthetic instance's dimension and
	// number of actions in the paper (Section 6).
	DefaultD, DefaultK = 10, 100
)

// ErrInvalidSpec is wrapped by every error of Spec.Validate.
var ErrInvalidSpec = errors.New("invalid spec")

// WithDefaults returns s with empty fields set to their defaults: Instance
// synthetic, Synthetic.D = 10 and K = 100, Protocol P, Preset
// reference-code, Relation add-remove, Alpha 0.01, Every = B, GramNoise
// symmetrised, reward clamp [0, 1], and R, Crs from the instance (see the
// field docs). NoiseVar is never defaulted (0 is a valid noiseless
// instance).
func (s Spec) WithDefaults() Spec {
	if s.Instance == "" {
		s.Instance = InstanceSynthetic
	}
	if s.Instance == InstanceSynthetic {
		if s.Synthetic.D == 0 {
			s.Synthetic.D = DefaultD
		}
		if s.Synthetic.K == 0 {
			s.Synthetic.K = DefaultK
		}
		if s.Synthetic.ContextGen == "" {
			s.Synthetic.ContextGen = ContextsFast
		}
	}
	if s.Protocol == "" {
		s.Protocol = ProtocolP
	}
	if s.Preset == "" {
		s.Preset = DefaultPreset
	}
	if s.Relation == "" {
		s.Relation = accountant.AddRemove
	}
	if s.Alpha == 0 {
		s.Alpha = DefaultAlpha
	}
	if s.Every == 0 {
		s.Every = s.B
	}
	if s.GramNoise == "" {
		s.GramNoise = tree.Symmetrised
	}
	if s.RewardLo == 0 && s.RewardHi == 0 {
		s.RewardHi = 1
	}
	switch s.Instance {
	case InstanceSynthetic:
		if s.R == 0 && s.Synthetic.NoiseVar > 0 {
			s.R = math.Sqrt(s.Synthetic.NoiseVar)
		}
		if s.Crs == 0 {
			s.Crs = 1
		}
	case InstanceLTR:
		if s.LTR != nil {
			if s.R == 0 {
				s.R = s.LTR.R
			}
			if s.Crs == 0 {
				s.Crs = s.LTR.Crs
			}
		}
		if s.R == 0 {
			s.R = 1
		}
		if s.Crs == 0 {
			s.Crs = 0.1
		}
	}
	return s
}

// Dim returns the learner's feature dimension d of the spec's instance (0
// if it cannot be known; an empty Instance means synthetic, whose D
// defaults to DefaultD).
func (s Spec) Dim() int {
	switch s.Instance {
	case InstanceSynthetic, "":
		if s.Synthetic.D == 0 {
			return DefaultD
		}
		return s.Synthetic.D
	case InstanceLTR:
		if s.LTR != nil {
			return s.LTR.Dim
		}
	}
	return 0
}

// Private reports whether the spec's algorithm adds privacy noise (false
// for an unknown algorithm, which Validate rejects).
func (s Spec) Private() bool {
	a, err := LookupAlgorithm(s.Algorithm)
	return err == nil && a.Private()
}

// model returns the accountant's privacy model of the spec's algorithm.
func (s Spec) model() string {
	if a, err := LookupAlgorithm(s.Algorithm); err == nil {
		return a.Model
	}
	return accountant.ModelNone
}

// Request returns the accountant request of the spec (call on a spec with
// defaults filled in).
func (s Spec) Request() accountant.Request {
	return accountant.Request{
		Preset:   s.Preset,
		Model:    s.model(),
		Eps:      s.Eps,
		Delta:    s.Delta,
		Relation: s.Relation,
		M:        s.M,
		T:        s.T,
		B:        s.B,
		D:        s.Dim(),
		Alpha:    s.Alpha,
		R:        s.R,
		Crs:      s.Crs,
	}
}

// Validate checks a spec after filling its defaults (s.WithDefaults();
// empty fields are therefore not errors). Every error wraps ErrInvalidSpec
// and names the offending field. It checks the shape of an LTR instance
// (silos, query sizes) but not the finiteness of its values, which the
// instance builder guarantees (and which clipping makes harmless anyway).
func (s Spec) Validate() error {
	s = s.WithDefaults()
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidSpec, fmt.Sprintf(format, a...))
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	alg, err := LookupAlgorithm(s.Algorithm)
	if err != nil {
		return bad("Algorithm: %v", err)
	}
	switch s.Protocol {
	case ProtocolP, ProtocolPAlt:
	default:
		return bad("Protocol %q, want %q or %q", s.Protocol, ProtocolP, ProtocolPAlt)
	}
	if len(alg.Protocols) > 0 && !slices.Contains(alg.Protocols, s.Protocol) {
		return bad("Protocol %q with %s, want one of %s", s.Protocol, s.Algorithm, quoteList(alg.Protocols))
	}
	if alg.validate != nil {
		if err := alg.validate(s); err != nil {
			return bad("%v", err)
		}
	}
	if s.M < 1 {
		return bad("M = %d silos, want >= 1", s.M)
	}
	if s.B < 1 {
		return bad("B = %d, want batch size >= 1", s.B)
	}
	if s.T < s.B {
		return bad("T = %d < B = %d: no synchronisation would ever happen", s.T, s.B)
	}
	if s.Every < 1 {
		return bad("Every = %d, want checkpoint spacing >= 1", s.Every)
	}
	if !finite(s.Alpha) || s.Alpha <= 0 || s.Alpha >= 1 {
		return bad("Alpha = %v, want 0 < alpha < 1", s.Alpha)
	}
	if s.Private() {
		if !finite(s.Eps) || s.Eps <= 0 {
			return bad("Eps = %v, want a finite value > 0", s.Eps)
		}
		if !finite(s.Delta) || s.Delta <= 0 || s.Delta >= 1 {
			return bad("Delta = %v, want 0 < delta < 1", s.Delta)
		}
		if s.NoClip {
			return bad("NoClip with %s: a private algorithm must clamp rewards (its sensitivity depends on it)", s.Algorithm)
		}
		if math.Max(math.Abs(s.RewardLo), math.Abs(s.RewardHi)) > 1 {
			return bad("reward clamp [%v, %v] with %s: the bias-stream sensitivity 1 needs |y| <= 1", s.RewardLo, s.RewardHi, s.Algorithm)
		}
	}
	if !finite(s.RewardLo) || !finite(s.RewardHi) || s.RewardLo >= s.RewardHi {
		return bad("reward clamp [%v, %v], want finite RewardLo < RewardHi", s.RewardLo, s.RewardHi)
	}
	if s.GramNoise != tree.Symmetrised && s.GramNoise != tree.UpperIID {
		return bad("GramNoise %q, want %q or %q", s.GramNoise, tree.Symmetrised, tree.UpperIID)
	}
	if !finite(s.R) || s.R <= 0 {
		return bad("R = %v, want a finite reward-noise scale > 0 (set it explicitly for a noiseless synthetic instance)", s.R)
	}
	if !finite(s.Crs) || s.Crs <= 0 {
		return bad("Crs = %v, want a finite multiplier > 0", s.Crs)
	}
	switch s.Instance {
	case InstanceSynthetic:
		y := s.Synthetic
		if y.D < 2 {
			return bad("Synthetic.D = %d, want >= 2 (d-1 random coordinates plus the constant one)", y.D)
		}
		if y.K < 1 {
			return bad("Synthetic.K = %d actions, want >= 1", y.K)
		}
		if y.ContextGen != ContextsFast && y.ContextGen != ContextsChaCha8 {
			return bad("Synthetic.ContextGen %q, want %q or %q", y.ContextGen, ContextsFast, ContextsChaCha8)
		}
		if !finite(y.NoiseVar) || y.NoiseVar < 0 {
			return bad("Synthetic.NoiseVar = %v, want a finite variance >= 0", y.NoiseVar)
		}
	case InstanceLTR:
		if err := s.LTR.check(s.M); err != nil {
			return fmt.Errorf("%w: LTR: %w", ErrInvalidSpec, err)
		}
	default:
		return bad("Instance %q, want %q or %q", s.Instance, InstanceSynthetic, InstanceLTR)
	}
	return nil
}

// check validates the shape of an LTR instance for M silos.
func (l *LTRData) check(m int) error {
	if l == nil {
		return errors.New("no data (Spec.LTR is nil)")
	}
	if l.Dim < 1 {
		return fmt.Errorf("Dim = %d, want >= 1", l.Dim)
	}
	if !(l.NoiseStd >= 0) || math.IsInf(l.NoiseStd, 0) {
		return fmt.Errorf("NoiseStd = %v, want a finite value >= 0", l.NoiseStd)
	}
	if len(l.Silos) != m {
		return fmt.Errorf("%d silos in the data, spec has M = %d", len(l.Silos), m)
	}
	for i, qs := range l.Silos {
		if len(qs) == 0 {
			return fmt.Errorf("silo %d owns no query", i)
		}
		for _, q := range qs {
			if q < 0 || q >= len(l.Queries) {
				return fmt.Errorf("silo %d: query index %d out of range [0, %d)", i, q, len(l.Queries))
			}
		}
	}
	for q, qq := range l.Queries {
		n := len(qq.Mu)
		if n == 0 {
			return fmt.Errorf("query %d has no document", q)
		}
		if len(qq.X) != n*l.Dim {
			return fmt.Errorf("query %d: len(X) = %d, want %d docs x %d features", q, len(qq.X), n, l.Dim)
		}
	}
	return nil
}
