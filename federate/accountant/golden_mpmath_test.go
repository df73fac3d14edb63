package accountant

import (
	"math"
	"testing"

	goldentable "github.com/fedbandit/fedbandit/internal/golden"
)

// TestGDPGoldenMpmath: the Gaussian-DP accountant against a table
// computed outside this code with mpmath at 50 digits
// (testdata/gdp_golden.py, the script beside the table): the largest mu
// that is (eps, delta)-DP (GDPMu), the eps that mu = 0.5 delivers
// (GDPEps), and the exact preset's sigma of the silo-level tree (LDP,
// both relations, kappa 1, 6 and 11 levels), each to 1e-9 relative, over
// eps 0.05, 1, 8 and delta 1e-8, 1e-5, 0.1. Mutation-checked: the
// replace-one bias sensitivity sqrt 2 instead of 2 (the review's P5-16)
// and the Gram's sqrt 2 taken as 1 fail it.
func TestGDPGoldenMpmath(t *testing.T) {
	for _, row := range goldentable.Rows(t, "testdata/gdp_golden.csv") {
		rel, eps, delta := row[0], goldentable.Num(t, row, 2), goldentable.Num(t, row, 3)
		kappa := int(goldentable.Num(t, row, 1))
		close := func(what string, got, want float64) {
			if math.Abs(got-want) > 1e-9*math.Abs(want) {
				t.Errorf("%s kappa %d (%v, %v): %s = %.15g, mpmath %.15g", rel, kappa, eps, delta, what, got, want)
			}
		}
		mu, err := GDPMu(eps, delta)
		if err != nil {
			t.Fatal(err)
		}
		close("GDPMu", mu, goldentable.Num(t, row, 4))
		e, err := GDPEps(0.5, delta)
		if err != nil {
			t.Fatal(err)
		}
		close("GDPEps(0.5)", e, goldentable.Num(t, row, 6))
		K := 1 << (kappa - 1) // kappa = 1 + floor(log2 K) levels
		c, err := Calibrate(Request{Preset: PresetExact, Model: ModelLDP, Eps: eps, Delta: delta, Relation: rel, M: 1, T: K, B: 1, D: 4, R: 0.5, Crs: 1})
		if err != nil {
			t.Fatal(err)
		}
		if c.Kappa != kappa {
			t.Fatalf("K = %d: kappa %d, want %d", K, c.Kappa, kappa)
		}
		close("exact sigma", c.Sigma, goldentable.Num(t, row, 5))
		close("delivered eps", c.DeliveredEps, eps)
	}
}
