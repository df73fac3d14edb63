package registry

import (
	"context"
	"slices"
	"testing"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/outputs"
)

// TestEveryPrivateRunRecordsASampler: every private algorithm of every
// family, in each of its noise variants (the linear family's Gaussian and
// discrete noise; mab's per_user and reference_code), records in
// runs.arrow's sampler column (through its family's Result) one short
// name of core.Samplers, the same vocabulary in every family, and (layout
// 4) a mechanism token of core.Mechanisms, a relation token of
// core.Relations and its (eps, delta) target. Mutation
// control: dist-dp-se's entry declaring its sampler as the prose of
// before ("exact discrete Laplace (CKS20) for the batch's total") fails.
func TestEveryPrivateRunRecordsASampler(t *testing.T) {
	tables := map[string]RunSpec{
		FamilyLinear: {Instance: "synthetic", T: 40, M: 3, B: 5, Eps: 1, Delta: 0.1, Table: map[string]any{"d": int64(4), "k": int64(10)}},
		FamilyMAB:    {Instance: "mab", T: 2000, Every: 20, Eps: 1, Delta: 1e-5, Table: map[string]any{"gap": 0.5, "seed": int64(3)}},
		FamilyBCO:    {Instance: "bco", T: 200, Every: 2, M: 2, B: 1, Eps: 1, Delta: 1e-5, Table: map[string]any{"d": int64(3), "loss": "squared"}},
	}
	seen := map[string]bool{}
	for _, a := range Algorithms() {
		if !a.Private() {
			continue
		}
		base, ok := tables[a.Family]
		if !ok {
			t.Fatalf("%s: no test instance for family %s", a.Name, a.Family)
		}
		base.Algorithm = a.Name
		variants := []RunSpec{base}
		if a.UsesKey("noise") {
			v := base
			v.Noise = federate.NoiseDiscrete
			variants = append(variants, v)
		}
		for _, key := range []string{"per_user", "reference_code"} {
			if _, ok := a.Param(key); ok {
				v := base
				v.Params = map[string]float64{key: 1}
				variants = append(variants, v)
			}
		}
		for _, rs := range variants {
			res, err := a.NewRun(context.Background(), rs)
			if err != nil {
				t.Errorf("%s %v %v: %v", a.Name, rs.Noise, rs.Params, err)
				continue
			}
			rec := outputs.RunRecord{Trust: a.Trust}
			if err := a.Result(rs, res, &rec); err != nil {
				t.Errorf("%s %v %v: %v", a.Name, rs.Noise, rs.Params, err)
				continue
			}
			if !slices.Contains(core.Samplers, rec.Sampler) {
				t.Errorf("%s (%s) %v %v: sampler %q, want one of %q", a.Name, a.Family, rs.Noise, rs.Params, rec.Sampler, core.Samplers)
			}
			// Layout 4's vocabularies: a mechanism token of core.Mechanisms,
			// a relation token of core.Relations, and the target.
			if core.Mechanisms[rec.Mechanism] == "" {
				t.Errorf("%s (%s) %v %v: mechanism %q is not a token of core.Mechanisms", a.Name, a.Family, rs.Noise, rs.Params, rec.Mechanism)
			}
			if !slices.Contains(core.Relations, rec.Relation) {
				t.Errorf("%s (%s) %v %v: relation %q, want one of %q", a.Name, a.Family, rs.Noise, rs.Params, rec.Relation, core.Relations)
			}
			if rec.TargetEps == nil || rec.TargetDelta == nil {
				t.Errorf("%s (%s) %v %v: no target", a.Name, a.Family, rs.Noise, rs.Params)
			}
			seen[a.Family] = true
		}
	}
	for f := range tables {
		if !seen[f] {
			t.Errorf("no private run of family %s checked", f)
		}
	}
}
