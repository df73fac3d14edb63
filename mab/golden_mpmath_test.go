package mab

import (
	"math"
	"testing"

	"github.com/fedbandit/fedbandit/core"
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

// TestKLSGoldenMpmath: the accountant of dist-cdp-se (Kairouz, Liu &
// Steinke's Proposition 14 for the sum of n discrete Gaussians, every
// slack term summed, converted by CKS20 over the accountant's grid of
// real alpha) against a table computed outside this code with mpmath at
// 30 digits (testdata/kls_golden.py, beside the table): for S = 1 and 3,
// noise parameter e = 0.25, 1, 3, batches of n = 1, 16, 1000 and 100,001
// users and delta 1e-8 to 0.01, the batch's g and share variance s2 (the
// protocol's rules, recomputed by the script), the eps of
// rdpToDP(dgaussSumRDP(g, s2, n)) and the delivered eps batchRDP records
// for that batch, each to 1e-9 relative (n = 100,001 is the largest batch
// the code sums term by term; TestKLSSlackGolden covers the bound of the
// terms beyond). Mutation-checked: N11 (the slack dropped) and N20 (the
// share variance not divided by n) fail it.
func TestKLSGoldenMpmath(t *testing.T) {
	alg, ok := Lookup("dist-cdp-se")
	if !ok {
		t.Fatal("no dist-cdp-se")
	}
	for _, v := range golden.Floats(t, "testdata/kls_golden.csv") {
		S, e, n, delta, g, s2, want := v[0], v[1], int64(v[2]), v[3], v[4], v[5], v[6]
		if got := rdpToDP(dgaussSumRDP(g, s2, n), delta, false); math.Abs(got-want) > 1e-9*want {
			t.Errorf("g %v, s2 %v, n %d, delta %v: eps %.15g, mpmath %.15g", g, s2, n, delta, got, want)
		}
		params, err := core.Resolve(alg.Params, map[string]float64{"S": S})
		if err != nil {
			t.Fatal(err)
		}
		_, got, err := batchRDP(alg, e, delta, params, n)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("batchRDP(S %v, e %v, n %d, delta %v): delivered %.15g, mpmath %.15g (g %v, s2 %v)", S, e, n, delta, got, want, g, s2)
		}
	}
}
