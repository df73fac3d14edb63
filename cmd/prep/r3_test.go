package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// The tests of attack round 3 on the prep side (docs/reliability.md):
// each is named by its case id.

// r3Config writes a prep all config into a fresh directory.
func r3Config(t *testing.T, body string) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "c.toml")
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestR3_W3AllConfigRefusesEveryFlag (case W3): every flag of prep all
// that its CONFIG replaces is an error naming it when given with a
// CONFIG, the flags that have defaults (--features, --model, --silos,
// --strategy) and a flag given at its default value (--seed 0,
// --silos 10) included; before, those four were silently ignored.
func TestR3_W3AllConfigRefusesEveryFlag(t *testing.T) {
	cfg := r3Config(t, "out = \"ds\"\n")
	for _, flag := range []string{"--features=title", "--model=well-specified", "--silos=20", "--silos=10",
		"--strategy=random", "--seed=0", "--out=x", "--input=x", "--force", "--alpha=1e-3"} {
		err := parseWithin(t, []string{"all", cfg, flag})
		if name, _, _ := strings.Cut(flag, "="); err == nil || !strings.Contains(err.Error(), name+" with CONFIG") {
			t.Errorf("prep all CONFIG %s: err = %v", flag, err)
		}
	}
	// Every flag of prep all (kong's model) is in allFlags, so a new flag
	// is refused with a CONFIG too.
	var c cli
	parser, err := kong.New(&c, kong.Name("prep"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range parser.Model.Children {
		if n.Name != "all" {
			continue
		}
		for _, f := range n.Flags {
			if !slices.Contains(allFlags, f.Name) {
				t.Errorf("--%s of prep all is not refused with a CONFIG (add it to allFlags)", f.Name)
			}
		}
	}
	// Without a CONFIG the flags work as before.
	if err := parseWithin(t, []string{"all", "--out", t.TempDir(), "--features", "title", "--silos", "20", "--strategy", "random"}); err != nil {
		t.Errorf("flags without CONFIG: %v", err)
	}
}

// TestR3_W4W5W13AllConfigConflicts (cases W4, W5, W13): a [[fit]] table
// with alpha and cv = true (alpha was silently dropped), a [[partition]]
// seed = -1 (wrapped to 2^64 - 1) and a [[fit]] with intercept and
// no_intercept = true are errors naming the config's keys, before any
// file is written; `prep fit --intercept V --no-intercept` is an error
// naming both flags, as --alpha with --cv.
func TestR3_W4W5W13AllConfigConflicts(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ body, want string }{
		{"[[fit]]\nfeatures = \"all\"\nalpha = 1e-4\ncv = true\n", "fit[0].alpha and "},
		{"[[fit]]\nfeatures = \"all\"\nalpha = 1e-4\ncv = true\n", "fit[0].cv can't be used together"},
		{"[[partition]]\nsilos = 10\nstrategy = \"random\"\nseed = -1\n", "partition[0].seed: -1, want a seed >= 0"},
		{"[[fit]]\nfeatures = \"all\"\nalpha = 1e-4\nintercept = 0.5\nno_intercept = true\n", "fit[0].intercept and "},
		{"[[fit]]\nfeatures = \"all\"\nalpha = 1e-4\nintercept = 0.5\nno_intercept = true\n", "fit[0].no_intercept can't be used together"},
	} {
		out := filepath.Join(dir, "ds")
		cfg := r3Config(t, "inputs = [\"nowhere\"]\nout = \""+out+"\"\n"+tc.body)
		err := prep(t, "all", cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), cfg) {
			t.Errorf("%q: err = %v, want the config and %q", tc.body, err, tc.want)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%q: %s written before the error", tc.body, out)
		}
	}
	// prep fit: the flags together are refused; either alone is valid.
	ds := t.TempDir()
	err := parseWithin(t, []string{"fit", ds, "--features", "all", "--alpha", "1e-4", "--intercept", "0.5", "--no-intercept"})
	if err == nil || !strings.Contains(err.Error(), "--intercept and --no-intercept can't be used together") {
		t.Errorf("--intercept 0.5 --no-intercept: %v", err)
	}
	for _, args := range [][]string{{"--intercept", "0.5"}, {"--no-intercept"}} {
		if err := parseWithin(t, append([]string{"fit", ds, "--features", "all", "--alpha", "1e-4"}, args...)); err != nil {
			t.Errorf("%v alone: %v", args, err)
		}
	}
}
