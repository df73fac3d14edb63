package registry

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/bco"
	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/mab"
)

// TestNewRunIsTheFamilysRunMAB: the registry's run of a mab spec is the
// family's own (mab.New, core.Drive), bit for bit, its claim included,
// with the instance's absent keys at mab.DefaultInstance.
func TestNewRunIsTheFamilysRunMAB(t *testing.T) {
	rs := RunSpec{Algorithm: "dist-rdp-se", Instance: "mab", Seed: 4, T: 5000, Every: 100, Eps: 1, Delta: 1e-5,
		Params: map[string]float64{"S": 100}, Table: map[string]any{"gap": 0.5, "seed": int64(3)}}
	a, err := Lookup(rs.Algorithm)
	if err != nil || a.Family != FamilyMAB || a.Trust != core.TrustDistributed {
		t.Fatalf("%+v, %v", a, err)
	}
	got, err := a.NewRun(context.Background(), rs)
	if err != nil {
		t.Fatal(err)
	}
	in := mab.DefaultInstance()
	in.Gap, in.Seed = 0.5, 3
	p, claim, err := mab.New(mab.Spec{Algorithm: "dist-rdp-se", Eps: 1, Delta: 1e-5, T: 5000, Seed: 4,
		Params: map[string]float64{"S": 100}, Instance: in})
	if err != nil {
		t.Fatal(err)
	}
	want, err := core.Drive(context.Background(), p, 5000, 100)
	if err != nil {
		t.Fatal(err)
	}
	want.Privacy = claim
	want.Privacy.Note = withStats(claim.Note, p.(*mab.Run).Stats())
	if !strings.Contains(got.Privacy.Note, "; SecAgg: ") || !strings.HasSuffix(got.Privacy.Note, " 0 decode errors") {
		t.Errorf("note %q", got.Privacy.Note)
	}
	got.WallSeconds, want.WallSeconds = 0, 0
	if !reflect.DeepEqual(got, want) {
		t.Errorf("NewRun differs from the family's run:\n got %+v\nwant %+v", got.Privacy, want.Privacy)
	}
	if !claim.Certified || claim.Check() != nil {
		t.Errorf("claim %+v", claim)
	}
	if err := a.Check(rs); err != nil {
		t.Errorf("Check: %v", err)
	}
	rs.Params = map[string]float64{"S": 0}
	if err := a.Check(rs); err == nil || !strings.Contains(err.Error(), "S = 0") {
		t.Errorf("S = 0: %v", err)
	}
}

// TestNewRunIsTheFamilysRunBCO: likewise for bco (bco.Run), with the
// registry's defaults for absent M, B and checkpoint spacing, which
// Compile sets (the one place: an uncompiled spec, without its spacing,
// is a bug that panics). Mutation: neutralCompile without its
// DefaultEvery fails here (the spacing 0 panics in NewRun).
func TestNewRunIsTheFamilysRunBCO(t *testing.T) {
	rs := RunSpec{Algorithm: "ldp-one-point", Instance: "bco", Seed: 2, T: 3000, Eps: 1, Delta: 1e-5,
		Params: map[string]float64{"analytic": 1}, Table: map[string]any{"loss": "squared", "d": int64(5)}}
	a, _ := Lookup(rs.Algorithm)
	func() {
		defer func() {
			if recover() == nil {
				t.Error("NewRun of a spec never compiled (no checkpoint spacing) did not panic")
			}
		}()
		a.NewRun(context.Background(), rs)
	}()
	rs, err := a.Compile(rs)
	if err != nil || rs.Every != DefaultEvery(3000) {
		t.Fatalf("compiled: every %d (%v), want DefaultEvery %d", rs.Every, err, DefaultEvery(3000))
	}
	got, err := a.NewRun(context.Background(), rs)
	if err != nil {
		t.Fatal(err)
	}
	want, err := bco.Run(context.Background(), bco.Spec{Algorithm: "ldp-one-point",
		Instance: bco.Instance{D: 5, Radius: 1, Loss: "squared", Sequence: bco.Stochastic},
		Params:   map[string]float64{"analytic": 1}, Eps: 1, Delta: 1e-5, M: 1, B: 1, T: 3000, Every: DefaultEvery(3000), Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	got.WallSeconds, want.WallSeconds = 0, 0
	if !reflect.DeepEqual(got, want) {
		t.Error("NewRun differs from bco.Run of the same spec")
	}
	if p := got.Privacy; p.Trust != core.TrustLocal || !p.Certified || p.Check() != nil {
		t.Errorf("claim %+v", p)
	}
	rs.Eps = 0
	if err := a.Check(rs); err == nil || !strings.Contains(err.Error(), "eps") {
		t.Errorf("eps = 0: %v", err)
	}
}

// TestFamilyKindsDecodeStrictly: an unknown key, an out-of-range value
// or a missing required key is an error naming the key; absent keys take
// the defaults, explicit values (0 included) are kept. Mutation control:
// dropping an explicit noise_sd = 0 (the old "0 means default") fails it
// (tried 2026-11-25).
func TestFamilyKindsDecodeStrictly(t *testing.T) {
	for _, c := range []struct {
		table map[string]any
		key   string
	}{
		{map[string]any{"kind": "mab", "gap": 0.5, "arm": int64(3)}, "arm"},
		{map[string]any{"kind": "mab", "gap": 1.5}, "gap"},
		{map[string]any{"kind": "mab", "gap": 0.0}, "gap"},
		{map[string]any{"kind": "mab"}, "gap"},
		{map[string]any{"kind": "mab", "gap": 0.5, "arms": int64(1)}, "arms"},
		{map[string]any{"kind": "mab", "gap": 0.5, "noise_sd": -1.0}, "noise_sd"},
		{map[string]any{"kind": "mab", "means": []any{0.5, 1.5}}, "means"},
		{map[string]any{"kind": "mab", "gap": 0.5, "reward": "poisson"}, "reward"},
		{map[string]any{"kind": "bco", "loss": "squared", "dim": int64(3)}, "dim"},
		{map[string]any{"kind": "bco"}, "loss"},
		{map[string]any{"kind": "bco", "loss": "hinge"}, "loss"},
		{map[string]any{"kind": "bco", "loss": "squared", "d": int64(0)}, "d"},
		{map[string]any{"kind": "bco", "loss": "squared", "radius": 0.0}, "radius"},
		{map[string]any{"kind": "bco", "loss": "squared", "noise": 0.5}, "noise"},
		{map[string]any{"kind": "bco", "loss": "quadratic"}, "modulus"},
		{map[string]any{"kind": "bco", "loss": "squared", "modulus": 1.0}, "modulus"},
		{map[string]any{"kind": "bco", "loss": "squared", "sequence": "drifting"}, "period"},
	} {
		_, err := DecodeInstance(c.table, "")
		var ke *KeyError
		if !errors.As(err, &ke) || ke.Key != c.key {
			t.Errorf("%v: %v, want an error naming %q", c.table, err, c.key)
		}
	}
	in, err := DecodeInstance(map[string]any{"kind": "mab", "gap": 0.1, "noise_sd": 0.0}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := mab.DefaultInstance()
	want.Gap, want.NoiseSD = 0.1, 0
	if got := in.(*mabInstance).spec; !reflect.DeepEqual(got, want) {
		t.Errorf("mab: %+v, want %+v", got, want)
	}
	in, err = DecodeInstance(map[string]any{"kind": "bco", "loss": "quadratic", "modulus": 2.0, "d": int64(1)}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := in.(*bcoInstance).spec; got != (bco.Instance{D: 1, Radius: 1, Loss: "quadratic", Modulus: 2, Sequence: bco.Stochastic}) {
		t.Errorf("bco: %+v", got)
	}
	// The content hash is of the defaults-filled instance: an explicit
	// default is the same instance.
	a, _ := DecodeInstance(map[string]any{"kind": "bco", "loss": "squared"}, "")
	b, _ := DecodeInstance(map[string]any{"kind": "bco", "loss": "squared", "d": int64(10), "radius": 1.0}, "")
	la, _ := a.Load(0, Env{})
	lb, _ := b.Load(0, Env{})
	if la.Hash != lb.Hash {
		t.Error("an explicit default changes the instance hash")
	}
}

// TestLabelOtherFamilies: the label of a mab or bco configuration names
// the generic keys the algorithm uses and its parameters.
func TestLabelOtherFamilies(t *testing.T) {
	c := FromRunSpec(RunSpec{Algorithm: "dist-rdp-se", T: 100, Every: 10, Eps: 1, Delta: 1e-5,
		Params: map[string]float64{"S": 10, "conf": 0.1}}, "easy0", "mab K=10")
	if got, want := Label(c), "dist-rdp-se eps=1 delta=1e-05 T=100 every=10 conf=0.1 S=10 instance=easy0 (mab K=10)"; got != want {
		t.Errorf("label\n got %s\nwant %s", got, want)
	}
	c = FromRunSpec(RunSpec{Algorithm: "two-point", T: 100, Every: 1, M: 1, B: 1, Eps: 0}, "", "")
	if got, want := Label(c), "two-point M=1 B=1 T=100 every=1"; got != want {
		t.Errorf("label %q, want %q", got, want)
	}
}
