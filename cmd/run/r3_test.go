package main

import (
	"path/filepath"
	"slices"
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

// oneRoundTOML is case K5's second sweep: T = 1, whose one realised
// regret is negative (-0.0268). Its first, a mab instance with equal
// means (regret identically 0), is refused since W7.
const oneRoundTOML = `name = "t1"
seeds = 1
[[instance]]
name = "easy"
kind = "mab"
gap = 0.5
[[algorithm]]
name = "se"
[grid]
T = [1]
`

// TestR3_K4K5ScalingAndPlotNoPanic (cases K4, K5): `run scaling --over
// eps` on results with one eps draws (its log axis padded); `run plot
// --log-y` with no positive value is an error naming --log-y; a figure of
// one round on log axes is drawn. None panics (scaling's figure with no
// positive mean: scaling.TestR3_K4OneValueNoPanic).
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
	one := r3Results(t, oneRoundTOML)
	for _, args := range [][]string{{"plot", one, "--log-y", "--metric", "realised"}, {"plot", one, "--log-y", "--metric", "realised", "--over", "instance"}} {
		_, err := runCLI(t, args...)
		wantErr(t, strings.Join(args[2:], " "), err, "--log-y", "no positive")
	}
	// Its pseudo-regret is positive: drawn, on log axes of one value.
	if _, err := runCLI(t, "plot", one, "--log-y", "--log-x"); err != nil {
		t.Errorf("plot --log-y --log-x, one round: %v", err)
	}
}

// TestR3_W6U9U10U11AuditFlags (cases W6, U9, U10, U11): a mab or bco
// audit refuses each flag its family's audit does not read (--noise
// discrete looked honoured; --preset, --learner, --protocol, --M,
// --pair, --relation, --out; --B for bco), naming it; a registered
// algorithm that is not private says so and lists the private algorithms
// of every family, as does an unknown one; a mab audit with --B above
// the linear family's default --T runs (no T >= B rule); --sweep on a
// mab sweep says how to audit each of its algorithms.
func TestR3_W6U9U10U11AuditFlags(t *testing.T) {
	mabArgs := []string{"audit", "--algorithm", "dist-dp-se", "--eps", "1", "--B", "16", "--trials", "200"}
	for _, extra := range [][]string{{"--noise", "discrete"}, {"--noise", "gaussian"}, {"--learner", "eager"},
		{"--protocol", "P_alt"}, {"--M", "50"}, {"--pair", "schedule"}, {"--relation", "replace-one"},
		{"--out", t.TempDir()}, {"--ignore-memory-check"}} {
		_, err := runCLI(t, append(slices.Clone(mabArgs), extra...)...)
		wantErr(t, "mab audit "+strings.Join(extra, " "), err, extra[0]+": a mab audit does not use it")
	}
	// --preset is read by the entries with the paper's parameterisation
	// (paper_eps) only.
	_, err := runCLI(t, append(slices.Clone(mabArgs), "--preset", "paper")...)
	wantErr(t, "mab audit --preset paper", err, "--preset paper: a mab audit takes", "dist-dp-se has no such preset")
	bcoArgs := []string{"audit", "--algorithm", "ldp-one-point", "--eps", "1", "--delta", "1e-5", "--trials", "200"}
	for _, extra := range [][]string{{"--noise", "discrete"}, {"--B", "99999"}, {"--alpha", "0.05"}, {"--M", "2"}} {
		_, err := runCLI(t, append(slices.Clone(bcoArgs), extra...)...)
		wantErr(t, "bco audit "+strings.Join(extra, " "), err, extra[0]+": a bco audit does not use it")
	}
	// The flags each family reads still run.
	if out, err := runCLI(t, append(slices.Clone(bcoArgs), "--T", "5", "--seed", "3", "--sigma-scale", "1")...); err != nil || !strings.Contains(out, "pass") {
		t.Errorf("bco audit with its own flags: %v\n%s", err, out)
	}
	// The family's own ranges name the flag.
	_, err = runCLI(t, "audit", "--algorithm", "dist-dp-se", "--eps", "1e-7", "--trials", "100")
	wantErr(t, "mab audit --eps 1e-7", err, "--eps: eps = 1e-07", "2^-20")
	_, err = runCLI(t, "audit", "--algorithm", "ldp-one-point", "--delta", "1e-5", "--trials", "50")
	wantErr(t, "bco audit --trials 50", err, "--trials 50: want 100..1000000")
	// U10: a mab batch of 1000 users, above the default --T 100.
	if out, err := runCLI(t, "audit", "--algorithm", "dist-dp-se", "--eps", "1", "--B", "1000", "--trials", "200"); err != nil || !strings.Contains(out, "dist-dp-se") {
		t.Errorf("mab audit --B 1000: %v\n%s", err, out)
	}
	// U9: every family's private algorithms are listed.
	for _, alg := range []string{"se", "one-point", "fedlinucb", "nope"} {
		_, err := runCLI(t, "audit", "--algorithm", alg)
		wantErr(t, "--algorithm "+alg, err, "ldp, sdp-amp", "dist-dp-se", "ldp-one-point", "ldp-two-point")
	}
	// U11: a mab sweep names the command that audits each algorithm.
	mab := r3Sweep(t, `name = "mab small"
seeds = 1
[[instance]]
name = "easy"
kind = "mab"
gap = 0.5
[[algorithm]]
name = "dist-dp-se"
[grid]
eps = [1]
T = [1000]
`)
	_, err = runCLI(t, "audit", "--sweep", mab, "--trials", "100")
	wantErr(t, "audit --sweep on a mab sweep", err, "audit a mab or bco algorithm with --algorithm")
	if err != nil && strings.Contains(err.Error(), "package") {
		t.Errorf("the message still points at package tests: %v", err)
	}
}
