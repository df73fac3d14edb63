package registry

import (
	"context"
	"fmt"
	"strings"

	"github.com/fedbandit/fedbandit/bco"
	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/outputs"
)

// bcoAlgorithms are the bandit convex optimisation family's entries, one
// per entry of bco.Algorithms, which declares them.
func bcoAlgorithms() []*Algorithm {
	var out []*Algorithm
	for _, a := range bco.Algorithms() {
		out = append(out, &Algorithm{
			Name: a.Name, Display: a.Display, Summary: a.Summary, Family: FamilyBCO,
			Trust: a.Trust, Params: a.Params, Uses: a.Uses, NewRun: runBCO, Check: checkBCO,
		})
	}
	return out
}

// bcoSpec is the family's spec of a family-neutral run spec. Absent
// header keys: M and B 1 (one silo, the paper's setting), checkpoint
// spacing DefaultEvery.
func bcoSpec(rs RunSpec) (bco.Spec, error) {
	in, err := decodeBCOTable(rs.Table)
	if err != nil {
		return bco.Spec{}, fmt.Errorf("instance: %w", err)
	}
	s := bco.Spec{Algorithm: rs.Algorithm, Instance: in.spec, Params: rs.Params, Eps: rs.Eps, Delta: rs.Delta,
		M: rs.M, B: rs.B, T: rs.T, Every: rs.Every, Seed: rs.Seed}
	if s.M == 0 {
		s.M = 1
	}
	if s.B == 0 {
		s.B = 1
	}
	if s.Every == 0 {
		s.Every = DefaultEvery(s.T)
	}
	return s, nil
}

// checkBCO checks a run spec by the family's own rules (bco.Spec.Validate).
func checkBCO(rs RunSpec) error {
	s, err := bcoSpec(rs)
	if err != nil {
		return err
	}
	return s.Validate()
}

// runBCO plays one run of the bco family (bco.Run).
func runBCO(ctx context.Context, rs RunSpec) (*core.Result, error) {
	s, err := bcoSpec(rs)
	if err != nil {
		return nil, err
	}
	return bco.Run(ctx, s)
}

var bcoKind = &Kind{
	Name: "bco", Family: FamilyBCO,
	Summary: "convex losses on the ball of radius R in R^d, one user per silo and round (docs/bco.md)",
	Keys: []Key{
		{"d", "dimension (default 10; >= 1)"},
		{"radius", "radius R of the ball, the body (default 1; > 0)"},
		{"loss", fmt.Sprintf("the loss family: one of %s (no default)", strings.Join(bco.Losses, ", "))},
		{"modulus", "strong convexity mu: > 0, required for the strongly convex losses, absent otherwise"},
		{"noise", "amplitude nu of the losses' randomness in units of R, in [0, 0.3] (default 0)"},
		{"sequence", fmt.Sprintf("%q (default: each user's level from the run's stream) or %q (an oblivious adversary fixed by the seed)", bco.Stochastic, bco.Drifting)},
		{"period", "rounds per period of the drifting sequence (>= 2; only with sequence = \"drifting\")"},
		{"seed", "instance seed: draws the direction a and the centre z (>= 0, default 0)"},
	},
	Decode: func(table map[string]any, _ string) (Instance, error) { return decodeBCOTable(table) },
}

type bcoTable struct {
	D        int     `toml:"d"`
	Radius   float64 `toml:"radius"`
	Loss     string  `toml:"loss"`
	Modulus  float64 `toml:"modulus"`
	Noise    float64 `toml:"noise"`
	Sequence string  `toml:"sequence"`
	Period   int     `toml:"period"`
	Seed     int64   `toml:"seed"`
}

// bcoInstance is a decoded bco instance: the family's instance, complete.
type bcoInstance struct{ spec bco.Instance }

func decodeBCOTable(table map[string]any) (*bcoInstance, error) {
	var t bcoTable
	set, err := decodeTable(table, &t)
	if err != nil {
		return nil, &KeyError{Msg: err.Error()}
	}
	// Absent keys take their defaults; explicit values are kept as given
	// and checked by the family (bco.Instance.Validate).
	if !set("d") {
		t.D = 10
	}
	if !set("radius") {
		t.Radius = 1
	}
	if !set("sequence") {
		t.Sequence = bco.Stochastic
	}
	if !set("loss") {
		return nil, &KeyError{Key: "loss", Msg: fmt.Sprintf("missing: want one of %s", strings.Join(bco.Losses, ", "))}
	}
	if t.Seed < 0 {
		return nil, &KeyError{Key: "seed", Msg: fmt.Sprintf("%d, want an instance seed >= 0", t.Seed)}
	}
	in := bco.Instance{D: t.D, Radius: t.Radius, Loss: t.Loss, Modulus: t.Modulus, Noise: t.Noise,
		Sequence: t.Sequence, Period: t.Period, Seed: uint64(t.Seed)}
	if err := in.Validate(); err != nil {
		return nil, keyError(err)
	}
	return &bcoInstance{spec: in}, nil
}

func (*bcoInstance) Kind() string                    { return "bco" }
func (*bcoInstance) PerM() bool                      { return false }
func (*bcoInstance) CheckM(int) error                { return nil }
func (*bcoInstance) ShareKey() string                { return "" }
func (*bcoInstance) Settings(*federate.Spec)         {}
func (y *bcoInstance) Record(rec *outputs.RunRecord) { rec.InstanceSeed = outputs.Some(y.spec.Seed) }

func (y *bcoInstance) Load(int, Env) (*Loaded, error) {
	s := y.spec
	name := fmt.Sprintf("bco d=%d R=%g loss=%s noise=%g %s seed=%d", s.D, s.Radius, s.Loss, s.Noise, s.Sequence, s.Seed)
	if s.Modulus != 0 {
		name += fmt.Sprintf(" mu=%g", s.Modulus)
	}
	if s.Period != 0 {
		name += fmt.Sprintf(" period=%d", s.Period)
	}
	return &Loaded{Hash: contentHash("fedbandit/bco/v1", s), Name: name, Dim: s.D, Actions: 1}, nil
}
