package main

import (
	"errors"
	"os"
	"path/filepath"
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

// TestLinearAuditSweepInconclusive: under --sweep too, a configuration
// whose claim is above what the trials can show is inconclusive and the
// audit exits 1 (errAuditInconclusive, naming it among the
// configurations), while a violation beside it (the eager learner's, whose
// exact mu exceeds any claim of its pair) takes precedence
// (errAuditFailed). Mutation-checked: linearVerdict ignoring inconclusive
// rows fails the first case.
func TestLinearAuditSweepInconclusive(t *testing.T) {
	sweep := func(body string) string {
		p := filepath.Join(t.TempDir(), "s.toml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	grid := `[grid]
eps = [40]
delta = [0.1]
M = [1]
B = [5]
T = [20]
`
	p := sweep(`name = "open"
seeds = 1
[[instance]]
kind = "synthetic"
[[algorithm]]
name = "ldp"
lazy = true
` + grid)
	out, err := runCLI(t, "audit", "--sweep", p, "--trials", "100")
	if !errors.Is(err, errAuditInconclusive) || errors.Is(err, errAuditFailed) || !strings.Contains(err.Error(), "1 of 1 configurations") ||
		!strings.Contains(out, "would settle it") {
		t.Errorf("an inconclusive sweep: err = %v, want errAuditInconclusive naming 1 of 1 configurations\n%s", err, out)
	}
	p = sweep(`name = "open and leaking"
seeds = 1
[[instance]]
kind = "synthetic"
[[algorithm]]
name = "ldp"
lazy = true
[[algorithm]]
name = "ldp"
lazy = false
` + grid)
	if _, err := runCLI(t, "audit", "--sweep", p, "--trials", "100"); !errors.Is(err, errAuditFailed) {
		t.Errorf("inconclusive beside a violation: err = %v, want errAuditFailed", err)
	}
}
