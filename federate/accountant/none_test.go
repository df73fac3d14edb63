package accountant

import (
	"math"
	"testing"
)

// TestNoPrivacy: no noise under every preset and no guarantee.
func TestNoPrivacy(t *testing.T) {
	m := noPrivacy{}
	r := Request{Eps: 1, Delta: 0.1, M: 10, T: 1000, B: 10, D: 4}
	ps, _, _ := m.paperSigma(r, 3)
	es, _, _ := m.exactSigma(r, 3)
	if m.referenceSigma(r, 100) != 0 || ps != 0 || es != 0 {
		t.Error("a non-private model adds noise")
	}
	if eps, amp, _, _ := m.delivered(r, 1, 3); !math.IsInf(eps, 1) || amp {
		t.Errorf("delivered eps %v, amplified %v: want +Inf, false", eps, amp)
	}
}
