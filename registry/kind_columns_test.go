package registry

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
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

// TestKindColumns: the runs.arrow columns of the kinds' own that a
// kind's Record fills are exactly those it declares (Kind.Columns and
// Kind.NewColumns: a shared column of outputs.Columns, Applies
// outputs.AppliesKinds, or a new one in RunRecord.KindValues, of its
// declared type), every shared column is declared by a kind and a kind
// declares no other column; and the tables' applies_to of each such
// column names exactly the kinds whose Record fills it, as found here by
// calling Record: which kinds record a column is said once, by the kinds
// (KindsRecording), and nothing in outputs names a kind.
// Mutation controls (run 2026-12-02): ltr-click's Record without the
// partition seed fails it; the kinds' registration (collectKindColumns)
// skipping the last kind that records a column fails the applies_to
// check (instance_seed without bco-ltr).
func TestKindColumns(t *testing.T) {
	checkKindColumns(t, Kinds())
}

// checkKindColumns is TestKindColumns on the registered kinds ks (with
// their samples in kindSamples).
func checkKindColumns(t *testing.T, ks []*Kind) {
	t.Helper()
	// The start-up check, again now that every init has run (a family's
	// curve metrics, registered by family.go's init, are columns too).
	if _, err := kindColumns(ks); err != nil {
		t.Error(err)
	}
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
	added := map[string]NewColumn{}
	for _, k := range ks {
		for _, c := range k.NewColumns {
			added[c.Name] = c
		}
	}
	filledBy := map[string][]string{}
	for _, k := range ks {
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
		for name, v := range rec.KindValues {
			c, ok := added[name]
			if !ok {
				t.Errorf("kind %s: Record fills %s, which no kind declares (NewColumns)", k.Name, name)
				continue
			}
			if got := fmt.Sprintf("%T", v); got != c.Type {
				t.Errorf("kind %s: Record fills %s with a %s, declared %s", k.Name, name, got, c.Type)
			}
			filled = append(filled, name)
		}
		for _, c := range k.Columns {
			if _, ok := own[c]; !ok {
				if _, ok := added[c]; !ok {
					t.Errorf("kind %s declares %s, not a column of the kinds' own (Applies %q, or a kind's NewColumns)", k.Name, c, outputs.AppliesKinds)
				}
			}
		}
		for _, c := range filled {
			filledBy[c] = append(filledBy[c], k.Name)
		}
		declared := k.Records()
		slices.Sort(declared)
		slices.Sort(filled)
		if !slices.Equal(declared, filled) {
			t.Errorf("kind %s: Record fills %v, declares %v", k.Name, filled, declared)
		}
	}
	// The tables' applies_to: the kinds found filling the column.
	for _, f := range outputs.RunsSchema(nil).Fields() {
		_, shared := own[f.Name]
		if _, ok := added[f.Name]; !ok && !shared {
			continue
		}
		applies, _ := f.Metadata.GetValue("fedbandit.applies_to")
		list, ok := strings.CutPrefix(applies, "instance kinds ")
		got := strings.Split(list, ", ")
		slices.Sort(got)
		want := slices.Sorted(slices.Values(filledBy[f.Name]))
		if !ok || !slices.Equal(got, want) {
			t.Errorf("runs.arrow column %s: applies_to %q, want the kinds whose Record fills it: %v", f.Name, applies, want)
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
