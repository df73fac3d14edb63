package outputs

import "testing"

// TestSetClaimCertifiedOnlyWhenSaid: a record is certified only when its
// producer certified it (and it is private with a finite delivered eps):
// a finite delivered eps alone (a not-certified run's valid bound above
// its target) does not make it certified. Mutation-checked: P5-23
// (certified inferred from a finite delivered eps) fails it.
func TestSetClaimCertifiedOnlyWhenSaid(t *testing.T) {
	for _, c := range []struct {
		private, certified bool
		eps                float64
		want               bool
	}{
		{true, true, 1, true},
		{true, false, 1.5, false},
		{false, true, 1, false},
	} {
		var r RunRecord
		r.setClaim(c.private, c.certified, c.eps, 1e-5, "a note")
		if r.Certified != c.want || (c.private && (r.DeliveredEps == nil || *r.DeliveredEps != c.eps)) {
			t.Errorf("setClaim(private %v, certified %v, eps %v): certified %v, delivered %v; want certified %v", c.private, c.certified, c.eps, r.Certified, r.DeliveredEps, c.want)
		}
	}
}
