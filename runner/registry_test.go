package runner

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/outputs/figure"
	"github.com/fedbandit/fedbandit/registry"
)

// regSweep is a sweep of one algorithm (with extra lines in its table) and
// extra grid lines, on an instance of its family.
func regSweep(alg, algLines, gridLines string) string {
	instance := "name = \"syn\"\nkind = \"synthetic\"\nd = 4\nk = 10"
	if a, err := registry.Lookup(alg); err == nil {
		switch a.Family {
		case registry.FamilyMAB:
			instance = "name = \"arms\"\nkind = \"mab\"\ngap = 0.5"
		case registry.FamilyBCO:
			instance = "name = \"ball\"\nkind = \"bco\"\nloss = \"squared\"\nd = 4"
		}
	}
	return fmt.Sprintf(`name = "reg"
seeds = 2

[[instance]]
%s

[[algorithm]]
name = %q
%s

[grid]
eps = [1]
delta = [0.1]
M = [3]
B = [5]
T = [20]
%s
`, instance, alg, algLines, gridLines)
}

// TestGridOverUnusedKeyPlansOnce: for every registered algorithm and every
// generic grid key it does not use (registry.Algorithm.Uses), a grid of
// two values of that key plans its runs once (seeds runs), and `run plan`
// reports the key as ignored.
func TestGridOverUnusedKeyPlansOnce(t *testing.T) {
	grids := map[string]string{
		"eps": "eps = [1, 2]", "delta": "delta = [0.1, 0.2]", "relation": `relation = ["add-remove", "replace-one"]`,
		"alpha": "alpha = [0.01, 0.05]", "B": "B = [5, 10]", "noise": `noise = ["gaussian", "discrete"]`,
	}
	tested := 0
	for _, a := range registry.Algorithms() {
		for key, line := range grids {
			if a.UsesKey(key) {
				continue
			}
			old := strings.SplitN(line, " ", 2)[0] + " = "
			cfg := regSweep(a.Name, "", "")
			// Replace the grid's own line for the key, or add it.
			lines := strings.Split(cfg, "\n")
			found := false
			for i, l := range lines {
				if strings.HasPrefix(l, old) {
					lines[i], found = line, true
				}
			}
			if !found {
				lines = append(lines, line)
			}
			p := mustPlan(t, strings.Join(lines, "\n"))
			if len(p.Runs) != 2 {
				t.Errorf("%s with a grid over %s (unused): %d runs, want 2", a.Name, key, len(p.Runs))
			}
			tested++
		}
	}
	if tested == 0 {
		t.Fatal("no algorithm leaves a generic key unused")
	}
	// Control: a key an algorithm uses plans it twice.
	if p := mustPlan(t, regSweep("eps-greedy", "", "alpha = [0.01, 0.05]")); len(p.Runs) != 4 {
		t.Errorf("eps-greedy with a grid over alpha: %d runs, want 4", len(p.Runs))
	}
	if p := mustPlan(t, regSweep("ldp", "", `noise = ["gaussian", "discrete"]`)); len(p.Runs) != 4 {
		t.Errorf("ldp with a grid over noise: %d runs, want 4", len(p.Runs))
	}
}

// TestRunnerAddsNoRule: for every registered algorithm parameter, the
// runner plans what the spec layer resolves (registry.LinearSpec, a
// library caller's path): the same run ids with the key absent and with
// an explicit value (its minimum, which may be 0), and for a value out of
// range the spec layer's own message under the sweep key. The runner has
// no numeric rule of its own to differ by. Mutation control (tried,
// 2026-11-25): the runner dropping an explicit 0 (the old "0 means
// default") makes the explore = 0 and sync_threshold = 0 ids differ.
func TestRunnerAddsNoRule(t *testing.T) {
	n := 0
	for _, a := range registry.Algorithms() {
		for _, p := range a.Params {
			n++
			if a.Family != registry.FamilyLinear {
				// Other families: an out-of-range value is the family's
				// own message (registry.Algorithm.Check) under the sweep key.
				_, err := ParseConfig([]byte(regSweep(a.Name, fmt.Sprintf("%s = %v", p.Key, p.Min-1), "")), t.TempDir())
				var ke *KeyError
				if !errors.As(err, &ke) || ke.Key != fmt.Sprintf("algorithm[0].%s", p.Key) || !strings.Contains(ke.Msg, p.Key+" = ") {
					t.Errorf("%s: %s = %v: error %v", a.Name, p.Key, p.Min-1, err)
				}
				continue
			}
			for _, c := range []struct {
				line   string
				params map[string]float64
			}{
				{"", nil},
				{fmt.Sprintf("%s = %v", p.Key, p.Min), map[string]float64{p.Key: p.Min}},
			} {
				plan := mustPlan(t, regSweep(a.Name, c.line, ""))
				for _, r := range plan.Runs {
					spec, err := registry.LinearSpec(registry.RunSpec{Algorithm: a.Name, Instance: "synthetic", Seed: r.Spec.Seed,
						T: 20, M: 3, B: 5, Eps: 1, Delta: 0.1, Params: c.params,
						Table: map[string]any{"d": int64(4), "k": int64(10)}}, registry.Env{})
					if err != nil {
						t.Fatal(err)
					}
					if !a.Private() {
						spec.Eps, spec.Delta = 0, 0
					}
					lib, err := registry.LinearRunID(spec, r.Instance.Hash)
					if err != nil {
						t.Fatal(err)
					}
					if lib != r.ID {
						t.Errorf("%s %q: the sweep plans %s, the library %s", a.Name, c.line, r.ID[:12], lib[:12])
					}
				}
			}
			// Out of range: the spec layer's message, under the sweep key.
			bad := p.Min - 1
			if p.Min == math.Inf(-1) {
				bad = math.NaN()
			}
			_, err := ParseConfig([]byte(regSweep(a.Name, fmt.Sprintf("%s = %v", p.Key, bad), "")), t.TempDir())
			var ke *KeyError
			if !errors.As(err, &ke) || ke.Key != fmt.Sprintf("algorithm[0].%s", p.Key) {
				t.Fatalf("%s: %s = %v: error %v", a.Name, p.Key, bad, err)
			}
			s := federate.Spec{Algorithm: a.Name, Eps: 1, Delta: 0.1, M: 3, T: 20, B: 5,
				Synthetic: federate.SyntheticSpec{D: 4, K: 10, NoiseVar: 0.25},
				Params:    map[string]float64{p.Key: bad}}
			var fe *federate.FieldError
			if err := s.Validate(); !errors.As(err, &fe) || fe.Msg != ke.Msg {
				t.Errorf("%s: %s = %v: runner says %q, the spec %v", a.Name, p.Key, bad, ke.Msg, err)
			}
		}
	}
	if n == 0 {
		t.Fatal("no registered parameter")
	}
}

// TestEpsGreedyEndToEnd: the documented example, added in three files,
// is validated, planned, recorded in runs.arrow's params and shown in
// legends with no other edit.
func TestEpsGreedyEndToEnd(t *testing.T) {
	p := mustPlan(t, regSweep("eps-greedy", "explore = [0, 0.5]", ""))
	if len(p.Runs) != 4 {
		t.Fatalf("%d runs, want 2 explore values x 2 seeds", len(p.Runs))
	}
	var recs []outputs.RunRecord
	seen := map[float64]bool{}
	for _, r := range p.Runs {
		rec := r.Record("reg")
		if rec.Family != registry.FamilyLinear || rec.Trust != "none" {
			t.Errorf("family %q trust %q", rec.Family, rec.Trust)
		}
		seen[rec.Params["explore"]] = true
		recs = append(recs, rec)
	}
	if !seen[0] || !seen[0.5] || len(seen) != 2 {
		t.Errorf("recorded explore values %v, want 0 and 0.5", seen)
	}
	labels := figure.Labels(recs)
	want := map[string]bool{"eps-greedy FedLinUCB (explore=0)": true, "eps-greedy FedLinUCB (explore=0.5)": true}
	for _, l := range labels {
		if !want[l] {
			t.Errorf("legend %q, want one of %v", l, want)
		}
	}
	mustFailKey(t, regSweep("eps-greedy", "explore = [0.5, 1.5]", ""), "algorithm[0].explore[1]")
	mustFailKey(t, regSweep("fedlinucb", "explore = 0.5", ""), "algorithm[0].explore")
}

// TestNoiselessInstanceWithoutBeta: the rule "noise_var = 0 needs R > 0"
// is beta_t's, so it binds the algorithms that use R (a UCB learner) and
// not the random policy, which plans on a noiseless instance without
// advanced.R.
func TestNoiselessInstanceWithoutBeta(t *testing.T) {
	noiseless := strings.Replace(regSweep("random", "", ""), "k = 10", "k = 10\nnoise_var = 0", 1)
	if p := mustPlan(t, noiseless); len(p.Runs) != 2 {
		t.Errorf("random on a noiseless instance: %d runs", len(p.Runs))
	}
	mustFailKey(t, strings.Replace(noiseless, `name = "random"`, `name = "fedlinucb"`, 1), "instance[0].noise_var")
}
