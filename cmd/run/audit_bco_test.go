package main

import (
	"errors"
	"strings"
	"testing"
)

// TestBCOAudit: `run audit` of a convex randomiser audits the claim its
// run records and fails closed. The slides' sigma at eps 30 (delta 0.1)
// is recorded not certified; the audit says so and why, tests the bound
// the accountant states (eps 105, mu 13.3), and that bound is above what
// 4,000 trials can distinguish: inconclusive, a non-zero exit distinct
// from a violation's, with the trials it would need. --analytic 1
// certifies eps 30 (mu 6.68): inconclusive at 4,000 trials, a pass at
// 10^6 (false-alarm rate 2e-5: two one-sided checks at 1e-5). --analytic
// takes 0 or 1 and is a bco audit's flag only.
func TestBCOAudit(t *testing.T) {
	out, err := runCLI(t, "audit", "--algorithm", "ldp-one-point", "--eps", "30")
	if !errors.Is(err, errAuditInconclusive) || errors.Is(err, errAuditFailed) {
		t.Errorf("eps 30, the slides' sigma: err %v, want the inconclusive exit\n%s", err, out)
	}
	for _, want := range []string{"inconclusive", "not certified: the slides' sigma", "delivers eps 105.236 > target 30",
		"Audited against the bound the run's accountant states for this noise: eps 105.2 at delta 0.1 (the target eps 30 is not claimed",
		"the claim's mu 13.35 is at or above 5.524, the largest mu 4000 trials per dataset can distinguish; it needs at least 924737619509 trials"} {
		if !strings.Contains(out, want) {
			t.Errorf("eps 30: the output lacks %q:\n%s", want, out)
		}
	}
	out, err = runCLI(t, "audit", "--algorithm", "ldp-one-point", "--eps", "30", "--analytic", "1")
	if !errors.Is(err, errAuditInconclusive) || !strings.Contains(out, "Audited against the run's certified claim: delivered (eps, delta) = (30, 0.1)") ||
		!strings.Contains(out, "needs at least 27720 trials") {
		t.Errorf("eps 30, analytic 1, 4000 trials: err %v\n%s", err, out)
	}
	out, err = runCLI(t, "audit", "--algorithm", "ldp-two-point", "--eps", "30", "--analytic", "1", "--trials", "1000000")
	if err != nil || !strings.Contains(out, "pass") || strings.Contains(out, "not certified") {
		t.Errorf("eps 30, analytic 1, 10^6 trials: err %v\n%s", err, out)
	}
	_, err = runCLI(t, "audit", "--algorithm", "ldp-one-point", "--analytic", "2")
	wantErr(t, "--analytic 2", err, "--analytic 2: want 0 or 1")
	_, err = runCLI(t, "audit", "--algorithm", "ldp", "--analytic", "1")
	wantErr(t, "linear audit --analytic 1", err, "--analytic: a bco audit's key")
	_, err = runCLI(t, "audit", "--algorithm", "dist-dp-se", "--analytic", "0")
	wantErr(t, "mab audit --analytic 0", err, "--analytic: a mab audit does not use it")
}
