package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The tests of attack round 3 on the run side (docs/reliability.md,
// /work/shared/reference/attack-round3.md): each is named by its case id
// and runs the command in-process, as a user would type it, under the
// runCLI deadline.

// r3Sweep writes a sweep file into a fresh directory and returns its path.
func r3Sweep(t *testing.T, body string) string {
	t.Helper()
	return writeFile(t, filepath.Join(t.TempDir(), "sweep.toml"), body)
}

// TestR3_H1DiscreteHugeEps (case H1): noise = "discrete" at eps 1e155 to
// 1e300 returns at once, for every algorithm of the case: calibrated, or
// one error naming eps and noise (a sigma so small that the grid's sums
// would stop being exact), never a run that fails at execution.
func TestR3_H1DiscreteHugeEps(t *testing.T) {
	for _, alg := range []string{"ldp", "sdp-amp", "super-agent", "feducb", "ldp-linucb"} {
		for _, eps := range []string{"1e155", "1e200", "1e300"} {
			body := strings.Replace(synTOML(2), "eps = [1]", "eps = ["+eps+"]\nnoise = [\"discrete\"]", 1)
			body = strings.Replace(body, `name = "ldp"`, `name = "`+alg+`"`, 1)
			_, err := runCLI(t, "plan", r3Sweep(t, body), "--rate", "1e9")
			wantErr(t, alg+" eps "+eps, err, "eps = "+strings.Replace(eps, "e", "e+", 1), `noise "discrete"`, `use noise "gaussian"`)
		}
	}
	// A discrete eps the grid serves still plans.
	body := strings.Replace(synTOML(2), "eps = [1]", "eps = [1e10]\nnoise = [\"discrete\"]", 1)
	if _, err := runCLI(t, "plan", r3Sweep(t, body), "--rate", "1e9"); err != nil {
		t.Errorf("eps 1e10: %v", err)
	}
}
