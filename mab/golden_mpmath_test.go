package mab

import (
	"math"
	"testing"

	"github.com/fedbandit/fedbandit/internal/golden"
)

// TestSkellamGoldenMpmath: the Renyi accountant of dist-rdp-se (AKL21
// Theorem 3.5 converted by CKS20 over integer alpha 2..256: rdpToDP of
// skellamRDP) against a table computed outside this code with mpmath at
// 50 digits (testdata/skellam_golden.py, beside the table): the eps at
// delta of Skellam noise of standard deviation sigma on a query of
// sensitivity g, for g = 78, 1000, 2^16, sigma = g/e at e = 0.05 to 3
// and delta 1e-8 to 0.01, to 1e-9 relative. Mutation-checked: N14 (the
// min term dropped) and N10 (the classic conversion) fail it.
func TestSkellamGoldenMpmath(t *testing.T) {
	for _, v := range golden.Floats(t, "testdata/skellam_golden.csv") {
		g, delta, sigma, want := v[0], v[1], v[2], v[3]
		got := rdpToDP(skellamRDP(float64(sigma*sigma), g), delta, true)
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("g %v, sigma %v, delta %v: eps %.15g, mpmath %.15g", g, sigma, delta, got, want)
		}
	}
}
