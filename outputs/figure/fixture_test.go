package figure

import (
	"slices"

	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
)

// writeTables writes hand-made runs and curves as outputs.WriteTables,
// each row first given the columns a collect never leaves null that the
// fixture does not set: its configuration's label (the group id), its
// family and trust (its algorithm's, "linear" and "none" for one the
// registry does not know), and an instance (name, kind, and a content
// hash per description, so that instances stay told apart as the
// fixture's descriptions tell them). A value the fixture sets is kept.
func writeTables(dir string, runs []outputs.RunRecord, curves []outputs.CurvePoint) error {
	rows := slices.Clone(runs)
	for i := range rows {
		r := &rows[i]
		family, trust := outputs.FamilyLinear, "none"
		if a, err := registry.Lookup(r.Algorithm); err == nil {
			family, trust = a.Family, a.Trust
		}
		for _, f := range []struct {
			p *string
			v string
		}{
			{&r.Group, r.GroupID}, {&r.Family, family}, {&r.Trust, trust},
			{&r.Instance, "fixture"}, {&r.InstanceKind, "fixture"}, {&r.InstanceName, "fixture"},
		} {
			if *f.p == "" {
				*f.p = f.v
			}
		}
		if r.InstanceHash == "" {
			r.InstanceHash = "description " + r.InstanceName
		}
	}
	return outputs.WriteTables(dir, rows, curves)
}
