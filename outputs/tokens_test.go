package outputs

import (
	"testing"

	"github.com/fedbandit/fedbandit/core"
)

// TestLayout2TokensFilled: rows upgraded from layouts 1-2 carry the
// privacy tokens those layouts did not record: every private mab and bco
// row its relation token (replace-one) with the family's words in
// relation_note, every private linear row its mechanism and sampler, as
// the layout-3 release recorded the same runs (outputs/testdata/layout1,
// mixed-layout2).
//
// Mutation control (run once): not calling layout2Tokens from
// upgradeMeanings makes every private row fail here.
func TestLayout2TokensFilled(t *testing.T) {
	wantLinear := map[string]string{"ldp": "tree-gaussian", "super-agent": "tree-gaussian", "feducb": "tree-gaussian"}
	rows := 0
	for _, dir := range []string{layout1Dir, mixedDir} {
		scan, err := ScanRuns(dir)
		if err != nil || len(scan.Invalid) != 0 {
			t.Fatalf("%s: %v %v", dir, err, scan.Invalid)
		}
		for _, f := range scan.Runs {
			r := f.Record
			if r.Trust == core.TrustNone {
				continue
			}
			rows++
			what := dir + ": " + r.Algorithm
			switch r.Family {
			case FamilyLinear:
				if r.Mechanism != wantLinear[r.Algorithm] || r.Sampler != core.SamplerGaussian || r.Relation != core.RelationAddRemove {
					t.Errorf("%s: mechanism %q sampler %q relation %q", what, r.Mechanism, r.Sampler, r.Relation)
				}
			default:
				if r.Relation != core.RelationReplaceOne || r.RelationNote != layout2Relations[r.Family] || r.Mechanism == "" {
					t.Errorf("%s: relation %q note %q mechanism %q", what, r.Relation, r.RelationNote, r.Mechanism)
				}
			}
		}
	}
	if rows != 20 {
		t.Errorf("%d private rows, want 20 (4 linear in layout1, 16 in mixed-layout2)", rows)
	}
}

// TestLayout2LinearMechanisms: a layout-2 linear row's mechanism and
// sampler follow federate's rule: the discrete Gaussian sampler's note
// makes a Gaussian mechanism discrete, sdp-vec's is binomial either way,
// and a row that names its mechanism or whose algorithm is not a private
// layout-2 one is left alone.
func TestLayout2LinearMechanisms(t *testing.T) {
	for _, c := range []struct {
		alg, note, mech, sampler string
	}{
		{"sdp-amp", "floating-point Gaussian sampler: ...", "tree-gaussian-shuffled", "gaussian"},
		{"sdp-amp", "x; " + layout2DiscreteNote + " on the grid", "tree-discrete-gaussian-shuffled", "discrete-gaussian"},
		{"ldp-linucb", layout2DiscreteNote, "user-discrete-gaussian", "discrete-gaussian"},
		{"sdp-vec", "binomial noise from the exact sampler", "tree-vecsum-binomial", "binomial"},
		{"sdp-vec", "binomial noise from gonum's sampler", "tree-vecsum-binomial", "binomial"},
		{"eps-greedy", "", "", ""},
	} {
		r := RunRecord{Family: FamilyLinear, Algorithm: c.alg, Trust: core.TrustLocal, CalibrationNote: c.note}
		r.layout2Tokens()
		if r.Mechanism != c.mech || r.Sampler != c.sampler {
			t.Errorf("%s, note %q: mechanism %q sampler %q, want %q %q", c.alg, c.note, r.Mechanism, r.Sampler, c.mech, c.sampler)
		}
		if r.Mechanism != "" && core.Mechanisms[r.Mechanism] == "" {
			t.Errorf("%s: %q is not a token of core.Mechanisms", c.alg, r.Mechanism)
		}
	}
	kept := RunRecord{Family: FamilyLinear, Algorithm: "ldp", Trust: core.TrustLocal, Mechanism: "tree-discrete-gaussian", Sampler: "discrete-gaussian"}
	kept.layout2Tokens()
	if kept.Mechanism != "tree-discrete-gaussian" || kept.Sampler != "discrete-gaussian" {
		t.Errorf("a recorded mechanism replaced: %q %q", kept.Mechanism, kept.Sampler)
	}
}
