package main

import (
	"errors"
	"strings"
	"testing"
)

// TestLinearAuditFailsClosed: the linear family's `run audit` exits 1
// (errAuditFailed) on a VIOLATION, as the mab and bco audits do (issue
// 42: it printed VIOLATION and exited 0), and 0 when every configuration
// passes. Half the calibrated noise on the lazy learner's action pair is
// the violation (mu doubled: 1.84 against the claim 0.921, far beyond the
// 1000-trial interval); the honest run passes at false-alarm rate 1%.
// A claim above what the trials can show (eps 40: mu 7.86 against the
// 3.1 that 100 trials distinguish) is inconclusive: exit 1 too
// (errAuditInconclusive, not errAuditFailed), the trials that would
// settle it printed.
// Mutation-checked: linearVerdict returning nil fails it; linearVerdict
// ignoring inconclusive rows fails it.
func TestLinearAuditFailsClosed(t *testing.T) {
	out, err := runCLI(t, "audit", "--learner", "lazy", "--trials", "1000", "--sigma-scale", "0.5")
	if !errors.Is(err, errAuditFailed) || !strings.Contains(out, "VIOLATION") {
		t.Errorf("half the noise: err = %v\n%s", err, out)
	}
	if out, err := runCLI(t, "audit", "--learner", "lazy", "--trials", "1000"); err != nil || !strings.Contains(out, "pass") {
		t.Errorf("honest: err = %v\n%s", err, out)
	}
	out, err = runCLI(t, "audit", "--learner", "lazy", "--eps", "40", "--B", "5", "--T", "20", "--trials", "100")
	if !errors.Is(err, errAuditInconclusive) || errors.Is(err, errAuditFailed) || !strings.Contains(out, "144993 trials per dataset (--trials) would settle it") {
		t.Errorf("eps 40, 100 trials: err = %v, want inconclusive\n%s", err, out)
	}
}
