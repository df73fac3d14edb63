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

// TestDiscreteGoldenMpmath: the discrete Gaussian accountant of the
// linear family (DiscreteRho on the grid Grid(sigma), the CKS20
// conversion, the exact preset's discrete sigma) against a table computed
// outside this code with mpmath at 40 digits
// (testdata/discrete_golden.py, beside the table): the exact preset's
// sigma of the silo-level tree (LDP, discrete noise, both relations, d 2
// and 10, kappa 1 and 6) and the eps that sigma = 8 delivers, each to
// 1e-9 relative, over eps 0.2, 1, 8 and delta 1e-8, 1e-5, 0.1.
// Mutation-checked: M18 (the grid's rounding not charged), N18 (the
// Gram's inflation over the packed entries) and N17 (kappa - 1 releases)
// fail it.
func TestDiscreteGoldenMpmath(t *testing.T) {
	for _, row := range goldentable.Rows(t, "testdata/discrete_golden.csv") {
		rel := row[0]
		d, kappa := int(goldentable.Num(t, row, 1)), int(goldentable.Num(t, row, 2))
		eps, delta := goldentable.Num(t, row, 3), goldentable.Num(t, row, 4)
		close := func(what string, got, want float64) {
			if math.Abs(got-want) > 1e-9*math.Abs(want) {
				t.Errorf("%s d %d kappa %d (%v, %v): %s = %.15g, mpmath %.15g", rel, d, kappa, eps, delta, what, got, want)
			}
		}
		r := Request{Preset: PresetExact, Model: ModelLDP, Noise: NoiseDiscrete, Eps: eps, Delta: delta, Relation: rel,
			M: 1, T: 1 << (kappa - 1), B: 1, D: d, R: 0.5, Crs: 1}
		c, err := Calibrate(r)
		if err != nil {
			t.Fatal(err)
		}
		if c.Kappa != kappa {
			t.Fatalf("T = %d: kappa %d, want %d", r.T, c.Kappa, kappa)
		}
		close("exact sigma", c.Sigma, goldentable.Num(t, row, 5))
		e8, _, _, err := DeliveredFor(r, 8, kappa)
		if err != nil {
			t.Fatal(err)
		}
		close("eps at sigma 8", e8, goldentable.Num(t, row, 6))
	}
}

// TestVecSumGoldenMpmath: the tight accountant of P_TVec (sdp-vec:
// VecSumGDPMu, VecSumGDPEps; docs/privacy.md 3.6) against a table
// computed outside this code with mpmath at 30 digits
// (testdata/vecsum_golden.py, beside the table): the mu of one user's
// whole release, from the binomial unit shift's mu_1 over the whole CDF,
// the encodings' distance and the composition over kappa levels of both
// streams, and its eps at delta 1e-5 and 0.1, for d 2 and 5, (M, B) (1,
// 1) and (2, 2), kappa 1 and 3, sigma 2 and 8. mu is compared with the
// table's times 1 + 1e-9 (binomialUnitMu's stated rounding up; the table's
// eps are at that mu), each to 1e-9 relative. Mutation-checked: M5 (the
// rounding term of the encodings' distance dropped) fails it.
func TestVecSumGoldenMpmath(t *testing.T) {
	for _, v := range goldentable.Floats(t, "testdata/vecsum_golden.csv") {
		d, m, b, kappa, sigma := int(v[0]), int(v[1]), int(v[2]), int(v[3]), v[4]
		for i, delta := range []float64{1e-5, 0.1} {
			r := Request{Preset: PresetExact, Model: ModelSDPVec, Delta: delta, Eps: 1, M: m, B: b, D: d}
			mu, err := VecSumGDPMu(r, sigma, kappa)
			if err != nil {
				t.Fatal(err)
			}
			if want := v[5] * (1 + 1e-9); math.Abs(mu-want) > 1e-9*want {
				t.Errorf("d %d M %d B %d kappa %d sigma %v: mu %.15g, mpmath %.15g (rounded up by 1e-9)", d, m, b, kappa, sigma, mu, want)
			}
			eps, err := VecSumGDPEps(r, sigma, kappa)
			if err != nil {
				t.Fatal(err)
			}
			if want := v[6+i]; math.Abs(eps-want) > 1e-9*want {
				t.Errorf("d %d M %d B %d kappa %d sigma %v delta %v: eps %.15g, mpmath %.15g", d, m, b, kappa, sigma, delta, eps, want)
			}
		}
	}
}
