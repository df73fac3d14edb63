package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/outputs"
)

// Defaults of the dubey kind's table: the dimension of their Figure 1 A
// and B (d = 10, Section 4.4) and K = 20 actions a round.
const (
	DefaultDubeyD = 10
	DefaultDubeyK = 20
)

var dubeyKind = &Kind{
	Name: federate.InstanceDubey, Family: FamilyLinear,
	Summary: "Dubey & Pentland's instance (NeurIPS 2020, Section 4.4): theta* in the unit ball, K unit actions a round, K-1 with mean in [0.5, 0.6] and one in [0.7, 0.8], Bernoulli rewards",
	Keys: []Key{
		{"d", fmt.Sprintf("feature dimension (default %d; 2 to %d)", DefaultDubeyD, federate.MaxDubeyD)},
		{"k", fmt.Sprintf("actions per silo per round (default %d; >= 2, k d at most %g)", DefaultDubeyK, float64(federate.MaxDubeyActions))},
		{"seed", "instance seed: draws theta*; >= 0 (default 0)"},
	},
	Columns: []string{"arms", "instance_seed"},
	Decode:  decodeDubey,
}

// dubeyTable is a dubey [[instance]] table.
type dubeyTable struct {
	D    int   `toml:"d"`
	K    int   `toml:"k"`
	Seed int64 `toml:"seed"`
}

// dubeyKeys maps federate's fields of the dubey spec to table keys.
var dubeyKeys = map[string]string{"Dubey.D": "d", "Dubey.K": "k"}

// dubeyInstance is a decoded dubey instance: its spec, complete.
type dubeyInstance struct{ spec federate.DubeySpec }

func decodeDubey(table map[string]any, _ string) (Instance, error) {
	var t dubeyTable
	set, err := decodeTable(table, &t)
	if err != nil {
		return nil, tableError(err)
	}
	if !set("d") {
		t.D = DefaultDubeyD
	}
	if !set("k") {
		t.K = DefaultDubeyK
	}
	if t.Seed < 0 {
		return nil, &KeyError{Key: "seed", Msg: fmt.Sprintf("%d, want an instance seed >= 0", t.Seed)}
	}
	y := federate.DubeySpec{D: t.D, K: t.K, Seed: uint64(t.Seed)}
	if err := y.Check(); err != nil {
		var fe *federate.FieldError
		if errors.As(err, &fe) {
			return nil, &KeyError{Key: dubeyKeys[fe.Field], Msg: fe.Msg}
		}
		return nil, err
	}
	return &dubeyInstance{spec: y}, nil
}

func (*dubeyInstance) Kind() string     { return federate.InstanceDubey }
func (*dubeyInstance) PerM() bool       { return false }
func (*dubeyInstance) CheckM(int) error { return nil }
func (*dubeyInstance) ShareKey() string { return "" }

func (y *dubeyInstance) Settings(s *federate.Spec) {
	spec := y.spec
	s.Instance, s.Synthetic, s.Dubey, s.LTR = federate.InstanceDubey, federate.SyntheticSpec{}, &spec, nil
}

func (y *dubeyInstance) Load(int, Env) (*Loaded, error) {
	s := y.spec
	b, _ := json.Marshal(s)
	sum := sha256.Sum256(append([]byte("fedbandit/dubey/v1"), b...))
	return &Loaded{
		Hash: hex.EncodeToString(sum[:]), Name: fmt.Sprintf("dubey d=%d K=%d seed=%d", s.D, s.K, s.Seed),
		Dim: s.D, Actions: float64(s.K),
		Value: &LinearData{Set: y.Settings},
	}, nil
}

func (y *dubeyInstance) Record(_ *Loaded, rec *outputs.RunRecord) {
	rec.Arms, rec.InstanceSeed = outputs.Some(y.spec.K), outputs.Some(y.spec.Seed)
}
