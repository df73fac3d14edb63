package accountant

import (
	"math"
	"testing"
)

// TestUserLDP: one release per user under replacement: sensitivity
// sqrt(2 + 4) over x x^T and x y, sqrt(10) with the GLM gradient; the
// classic sigma against values computed independently (Python:
// sqrt(6) sqrt(2 ln(1.25/0.1)) and sqrt(10) ... at eps 1); the exact
// preset tight; T noise terms per published entry. The privacy review's
// M7 (GLM sensitivity sqrt 6, .ci/mutations) fails it.
func TestUserLDP(t *testing.T) {
	r := Request{Eps: 1, Delta: 0.1, M: 10, T: 1000, B: 25, D: 10, Relation: AddRemove}
	for _, c := range []struct {
		m           userLDP
		sens, sigma float64
	}{{userLDP{}, math.Sqrt(6), 5.505337749103052}, {userLDP{glm: true}, math.Sqrt(10), 7.107360472507717}} {
		golden(t, "sensitivity", c.m.sensitivity(), c.sens)
		golden(t, "classic sigma", c.m.referenceSigma(r, 0), c.sigma)
		exactIsTight(t, "user ldp", c.m, r, 1)
		if c.m.terms(r, 5) != r.T {
			t.Errorf("terms = %d, want T = %d", c.m.terms(r, 5), r.T)
		}
	}
}
