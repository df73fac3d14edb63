package registry

import (
	"reflect"
	"slices"
	"testing"

	"github.com/fedbandit/fedbandit/outputs"
)

// kindSamples are, per kind, an [[instance]] table (kind removed) whose
// Record fills every column the kind declares (TestKindColumns). A new
// kind adds its sample from its own test file (an init function, as
// kind_ltr_click_test.go does).
var kindSamples = map[string]func(t *testing.T) map[string]any{
	"synthetic": func(*testing.T) map[string]any { return map[string]any{"d": int64(4), "k": int64(10)} },
	"dubey":     func(*testing.T) map[string]any { return map[string]any{} },
	"mab":       func(*testing.T) map[string]any { return map[string]any{"gap": 0.5} },
	"bco":       func(*testing.T) map[string]any { return map[string]any{"loss": "squared"} },
	"ltr": func(t *testing.T) map[string]any {
		return map[string]any{"dataset": tinyDataset(t, 46, letorRows), "features": "all"}
	},
	"mab-ltr": func(t *testing.T) map[string]any {
		return map[string]any{"dataset": tinyDataset(t, 46, letorRows), "query": int64(7), "click_model": "perfect"}
	},
	"bco-ltr": func(t *testing.T) map[string]any {
		return map[string]any{"dataset": tinyDataset(t, 46, letorRows), "features": "all", "loss": "squared"}
	},
}

// TestKindColumns: the runs.arrow columns of a kind's own (Applies
// outputs.AppliesKinds) that its Record fills are exactly those it
// declares (Kind.Columns), every such column is declared by a kind, and a
// kind declares no other column: which kinds record a column is said once,
// by the kinds (KindsRecording), and nothing in outputs names a kind.
// Mutation control (run 2026-12-02): ltr-click's Record without the
// partition seed fails it.
func TestKindColumns(t *testing.T) {
	own := map[string]outputs.Column[outputs.RunRecord]{}
	for _, c := range outputs.Columns {
		if c.Applies == outputs.AppliesKinds {
			own[c.Name] = c
		}
	}
	for name := range own {
		if len(KindsRecording(name)) == 0 {
			t.Errorf("column %s: no kind declares it (Kind.Columns)", name)
		}
	}
	for _, k := range Kinds() {
		sample, ok := kindSamples[k.Name]
		if !ok {
			t.Errorf("kind %s: no sample table in kindSamples", k.Name)
			continue
		}
		in, err := k.Decode(sample(t), "")
		if err != nil {
			t.Fatalf("kind %s: %v", k.Name, err)
		}
		var rec outputs.RunRecord
		in.Record(&Loaded{Dim: 5}, &rec)
		var filled []string
		for _, c := range outputs.Columns {
			if _, ok := own[c.Name]; ok && !null(c.Get(&rec)) {
				filled = append(filled, c.Name)
			}
		}
		for _, c := range k.Columns {
			if _, ok := own[c]; !ok {
				t.Errorf("kind %s declares %s, not a column of a kind's own (Applies %q)", k.Name, c, outputs.AppliesKinds)
			}
		}
		declared := slices.Clone(k.Columns)
		slices.Sort(declared)
		slices.Sort(filled)
		if !slices.Equal(declared, filled) {
			t.Errorf("kind %s: Record fills %v, declares %v", k.Name, filled, declared)
		}
	}
}

// null reports whether a column's value (a pointer) is null: a nil
// pointer, or an empty string.
func null(v any) bool {
	p := reflect.ValueOf(v)
	if p.IsNil() {
		return true
	}
	s, ok := v.(*string)
	return ok && *s == ""
}
