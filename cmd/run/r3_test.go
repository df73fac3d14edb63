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

// r3Results runs a sweep file's body into a fresh directory and returns
// the results directory.
func r3Results(t *testing.T, body string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r")
	if _, err := runCLI(t, "sweep", r3Sweep(t, body), "--out", out, "--no-plot", "--rate", "1e9"); err != nil {
		t.Fatal(err)
	}
	return out
}

// zeroTOML is case K5's sweep: a mab instance whose means are equal
// (regret identically 0), over three T.
const zeroTOML = `name = "zero"
seeds = 1
[[instance]]
name = "flat"
kind = "mab"
means = [0.5, 0.5]
[[algorithm]]
name = "se"
[grid]
T = [100, 1000, 10000]
`

// TestR3_K4K5ScalingAndPlotNoPanic (cases K4, K5): `run scaling --over
// eps` on results with one eps draws (its log axis padded); `run plot
// --log-y` with no positive value is an error naming --log-y; `run
// scaling --over T` with no positive mean prints its table and says the
// figure is not drawn. None panics.
func TestR3_K4K5ScalingAndPlotNoPanic(t *testing.T) {
	mab := r3Results(t, `name = "mab small"
seeds = 2
[[instance]]
name = "easy"
kind = "mab"
arms = 4
gap = 0.5
seed = 1
[[algorithm]]
name = "dist-dp-se"
[grid]
eps = [1]
T = [2000]
`)
	out, err := runCLI(t, "scaling", mab, "--over", "eps")
	if err != nil || !strings.Contains(out, "(one value of eps)") || !strings.Contains(out, "scaling-eps.png") {
		t.Errorf("scaling --over eps, one eps: %v\n%s", err, out)
	}
	zero := r3Results(t, zeroTOML)
	for _, args := range [][]string{{"plot", zero, "--log-y"}, {"plot", zero, "--log-y", "--over", "instance"}} {
		_, err := runCLI(t, args...)
		wantErr(t, strings.Join(args[2:], " "), err, "--log-y", "no positive")
	}
	out, err = runCLI(t, "scaling", zero, "--over", "T")
	if err != nil || !strings.Contains(out, "plot:   none") || strings.Contains(out, "NaN") {
		t.Errorf("scaling --over T, all zero: %v\n%s", err, out)
	}
}
