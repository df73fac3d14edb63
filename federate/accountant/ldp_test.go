package accountant

import "testing"

// TestSiloLDP: the paper's and the published code's formulas against
// values computed independently (Python: sqrt(8*4*(log(2/0.1)+1)) and
// sqrt(400*(log(1/0.1)+1)) at eps 1), the exact preset tight under both
// relations and at one and several levels, and the super agent's central
// tree accounted like it with one noise source.
func TestSiloLDP(t *testing.T) {
	m := siloLDP{}
	r := Request{Eps: 1, Delta: 0.1, M: 10, T: 1000, B: 25, D: 10}
	ps, _, _ := m.paperSigma(r, 4)
	golden(t, "paper sigma (kappa 4)", ps, 11.307671411644739)
	golden(t, "reference sigma (n 400)", m.referenceSigma(r, 400), 36.346031931940225)
	for _, rel := range []string{AddRemove, ReplaceOne} {
		for _, kappa := range []int{1, 6} {
			r.Relation = rel
			exactIsTight(t, "ldp "+rel, m, r, kappa)
			exactIsTight(t, "central "+rel, centralTree{}, r, kappa)
		}
	}
	if (centralTree{}).sources(r) != 1 || m.terms(r, 6) != 6 {
		t.Error("the central tree has one noise source; a silo's entries hold one term per level")
	}
}
