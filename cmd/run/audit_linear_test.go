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
// Mutation-checked: linearVerdict returning nil fails it.
func TestLinearAuditFailsClosed(t *testing.T) {
	out, err := runCLI(t, "audit", "--learner", "lazy", "--trials", "1000", "--sigma-scale", "0.5")
	if !errors.Is(err, errAuditFailed) || !strings.Contains(out, "VIOLATION") {
		t.Errorf("half the noise: err = %v\n%s", err, out)
	}
	if out, err := runCLI(t, "audit", "--learner", "lazy", "--trials", "1000"); err != nil || !strings.Contains(out, "pass") {
		t.Errorf("honest: err = %v\n%s", err, out)
	}
}
