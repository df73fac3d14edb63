package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// u2TOML is a mab sweep over T (attack round 3, U2 and U13): the
// published script's noise (reference_code = 1) is not certified.
const u2TOML = `name = "mab over T"
seeds = 2
[[instance]]
name = "easy"
kind = "mab"
gap = 0.5
arms = 4
[[algorithm]]
name = "se"
[[algorithm]]
name = "dist-dp-se"
reference_code = 1
[grid]
eps = [1]
T = [100, 1000]
`

// TestU2U13TablesOfOtherFamilies (attack round 3, U2, U13): `run table`
// without --at shows each configuration at its own last round (a sweep
// over T has several), and the table's and the summary's footers speak
// of the mab family's regret and reasons, not of silos, clamps or eager
// learners. Mutation controls (run 2026-11-29): the table's last round
// taken from the first configuration (the old series[0]) shows "-" for T =
// 1000 and fails; the linear footer fails.
func TestU2U13TablesOfOtherFamilies(t *testing.T) {
	dir := t.TempDir()
	sweep := writeFile(t, filepath.Join(dir, "mab.toml"), u2TOML)
	out := filepath.Join(dir, "r")
	sum, err := runCLI(t, "sweep", sweep, "--out", out, "--no-plot", "--rate", "1e9")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := runCLI(t, "table", out)
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(tab, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(line, "SE") && !strings.HasPrefix(line, "Dist-DP-SE") {
			continue
		}
		rows++
		wantT := "100"
		if strings.Contains(line, "T=1000") {
			wantT = "1000"
		}
		if !strings.Contains(line, "  "+wantT+"  ") || strings.Contains(line, " - ") {
			t.Errorf("row not at its own last round %s: %q", wantT, line)
		}
	}
	if rows != 4 {
		t.Errorf("%d rows, want 4:\n%s", rows, tab)
	}
	for what, text := range map[string]string{"summary": sum, "table": tab} {
		if strings.Contains(text, "silos") || strings.Contains(text, "clamped") || strings.Contains(text, "eager") {
			t.Errorf("%s speaks of the linear family:\n%s", what, text)
		}
		if !strings.Contains(text, "of the users, one a round") {
			t.Errorf("%s does not say whose regret:\n%s", what, text)
		}
	}
	if !strings.Contains(sum, "NOT CERTIFIED: the guarantee does not cover these runs (the published script's noise (reference_code = 1)") {
		t.Errorf("summary's reason:\n%s", sum)
	}
}
