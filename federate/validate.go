package federate

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/fedbandit/fedbandit/federate/accountant"
	"github.com/fedbandit/fedbandit/federate/tree"
	"github.com/fedbandit/fedbandit/internal/mutation"
)

// Defaults filled in by Spec.WithDefaults.
const (
	// DefaultAlpha is the UCB confidence level of the paper.
	DefaultAlpha = 0.01
	// DefaultPreset is the calibration preset used when Spec.Preset is
	// empty: the smallest noise the exact accountant certifies. (The
	// published code's preset, which produced the paper's figures, is
	// accountant.PresetReferenceCode; its runs are not certified.)
	DefaultPreset = accountant.PresetExact
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
		if s.Synthetic.Link == LinkIdentity {
			s.Synthetic.Link = "" // one spelling, one run id
		}
	}
	if s.Protocol == "" {
		s.Protocol = ProtocolP
		if a, err := LookupAlgorithm(s.Algorithm); err == nil && len(a.Protocols) > 0 {
			s.Protocol = a.Protocols[0]
		}
	}
	if s.Preset == "" {
		s.Preset = DefaultPreset
	}
	if s.Relation == "" {
		s.Relation = accountant.AddRemove
		if a, err := LookupAlgorithm(s.Algorithm); err == nil && a.Relation != "" {
			s.Relation = a.Relation
		}
	}
	if s.Alpha == 0 {
		s.Alpha = DefaultAlpha
	}
	if a, err := LookupAlgorithm(s.Algorithm); err == nil && a.EveryRound {
		// It updates every round: B = 1, the lazy learner (a sweep's
		// grid B and lazy do not apply); checkpoints every T/400 rounds.
		s.B, s.Lazy = 1, true
		if mutation.On("M9") {
			s.B = max(s.B, 25)
		}
		if s.Every == 0 {
			s.Every = max(1, s.T/400)
		}
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
		if s.R == 0 && s.Synthetic.Link == LinkLogistic {
			s.R = 0.5 // Bernoulli rewards are 1/2-sub-Gaussian
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
		if a.glmModel != "" && s.glm() {
			return a.glmModel
		}
		return a.Model
	}
	return accountant.ModelNone
}

// glm reports whether the spec's instance has a non-linear link (a
// synthetic instance with Link logistic).
func (s Spec) glm() bool {
	return (s.Instance == InstanceSynthetic || s.Instance == "") && s.Synthetic.Link == LinkLogistic
}

// Request returns the accountant request of the spec (call on a spec with
// defaults filled in).
func (s Spec) Request() accountant.Request {
	b := s.B
	if a, err := LookupAlgorithm(s.Algorithm); err == nil && a.AdaptiveSchedule {
		b = 1 // a synchronisation may follow any round
	}
	return accountant.Request{
		Preset:   s.Preset,
		Model:    s.model(),
		Eps:      s.Eps,
		Delta:    s.Delta,
		Relation: s.Relation,
		M:        s.M,
		T:        s.T,
		B:        b,
		D:        s.Dim(),
		Alpha:    s.Alpha,
		R:        s.R,
		Crs:      s.Crs,
	}
}

// FieldError is an error of Spec.Validate: the field at fault and why.
// It wraps ErrInvalidSpec. A caller that builds specs from its own input
// (the runner's sweep files) maps Field back to what the user wrote.
type FieldError struct {
	// Field is the Spec field, dotted for nested ones: "Eps", "T",
	// "Synthetic.D", "LTR", ...
	Field string
	// Msg says what is wrong; it names the field, e.g. "Eps = 0, want a
	// finite value > 0".
	Msg string
}

func (e *FieldError) Error() string { return ErrInvalidSpec.Error() + ": " + e.Msg }

// Unwrap returns ErrInvalidSpec.
func (e *FieldError) Unwrap() error { return ErrInvalidSpec }

// Validate checks a spec after filling its defaults (s.WithDefaults();
// empty fields are therefore not errors): ValidateSettings, then the
// shape of an LTR instance (silos, query sizes) but not the finiteness of
// its values, which the instance builder guarantees (and which clipping
// makes harmless anyway). Every error is a *FieldError.
func (s Spec) Validate() error {
	s = s.WithDefaults()
	if err := s.ValidateSettings(); err != nil {
		return err
	}
	if s.Instance == InstanceLTR {
		if err := s.LTR.check(s.M); err != nil {
			return &FieldError{Field: "LTR", Msg: "LTR: " + err.Error()}
		}
	}
	return nil
}

// ValidateSettings checks everything of a spec (after filling its
// defaults) except the data of an LTR instance, which may not be built
// yet: the algorithm and its own rules, the protocol, the reward clamp,
// the synthetic instance's parameters, and through the accountant's
// Request.Validate every parameter of the calibration (M, T, B, eps,
// delta, relation, alpha, R, crs, preset). It is the one set of rules
// for a run; the runner maps its errors to sweep-file keys. Every error
// is a *FieldError.
func (s Spec) ValidateSettings() error {
	s = s.WithDefaults()
	bad := func(field, format string, a ...any) error {
		return &FieldError{Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	alg, err := LookupAlgorithm(s.Algorithm)
	if err != nil {
		return bad("Algorithm", "Algorithm: %v", err)
	}
	switch s.Protocol {
	case ProtocolP, ProtocolPAlt:
	default:
		return bad("Protocol", "Protocol %q, want %q or %q", s.Protocol, ProtocolP, ProtocolPAlt)
	}
	if len(alg.Protocols) > 0 && !slices.Contains(alg.Protocols, s.Protocol) {
		return bad("Protocol", "Protocol %q with %s, want one of %s", s.Protocol, s.Algorithm, quoteList(alg.Protocols))
	}
	if alg.Relation != "" && s.Relation != alg.Relation {
		return bad("Relation", "Relation %q with %s: its guarantee is stated for %q (the shuffle model's neighbouring datasets)", s.Relation, s.Algorithm, alg.Relation)
	}
	if s.SyncThreshold != 0 && !alg.AdaptiveSchedule {
		return bad("SyncThreshold", "SyncThreshold with %s: only algorithms with an adaptive schedule (feducb) have one", s.Algorithm)
	}
	if alg.validate != nil {
		if err := alg.validate(s); err != nil {
			var fe *FieldError
			if errors.As(err, &fe) {
				return fe
			}
			return bad("Algorithm", "%v", err)
		}
	}
	if alg.Private() {
		if math.Max(math.Abs(s.RewardLo), math.Abs(s.RewardHi)) > 1 {
			return bad("RewardLo", "reward clamp [%v, %v] with %s: the bias-stream sensitivity 1 needs |y| <= 1", s.RewardLo, s.RewardHi, s.Algorithm)
		}
	}
	if !finite(s.RewardLo) || !finite(s.RewardHi) || s.RewardLo >= s.RewardHi {
		return bad("RewardLo", "reward clamp [%v, %v], want finite RewardLo < RewardHi", s.RewardLo, s.RewardHi)
	}
	if s.GramNoise != tree.Symmetrised && s.GramNoise != tree.UpperIID {
		return bad("GramNoise", "GramNoise %q, want %q or %q", s.GramNoise, tree.Symmetrised, tree.UpperIID)
	}
	switch s.Instance {
	case InstanceSynthetic:
		y := s.Synthetic
		if y.D < 2 {
			return bad("Synthetic.D", "Synthetic.D = %d, want >= 2 (d-1 random coordinates plus the constant one)", y.D)
		}
		if y.K < 1 {
			return bad("Synthetic.K", "Synthetic.K = %d actions, want >= 1", y.K)
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
		if len(y.Theta) > 0 {
			if len(y.Theta) != y.D {
				return bad("Synthetic.Theta", "Synthetic.Theta has %d values, want D = %d", len(y.Theta), y.D)
			}
			for j, v := range y.Theta {
				if !finite(v) {
					return bad("Synthetic.Theta", "Synthetic.Theta[%d] = %v, want finite values", j, v)
				}
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
		if y.NoiseVar == 0 && s.R == 0 && y.Link == "" {
			return bad("Synthetic.NoiseVar", "Synthetic.NoiseVar = 0 (noiseless) makes beta_t's noise scale R = sqrt(NoiseVar) = 0: give NoiseVar > 0 (the paper's is 0.25) or set R > 0")
		}
	case InstanceLTR:
	default:
		return bad("Instance", "Instance %q, want %q or %q", s.Instance, InstanceSynthetic, InstanceLTR)
	}
	req := s.Request()
	if s.Instance == InstanceLTR && s.LTR == nil {
		req.D = 1 // the data's dimension is checked with the data (Validate)
	}
	if _, err := req.Validate(); err != nil {
		var fe *accountant.FieldError
		if !errors.As(err, &fe) {
			return bad("Algorithm", "%v", err)
		}
		field := fe.Field
		switch field {
		case "Model":
			field = "Algorithm"
		case "D":
			field = "Synthetic.D"
			if s.Instance == InstanceLTR {
				field = "LTR"
			}
		}
		return bad(field, "%s", fe.Msg)
	}
	if s.Every < 1 {
		return bad("Every", "Every = %d, want checkpoint spacing >= 1", s.Every)
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
