package federate

import (
	"errors"
	"fmt"
	"maps"
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

// DefaultLazy is the learner of an algorithm when the input does not say
// (a sweep file without lazy; registry run specs): certified runs are
// lazy, so a private algorithm with a fixed schedule takes the lazy
// learner under a certifying preset (preset "" is DefaultPreset); the
// eager one is recorded as not certified (docs/privacy.md 2.1). A Go Spec's
// Lazy is always explicit.
func DefaultLazy(alg *Algorithm, preset string) bool {
	if preset == "" {
		preset = DefaultPreset
	}
	return alg.NeedsLazy() && preset != accountant.PresetReferenceCode
}

// DefaultNoClip is the reward clamp's setting when the input does not
// say: off under the reference-code preset, which reproduces the
// published code (it does not clamp), on otherwise. A Go Spec's NoClip is
// always explicit.
func DefaultNoClip(preset string) bool { return preset == accountant.PresetReferenceCode }

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
	s.Params = s.withParamDefaults()
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
	if k, err := s.kind(); err == nil {
		k.defaults(&s)
	}
	return s
}

// withParamDefaults returns the algorithm's parameters with every absent
// one at its default (a copy: the caller's map is never written). A
// default that depends on what is not known yet (the dimension of unloaded
// data) is left absent.
func (s Spec) withParamDefaults() map[string]float64 {
	a, err := LookupAlgorithm(s.Algorithm)
	if err != nil || len(a.Params) == 0 {
		return s.Params
	}
	out := make(map[string]float64, len(a.Params))
	for k, v := range s.Params {
		out[k] = v
	}
	for _, p := range a.Params {
		if _, ok := out[p.Key]; ok {
			continue
		}
		v := p.Default
		if a.paramDefault != nil {
			var ok bool
			if v, ok = a.paramDefault(s, p.Key); !ok {
				continue
			}
		}
		out[p.Key] = v
	}
	return out
}

// checkParams checks every parameter of the spec against the algorithm's
// declarations: a key it does not declare, or a value out of range, is an
// error naming the key (Field "Params.<key>").
func (s Spec) checkParams(alg *Algorithm) error {
	for _, k := range slices.Sorted(maps.Keys(s.Params)) {
		p, ok := alg.Param(k)
		if !ok {
			what := "no parameters"
			if len(alg.Params) > 0 {
				keys := make([]string, len(alg.Params))
				for i, p := range alg.Params {
					keys[i] = p.Key
				}
				what = "parameters " + quoteList(keys)
			}
			return &FieldError{Field: "Params." + k, Msg: fmt.Sprintf("%s with %s: unknown parameter (it has %s)", k, s.Algorithm, what)}
		}
		if err := p.Check(s.Params[k]); err != nil {
			return &FieldError{Field: "Params." + k, Msg: fmt.Sprintf("%v (%s)", err, s.Algorithm)}
		}
	}
	return nil
}

// Canonical returns s with every generic key its algorithm does not use
// (Algorithm.Uses) at its absent value, so that specs differing only in
// such keys are one run: a grid over alpha plans the random policy once.
// An explicit NoiseGaussian is written as the absent Noise it means (the
// same run, bit for bit), so that it keeps the run ids of the runs made
// before the key existed.
func (s Spec) Canonical() Spec {
	if s.Noise == NoiseGaussian {
		s.Noise = ""
	}
	a, err := LookupAlgorithm(s.Algorithm)
	if err != nil {
		return s
	}
	for _, k := range GenericKeys {
		if a.UsesKey(k) {
			continue
		}
		switch k {
		case "eps":
			s.Eps = 0
		case "delta":
			s.Delta = 0
		case "relation":
			s.Relation = ""
		case "protocol":
			s.Protocol = ""
		case "lazy":
			s.Lazy = false
		case "preset":
			s.Preset = ""
		case "alpha":
			s.Alpha = 0
		case "R":
			s.R = 0
		case "crs":
			s.Crs = 0
		case "gram_noise":
			s.GramNoise = ""
		case "noise":
			s.Noise = ""
		case "B": // WithDefaults sets the B of an every-round algorithm
		}
	}
	return s
}

// Dim returns the learner's feature dimension d of the spec's instance (0
// if it cannot be known; an empty Instance means synthetic, whose D
// defaults to DefaultD).
func (s Spec) Dim() int {
	if k, err := s.kind(); err == nil {
		return k.dim(s)
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
	k, err := s.kind()
	return err == nil && k.glm(s)
}

// Request returns the accountant request of the spec (call on a spec with
// defaults filled in).
func (s Spec) Request() accountant.Request {
	b := s.B
	if a, err := LookupAlgorithm(s.Algorithm); err == nil && a.AdaptiveSchedule {
		b = 1 // a synchronisation may follow any round
	}
	r, crs := s.R, s.Crs
	if a, err := LookupAlgorithm(s.Algorithm); err == nil && !a.UsesKey("R") && r == 0 {
		r = 1 // beta_t is not used: any valid constant calibrates the same
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
		R:        r,
		Crs:      crs,
		Noise:    s.accountedNoise(),
	}
}

// accountedNoise is the sampler the accountant calibrates for: P_TVec's
// binomial mechanism is the same whichever sampler draws it (noise
// "discrete" selects the exact one, accounted as the binomial it is).
func (s Spec) accountedNoise() string {
	if s.binomialNoise() {
		return ""
	}
	return s.Noise
}

// binomialNoise reports whether the spec's privacy noise is P_TVec's
// binomial noise bits rather than Gaussian releases: there noise
// "discrete" selects the exact binomial sampler, with neither a grid nor
// the discrete Gaussian's accounting.
func (s Spec) binomialNoise() bool { return s.model() == accountant.ModelSDPVec }

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
	if k, _ := s.kind(); k.data != nil {
		if err := k.data(s); err != nil {
			return err
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
func (s Spec) ValidateSettings() error { return s.WithDefaults().validateSettings() }

// Explicit fields of ValidateGiven: the fields whose zero value
// WithDefaults reads as absent.
var explicitFields = map[string]func(dst *Spec, src Spec){
	"Alpha":       func(d *Spec, s Spec) { d.Alpha = s.Alpha },
	"R":           func(d *Spec, s Spec) { d.R = s.R },
	"Crs":         func(d *Spec, s Spec) { d.Crs = s.Crs },
	"Every":       func(d *Spec, s Spec) { d.Every = s.Every },
	"Reward":      func(d *Spec, s Spec) { d.RewardLo, d.RewardHi = s.RewardLo, s.RewardHi },
	"Synthetic.D": func(d *Spec, s Spec) { d.Synthetic.D = s.Synthetic.D },
	"Synthetic.K": func(d *Spec, s Spec) { d.Synthetic.K = s.Synthetic.K },
}

// ValidateGiven is ValidateSettings for input that says which fields it
// sets (a sweep file): the given fields keep their values, zero included,
// where WithDefaults would read a zero as absent. An explicit alpha = 0 is
// therefore an error naming Alpha, not the default 0.01. Given names are
// Spec fields ("Alpha", "Every", "Synthetic.D", ...) and "Reward" for the
// clamp's pair; an unknown name panics (a programming error).
func (s Spec) ValidateGiven(given ...string) error {
	d := s.WithDefaults()
	for _, f := range given {
		set, ok := explicitFields[f]
		if !ok {
			panic("federate.ValidateGiven: unknown field " + f)
		}
		set(&d, s)
	}
	return d.validateSettings()
}

// validateSettings is ValidateSettings on a spec whose defaults are
// filled.
func (s Spec) validateSettings() error {
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
	if err := s.checkParams(alg); err != nil {
		return err
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
		lo := math.Abs(s.RewardLo)
		if mutation.On("P5-14") { // the lower end's magnitude ignored
			lo = 0
		}
		if math.Max(lo, math.Abs(s.RewardHi)) > 1 {
			return bad("RewardLo", "reward clamp [%v, %v] with %s: the bias-stream sensitivity 1 needs |y| <= 1", s.RewardLo, s.RewardHi, s.Algorithm)
		}
	}
	if !finite(s.RewardLo) || !finite(s.RewardHi) || s.RewardLo >= s.RewardHi {
		return bad("RewardLo", "reward clamp [%v, %v], want finite RewardLo < RewardHi", s.RewardLo, s.RewardHi)
	}
	if s.GramNoise != tree.Symmetrised && s.GramNoise != tree.UpperIID {
		return bad("GramNoise", "GramNoise %q, want %q or %q", s.GramNoise, tree.Symmetrised, tree.UpperIID)
	}
	kind, err := s.kind()
	if err != nil {
		return err
	}
	if err := kind.validate(s, alg); err != nil {
		return err
	}
	if s.Alpha == 0 && alg.UsesKey("alpha") {
		// Only an explicit 0 is left after WithDefaults (ValidateGiven);
		// the accountant would read it as its default.
		return bad("Alpha", "alpha = 0, want 0 < alpha < 1")
	}
	req := s.Request()
	if req.D == 0 {
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
			field = kind.dimField
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
	if l.Bernoulli && l.NoiseStd != 0 {
		return fmt.Errorf("Bernoulli rewards with NoiseStd = %v: a click has no Gaussian noise", l.NoiseStd)
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
		if l.Bernoulli {
			for r, mu := range qq.Mu {
				if !(mu >= 0 && mu <= 1) {
					return fmt.Errorf("query %d, document %d: Bernoulli mean %v, want a probability in [0, 1]", q, r+1, mu)
				}
			}
		}
	}
	return nil
}
