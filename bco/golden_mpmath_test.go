package bco

import (
	"math"
	"testing"

	"github.com/fedbandit/fedbandit/federate/accountant"
	"github.com/fedbandit/fedbandit/internal/golden"
)

// TestAccountantGoldenMpmath: the family's accountant against a table
// computed outside this code with mpmath at 50 digits
// (testdata/analytic_golden.py, beside the table): the analytic sigma
// (AnalyticGaussianSigma), the slides' sigma (ClassicSigma) and the eps
// the slides' sigma delivers (AnalyticGaussianEps), each to 1e-9
// relative, at eps 0.01 to 20, delta 1e-8 to 0.01 and sensitivities 2
// and 2.6; and calibrate's claim from them: certified exactly when the
// delivered eps is within the target. Mutation-checked: the classic
// formula's ln(1.25/delta) as ln(1/delta) fails it.
func TestAccountantGoldenMpmath(t *testing.T) {
	for _, v := range golden.Floats(t, "testdata/analytic_golden.csv") {
		eps, delta, sens := v[0], v[1], v[2]
		close := func(what string, got, want float64) {
			if math.Abs(got-want) > 1e-9*math.Abs(want) {
				t.Errorf("(%v, %v, sens %v): %s = %.15g, mpmath %.15g", eps, delta, sens, what, got, want)
			}
		}
		sa, err := accountant.AnalyticGaussianSigma(eps, delta, sens)
		if err != nil {
			t.Fatal(err)
		}
		close("analytic sigma", sa, v[3])
		sc := ClassicSigma(eps, delta, sens)
		close("classic sigma", sc, v[4])
		ec, err := accountant.AnalyticGaussianEps(sc, delta, sens)
		if err != nil {
			t.Fatal(err)
		}
		close("classic sigma's eps", ec, v[5])
		sigma, bound, claim, err := calibrate(eps, delta, sens, false)
		if err != nil {
			t.Fatal(err)
		}
		close("calibrate's bound", bound, v[5])
		if want := v[5] <= eps*(1+1e-9); claim.Certified != want || sigma != sc {
			t.Errorf("(%v, %v, sens %v): classic claim certified %v, want %v (mpmath eps %v)", eps, delta, sens, claim.Certified, want, v[5])
		}
	}
}
