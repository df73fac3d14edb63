package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/outputs"
)

// DefaultNoiseVar is the variance of the synthetic instance's reward noise
// when its table does not set noise_var: 0.25, the paper's (0 with the
// logistic link, whose rewards are Bernoulli).
const DefaultNoiseVar = 0.25

var syntheticKind = &Kind{
	Name: federate.InstanceSynthetic, Family: FamilyLinear,
	Summary: "the paper's Gaussian instance: K random actions per silo and round, theta* drawn from the instance seed",
	Keys: []Key{
		{"d", fmt.Sprintf("feature dimension (default %d; 2 to %d)", federate.DefaultD, federate.MaxSyntheticD)},
		{"k", fmt.Sprintf("actions per silo per round (default %d; >= 1, k d at most %g)", federate.DefaultK, float64(federate.MaxSyntheticContexts))},
		{"noise_var", "variance of the Gaussian reward noise (default 0.25, 0 with link = \"logistic\"; >= 0)"},
		{"fixed_basis", "the published code's fixed first d actions (default false)"},
		{"seed", "instance seed: draws theta* (and shared contexts); >= 0 (default 0)"},
		{"shared_contexts", "draw contexts from the instance seed, as the published code (default false)"},
		{"context_gen", fmt.Sprintf("generator of the contexts: %q (default), %q or %q (the published instance)", federate.ContextsFast, federate.ContextsChaCha8, federate.ContextsNumPy)},
		{"theta", "theta* itself (d finite values, not all zero) instead of the seed's"},
		{"link", fmt.Sprintf("reward model: %q (default) or %q (Bernoulli rewards)", federate.LinkIdentity, federate.LinkLogistic)},
	},
	Columns: []string{"noise_var", "arms", "fixed_basis", "instance_seed", "shared_contexts", "context_gen"},
	Decode:  decodeSynthetic,
}

// syntheticTable is a synthetic [[instance]] table.
type syntheticTable struct {
	D              int       `toml:"d"`
	K              int       `toml:"k"`
	NoiseVar       float64   `toml:"noise_var"`
	FixedBasis     bool      `toml:"fixed_basis"`
	Seed           int64     `toml:"seed"`
	SharedContexts bool      `toml:"shared_contexts"`
	ContextGen     string    `toml:"context_gen"`
	Theta          []float64 `toml:"theta"`
	Link           string    `toml:"link"`
}

// synthetic is a decoded synthetic instance: its spec, complete.
type synthetic struct{ spec federate.SyntheticSpec }

// fieldKeys maps federate's fields of the synthetic spec to table keys.
var syntheticKeys = map[string]string{
	"Synthetic.D": "d", "Synthetic.K": "k", "Synthetic.NoiseVar": "noise_var", "Synthetic.Seed": "seed",
	"Synthetic.ContextGen": "context_gen", "Synthetic.Theta": "theta", "Synthetic.Link": "link",
}

func decodeSynthetic(table map[string]any, _ string) (Instance, error) {
	var t syntheticTable
	set, err := decodeTable(table, &t)
	if err != nil {
		return nil, tableError(err)
	}
	// Absent keys take their defaults; explicit values are kept as given
	// and checked by the kind's one set of rules (SyntheticSpec.Check).
	if !set("d") {
		t.D = federate.DefaultD
	}
	if !set("k") {
		t.K = federate.DefaultK
	}
	if !set("noise_var") && t.Link != federate.LinkLogistic {
		t.NoiseVar = DefaultNoiseVar
	}
	if !set("context_gen") {
		t.ContextGen = federate.ContextsFast
	}
	if t.Seed < 0 {
		return nil, &KeyError{Key: "seed", Msg: fmt.Sprintf("%d, want an instance seed >= 0", t.Seed)}
	}
	if set("theta") && len(t.Theta) == 0 {
		return nil, &KeyError{Key: "theta", Msg: fmt.Sprintf("empty, want d = %d values (or leave it out to draw theta* from the seed)", t.D)}
	}
	link := t.Link
	if link == federate.LinkIdentity {
		link = "" // one spelling, one instance hash
	}
	y := federate.SyntheticSpec{
		D: t.D, K: t.K, NoiseVar: t.NoiseVar, FixedBasis: t.FixedBasis, Seed: uint64(t.Seed),
		SharedContexts: t.SharedContexts, ContextGen: t.ContextGen, Theta: t.Theta, Link: link,
	}
	if err := y.Check(); err != nil {
		var fe *federate.FieldError
		if errors.As(err, &fe) {
			return nil, &KeyError{Key: syntheticKeys[fe.Field], Msg: fe.Msg}
		}
		return nil, err
	}
	return &synthetic{spec: y}, nil
}

func (*synthetic) Kind() string     { return federate.InstanceSynthetic }
func (*synthetic) PerM() bool       { return false }
func (*synthetic) CheckM(int) error { return nil }
func (*synthetic) ShareKey() string { return "" }
func (y *synthetic) Settings(s *federate.Spec) {
	s.Instance, s.Synthetic = federate.InstanceSynthetic, y.spec
}

func (y *synthetic) Load(int, Env) (*Loaded, error) {
	s := y.spec
	b, _ := json.Marshal(s)
	sum := sha256.Sum256(append([]byte("fedbandit/synthetic/v1"), b...))
	name := []string{fmt.Sprintf("synthetic d=%d K=%d noise_var=%g seed=%d", s.D, s.K, s.NoiseVar, s.Seed)}
	if s.FixedBasis {
		name = append(name, "fixed-basis")
	}
	if s.SharedContexts {
		name = append(name, "shared-contexts")
	}
	if s.ContextGen != federate.ContextsFast {
		name = append(name, "contexts="+s.ContextGen)
	}
	if len(s.Theta) > 0 {
		name = append(name, givenValues("theta", s.Theta))
	}
	if s.Link != "" {
		name = append(name, "link="+s.Link)
	}
	return &Loaded{
		Hash: hex.EncodeToString(sum[:]), Name: strings.Join(name, " "), Dim: s.D, Actions: float64(s.K),
		Value: &LinearData{Set: func(sp *federate.Spec) {
			sp.Instance, sp.Synthetic, sp.LTR = federate.InstanceSynthetic, s, nil
		}},
	}, nil
}

func (y *synthetic) Record(_ *Loaded, rec *outputs.RunRecord) {
	s := y.spec
	rec.NoiseVar, rec.Arms, rec.FixedBasis, rec.InstanceSeed, rec.SharedContexts = outputs.Some(s.NoiseVar), outputs.Some(s.K), outputs.Some(s.FixedBasis), outputs.Some(s.Seed), outputs.Some(s.SharedContexts)
	rec.ContextGen = s.ContextGen
}
