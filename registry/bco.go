package registry

import (
	"context"
	"fmt"
	"strings"

	"github.com/fedbandit/fedbandit/bco"
	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/outputs"
)

// bcoAlgorithms are the bandit convex optimisation family's entries, one
// per entry of bco.Algorithms, which declares them.
func bcoAlgorithms() []*Algorithm {
	var out []*Algorithm
	for _, a := range bco.Algorithms() {
		e := &Algorithm{
			Name: a.Name, Display: a.Display, Summary: a.Summary, Family: FamilyBCO,
			Trust: a.Trust, Params: a.Params, Uses: a.Uses, NewRun: runBCO, Check: keyedCheck(checkBCO),
			Result: neutralResult, Cost: bcoCost, Pilot: bcoPilot,
		}
		e.Compile, e.ID = neutralCompile(e), neutralID(e)
		out = append(out, e)
	}
	return out
}

// bcoHeader is the family's spec of a family-neutral run spec's header
// (no instance) of a compiled spec. Absent header keys: M and B 1 (one
// silo, the paper's setting).
func bcoHeader(rs RunSpec) bco.Spec {
	s := bco.Spec{Algorithm: rs.Algorithm, Params: rs.Params, Eps: rs.Eps, Delta: rs.Delta,
		M: rs.M, B: rs.B, T: rs.T, Every: rs.CheckpointEvery(), Seed: rs.Seed}
	if s.M == 0 {
		s.M = 1
	}
	if s.B == 0 {
		s.B = 1
	}
	return s
}

// bcoSpec is the family's spec of a family-neutral run spec on a
// synthetic (kind "bco") instance.
func bcoSpec(rs RunSpec) (bco.Spec, error) {
	in, err := loadedValue[bco.Instance](rs, FamilyBCO)
	if err != nil {
		return bco.Spec{}, err
	}
	s := bcoHeader(rs)
	s.Instance = in
	return s, nil
}

// checkBCO checks a run spec by the family's own rules (bco.Spec.Validate,
// bco.LTRSpec.Validate on a bco-ltr instance).
func checkBCO(rs RunSpec) error {
	l, err := rs.Load(Env{})
	if err != nil {
		return err
	}
	rs.Loaded = l
	if in, ok := l.Value.(bco.LTRInstance); ok {
		return bcoLTRSpec(rs, in).Validate()
	}
	s, err := bcoSpec(rs)
	if err != nil {
		return err
	}
	return s.Validate()
}

// runBCO plays one run of the bco family (bco.Run, bco.RunLTR on a
// bco-ltr instance).
func runBCO(ctx context.Context, rs RunSpec) (*core.Result, error) {
	l, err := rs.Load(Env{})
	if err != nil {
		return nil, err
	}
	rs.Loaded = l
	if in, ok := l.Value.(bco.LTRInstance); ok {
		return bco.RunLTR(ctx, bcoLTRSpec(rs, in))
	}
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
		{"d", "dimension (default 10; 1 to 1000000)"},
		{"radius", "radius R of the ball, the body (default 1; 1e-50 to 1e100)"},
		{"loss", fmt.Sprintf("the loss family: one of %s (no default)", strings.Join(bco.Losses, ", "))},
		{"modulus", "strong convexity mu: 1e-50 to 1e100, required for the strongly convex losses, absent otherwise"},
		{"noise", "amplitude nu of the losses' randomness in units of R, in [0, 0.3] (default 0)"},
		{"sequence", fmt.Sprintf("%q (default: each user's level from the run's stream) or %q (an oblivious adversary fixed by the seed)", bco.Stochastic, bco.Drifting)},
		{"period", "rounds per period of the drifting sequence (>= 2; only with sequence = \"drifting\")"},
		{"seed", "instance seed: draws the direction a and the centre z (>= 0, default 0)"},
	},
	Columns: []string{"instance_seed"},
	Decode:  func(table map[string]any, _ string) (Instance, error) { return decodeBCOTable(table) },
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
		return nil, tableError(err)
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

func (*bcoInstance) Kind() string     { return "bco" }
func (*bcoInstance) PerM() bool       { return false }
func (*bcoInstance) CheckM(int) error { return nil }
func (*bcoInstance) ShareKey() string { return "" }
func (y *bcoInstance) Record(_ *Loaded, rec *outputs.RunRecord) {
	rec.InstanceSeed = outputs.Some(y.spec.Seed)
}

func (y *bcoInstance) Load(int, Env) (*Loaded, error) {
	s := y.spec
	name := fmt.Sprintf("bco d=%d R=%g loss=%s noise=%g %s seed=%d", s.D, s.Radius, s.Loss, s.Noise, s.Sequence, s.Seed)
	if s.Modulus != 0 {
		name += fmt.Sprintf(" mu=%g", s.Modulus)
	}
	if s.Period != 0 {
		name += fmt.Sprintf(" period=%d", s.Period)
	}
	return &Loaded{Hash: contentHash("fedbandit/bco/v1", s), Name: name, Dim: s.D, Actions: 1, Value: s}, nil
}

// bcoRate is the bco family's model speed: coordinate operations (one
// user's gradient estimate, loss and step in d dimensions) per second of
// one core, a round figure of ldp-one-point at d = 1e6 (22 ns per
// coordinate: a Gaussian direction drawn, the loss, the step and the
// projection); `run plan` measures each class instead.
const bcoRate = 4.5e7

// bcoCost is the bco family's cost model: M T d coordinate operations,
// and per silo three d-vectors (iterate, direction, report) and three
// random streams, and the curve. A round's cost depends on the
// algorithm, its parameters, d, M, B, the loss and the sequence, not on
// the instance's seed: instances differing only in it are one class.
func bcoCost(rs RunSpec) Cost {
	d := 0
	hash := ""
	if rs.Loaded != nil {
		d, hash = rs.Loaded.Dim, "instance="+rs.Loaded.Hash
		if in, ok := rs.Loaded.Value.(bco.Instance); ok {
			hash = fmt.Sprintf("loss=%s noise=%g sequence=%s", in.Loss, in.Noise, in.Sequence)
		}
	}
	m := max(rs.M, 1)
	points := int64(rs.T/max(rs.Every, 1) + 1)
	c := Cost{
		Work: float64(m) * float64(rs.T) * float64(d), Unit: "coordinate operations (sum of M T d)", Rate: bcoRate,
		Bytes: int64(m)*(24*int64(d)+1024) + 32*points + 1<<20,
		Class: fmt.Sprintf("%s params=%v kind=%s %s d=%d M=%d B=%d", rs.Algorithm, rs.Params, rs.Instance, hash, d, m, rs.B),
	}
	if rs.Loaded != nil {
		if in, ok := rs.Loaded.Value.(bco.LTRInstance); ok {
			every := rs.CheckpointEvery()
			sec, b := in.HindsightCost(m, rs.T, every)
			c.Bytes += b
			if sec > 0 {
				c.MemoSeconds, c.MemoKey = sec, fmt.Sprintf("bco-ltr hindsight instance=%s M=%d every=%d", rs.Loaded.Hash, m, every)
			}
		}
	}
	return c
}

// bcoPilotRounds is the least length of a bco pilot: a run's set-up (its
// tuning, d-vectors per silo) is paid once, so that a pilot of a few
// rounds would charge it to every round (at d = 1e6, 4 rounds measured a
// run 32% dearer than it is; 16 rounds, 8%).
const bcoPilotRounds = 16

// bcoPilot is rs over the rounds that take about work coordinate
// operations (at least bcoPilotRounds and two batches, at most T), one
// checkpoint: a round's work does not depend on t.
func bcoPilot(rs RunSpec, work float64) RunSpec {
	c := bcoCost(rs)
	perRound := c.Work / float64(max(rs.T, 1))
	rounds := min(max(int(work/max(perRound, 1)), 2*max(rs.B, 1), bcoPilotRounds), rs.T)
	rs.T, rs.Every = rounds, rounds
	return rs
}
