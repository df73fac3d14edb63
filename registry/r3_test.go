package registry

import (
	"errors"
	"strings"
	"testing"
)

// decodeErr decodes one [[instance]] table and returns its error as a
// *KeyError (nil when it decodes).
func decodeErr(t *testing.T, table map[string]any) *KeyError {
	t.Helper()
	_, err := DecodeInstance(table, "")
	if err == nil {
		return nil
	}
	var ke *KeyError
	if !errors.As(err, &ke) {
		t.Fatalf("%v: %v is not a *KeyError", table, err)
	}
	return ke
}

// TestR3_W7W8W9MABKeysThatDoNotApply (attack round 3, cases W7, W8, W9):
// a mab table with means refuses gap (gap = 0 included), means_from and
// seed, which draw means it does not draw (before, each changed the
// instance hash and the run ids, not the runs); reward = "bernoulli"
// refuses noise_sd (ignored, but hashed); means that are all equal, or a
// gap whose drawn means all round to 0.5, are refused (regret
// identically 0). Each error names the key.
func TestR3_W7W8W9MABKeysThatDoNotApply(t *testing.T) {
	means := []any{0.2, 0.5}
	for _, tc := range []struct {
		table map[string]any
		key   string
	}{
		{map[string]any{"kind": "mab", "means": means, "gap": 0.0}, "gap"},
		{map[string]any{"kind": "mab", "means": means, "means_from": "bogus"}, "means_from"},
		{map[string]any{"kind": "mab", "means": means, "means_from": "chacha8"}, "means_from"},
		{map[string]any{"kind": "mab", "means": means, "seed": int64(3)}, "seed"},
		{map[string]any{"kind": "mab", "gap": 0.5, "reward": "bernoulli", "noise_sd": 0.1}, "noise_sd"},
		{map[string]any{"kind": "mab", "means": means, "reward": "bernoulli", "noise_sd": 5.0}, "noise_sd"},
		{map[string]any{"kind": "mab", "gap": 1e-300}, "gap"},
		{map[string]any{"kind": "mab", "arms": int64(1_000_000_000_000), "gap": 0.5}, "arms"},
	} {
		ke := decodeErr(t, tc.table)
		if ke == nil || ke.Key != tc.key {
			t.Errorf("%v: %v, want an error naming %s", tc.table, ke, tc.key)
		}
	}
	if ke := decodeErr(t, map[string]any{"kind": "mab", "means": []any{0.5, 0.5, 0.5}}); ke == nil || ke.Key != "means" || !strings.Contains(ke.Msg, "every arm's mean is 0.5") {
		t.Errorf("means [0.5, 0.5, 0.5]: %v", ke)
	}
	// What applies still decodes.
	for _, table := range []map[string]any{
		{"kind": "mab", "means": means},
		{"kind": "mab", "means": means, "reward": "bernoulli"},
		{"kind": "mab", "means": means, "noise_sd": 0.2},
		{"kind": "mab", "gap": 0.5, "seed": int64(3), "means_from": "numpy-legacy", "noise_sd": 0.0},
	} {
		if ke := decodeErr(t, table); ke != nil {
			t.Errorf("%v: %v", table, ke)
		}
	}
}

// TestR3_W1ExplicitListsAreTheirOwnClass (case W1): two mab instances
// with other explicit means, or two synthetic instances with other
// explicit theta, had one description ("means=given", "theta=given"), so
// that `--over instance` averaged them as one class. The description
// now spells the values (a hash beyond eight), so their classes differ
// and the legend says what the class is; instances that differ in their
// seed only are still one class.
func TestR3_W1ExplicitListsAreTheirOwnClass(t *testing.T) {
	desc := func(table map[string]any) string {
		t.Helper()
		in, err := DecodeInstance(table, "")
		if err != nil {
			t.Fatal(err)
		}
		l, err := in.Load(0, Env{})
		if err != nil {
			t.Fatal(err)
		}
		return l.Name
	}
	wide := desc(map[string]any{"kind": "mab", "means": []any{0.1, 0.9}})
	narrow := desc(map[string]any{"kind": "mab", "means": []any{0.49, 0.5}})
	if InstanceClass(wide) == InstanceClass(narrow) || !strings.Contains(wide, "means=[0.1,0.9]") {
		t.Errorf("mab classes: %q and %q", wide, narrow)
	}
	long := make([]any, 20)
	for i := range long {
		long[i] = float64(i) / 20
	}
	if d := desc(map[string]any{"kind": "mab", "means": long}); !strings.Contains(d, "means=sha256:") {
		t.Errorf("20 means: %q", d)
	}
	a := desc(map[string]any{"kind": "synthetic", "d": int64(2), "theta": []any{0.5, 0.5}})
	b := desc(map[string]any{"kind": "synthetic", "d": int64(2), "theta": []any{0.01, 0.01}})
	if InstanceClass(a) == InstanceClass(b) || !strings.Contains(a, "theta=[0.5,0.5]") {
		t.Errorf("synthetic classes: %q and %q", a, b)
	}
	s0 := desc(map[string]any{"kind": "synthetic", "d": int64(2), "theta": []any{0.5, 0.5}, "seed": int64(1)})
	if InstanceClass(a) != InstanceClass(s0) {
		t.Errorf("seeds only: %q and %q", a, s0)
	}
	e1 := desc(map[string]any{"kind": "mab", "gap": 0.5, "seed": int64(1)})
	e2 := desc(map[string]any{"kind": "mab", "gap": 0.5, "seed": int64(2)})
	if InstanceClass(e1) != InstanceClass(e2) {
		t.Errorf("mab seeds only: %q and %q", e1, e2)
	}
}

// TestR3_U4TypeErrorsNameKeyAndValue (case U4): a value of the wrong type
// in an [[instance]] table gave "toml: line 1 (last key "arms"):
// incompatible types: ..." with the line of an internal re-encoding of
// the table. The error names the key and the value as the file spells
// it, with no line number, for every kind.
func TestR3_U4TypeErrorsNameKeyAndValue(t *testing.T) {
	for _, tc := range []struct {
		table    map[string]any
		key, msg string
	}{
		{map[string]any{"kind": "mab", "gap": 0.5, "noise_sd": 0.1, "seed": int64(3), "arms": "4"}, "arms", `"4": want an integer`},
		{map[string]any{"kind": "mab", "gap": 0.5, "seed": 1.5}, "seed", "1.5: want an integer"},
		{map[string]any{"kind": "mab", "gap": "0.5"}, "gap", `"0.5": want a number`},
		{map[string]any{"kind": "mab", "means": []any{0.5, "x"}}, "means", `[0.5, "x"]: want a list of numbers`},
		{map[string]any{"kind": "mab", "means": 0.5}, "means", "0.5: want a list of numbers"},
		{map[string]any{"kind": "bco", "loss": "absolute", "d": 3.5}, "d", "3.5: want an integer"},
		{map[string]any{"kind": "bco", "loss": int64(1)}, "loss", "1: want a string"},
		{map[string]any{"kind": "synthetic", "d": int64(2), "fixed_basis": "yes"}, "fixed_basis", `"yes": want true or false`},
		{map[string]any{"kind": "ltr", "dataset": int64(5)}, "dataset", "5: want a string"},
	} {
		ke := decodeErr(t, tc.table)
		if ke == nil || ke.Key != tc.key || ke.Msg != tc.msg {
			t.Errorf("%v: %v, want %s: %s", tc.table, ke, tc.key, tc.msg)
		}
	}
	// An integer fills a float key.
	if ke := decodeErr(t, map[string]any{"kind": "mab", "gap": int64(1)}); ke != nil {
		t.Errorf("gap = 1: %v", ke)
	}
}
