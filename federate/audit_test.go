package federate

import (
	"context"
	"strings"
	"testing"
)

// TestAudit is privacy.md T8 on one silo's first release (fixed seeds;
// the pass verdict's false-alarm rate is at most about 2%: a 99% interval
// for mu and one for the noise scale): the lazy learner passes, with the
// empirical mu matching the exact one; the eager learner is flagged, its
// empirical mu above the claim; the mutation controls are caught: noise
// with half the calibrated sigma (mu above the claim) and with twice it
// (the noise scale test fails).
func TestAudit(t *testing.T) {
	base := Spec{Algorithm: AlgLDP, Eps: 1, Delta: 0.1, B: 25, Preset: "exact"}
	for _, c := range []struct {
		name  string
		lazy  bool
		scale float64
		want  string
	}{
		{"lazy", true, 1, "pass"},
		{"eager", false, 1, "VIOLATION"},
		{"lazy, sigma halved", true, 0.5, "VIOLATION"},
		{"lazy, sigma doubled", true, 2, "NOISE SCALE"},
	} {
		s := base
		s.Lazy = c.lazy
		r, err := Audit(context.Background(), s, AuditOptions{Trials: 4000, Seed: 1, SigmaScale: c.scale})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-20s claim mu %.3f (eps %.3g), exact mu %.3f, empirical mu %.3f [%.3f, %.3f], sd %.3f [%.3f, %.3f], eps >= %.3g: %s",
			c.name, r.ClaimMu, r.ClaimEps, r.ExactMu, r.Mu, r.MuLo, r.MuHi, r.SD, r.SDLo, r.SDHi, r.EpsLo, r.Verdict)
		if !strings.HasPrefix(r.Verdict, c.want) {
			t.Errorf("%s: verdict %q, want %s", c.name, r.Verdict, c.want)
		}
		if c.scale == 1 && (r.ExactMu < r.MuLo || r.ExactMu > r.MuHi) {
			t.Errorf("%s: exact mu %.4g outside the empirical interval [%.4g, %.4g]", c.name, r.ExactMu, r.MuLo, r.MuHi)
		}
	}
}
