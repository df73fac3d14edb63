package accountant

import (
	"math"
	"testing"
)

// golden compares got with a value computed independently (Python's math
// module, recorded in each test) to a relative 1e-13.
func golden(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-13*math.Abs(want) {
		t.Errorf("%s = %.17g, want %.17g", what, got, want)
	}
}

// exactIsTight checks a mechanism's exact preset: the sigma it chooses
// delivers at most the target eps (a relative 1e-9 for the bisection's
// last ulps), and 1% less noise delivers more than the target (the
// search found the smallest certified noise, not just some noise).
func exactIsTight(t *testing.T, name string, m mechanism, r Request, kappa int) {
	t.Helper()
	s, _, err := m.exactSigma(r, kappa)
	if err != nil {
		t.Fatalf("%s: exact sigma: %v", name, err)
	}
	eps, _, _, err := m.delivered(r, s, kappa)
	if err != nil || eps > r.Eps*(1+1e-9) {
		t.Errorf("%s: exact sigma %v delivers eps %v > target %v (%v)", name, s, eps, r.Eps, err)
	}
	less, _, _, err := m.delivered(r, 0.99*s, kappa)
	if err != nil || !(less > r.Eps) {
		t.Errorf("%s: 0.99 x exact sigma still delivers eps %v <= target %v: the search is not tight (%v)", name, less, r.Eps, err)
	}
}

// TestEveryModelHasAMechanism: every privacy model constant is
// registered, and only ModelNone is not private.
func TestEveryModelHasAMechanism(t *testing.T) {
	for _, model := range []string{ModelNone, ModelLDP, ModelSDPAmp, ModelFedUCB, ModelUserLDP, ModelUserLDPGLM, ModelSDPVec, ModelCentral} {
		m, err := lookupMechanism(model)
		if err != nil {
			t.Fatal(err)
		}
		if m.private() != (model != ModelNone) {
			t.Errorf("%s: private() = %v", model, m.private())
		}
	}
	if _, err := lookupMechanism("nope"); err == nil {
		t.Error("an unknown model was accepted")
	}
}
