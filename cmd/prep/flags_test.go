package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
)

// flagValues are fed to every flag and positional argument of every prep
// command (attack round 2: "no zero-means-default, no wrap-around").
var flagValues = []string{"0", "-1", "NaN", "+Inf", "1e308", "a\nb"}

// flagRule says what a flag must do with flagValues.
type flagRule struct {
	// kind: "value" (every value refused, naming the flag, unless listed
	// in ok), "path" (a file or directory name: the newline value refused,
	// the others are names), "bool" (takes no value).
	kind string
	// ok lists the values that are accepted, with their documented meaning.
	ok map[string]string
}

var (
	value   = flagRule{kind: "value"}
	path    = flagRule{kind: "path"}
	boolean = flagRule{kind: "bool"}
	seed    = flagRule{kind: "value", ok: map[string]string{"0": "seed 0 (any uint64 is a seed)"}}
)

// flagRules has one entry per "command flag" (positional arguments as
// <NAME>) of the prep parser. TestPrepEveryFlagRefusesBadValues fails when
// a flag has no entry (a new flag needs a rule) or an entry no flag.
var flagRules = map[string]flagRule{
	" --help":    boolean,
	" --verbose": boolean,
	" --version": boolean,

	"ingest <INPUT>":        path,
	"ingest --out":          path,
	"ingest --force":        boolean,
	"ingest --fold":         value,
	"ingest --parts":        value,
	"ingest --label-max":    value,
	"ingest --features":     value,
	"ingest --lenient":      boolean,
	"ingest --allow-ragged": boolean,
	"ingest --workers":      value,
	// Column names: any name but one with a control character, like paths.
	"ingest --label-column":    path,
	"ingest --qid-column":      path,
	"ingest --feature-columns": path,

	"synth --out":       path,
	"synth --seed":      seed,
	"synth --queries":   value,
	"synth --mean-docs": value,
	"synth --max-docs":  value,
	"synth --first-qid": value,
	"synth --force":     boolean,

	"fit <DATASET_DIR>": value, // must exist: every test value is refused
	"fit --features":    value,
	"fit --model":       value,
	"fit --alpha": {kind: "value", ok: map[string]string{
		"1e308": "accepted here; an alpha >= alpha_max gives the all-zero fit, which prep fit refuses (TestPrepPipeline)"}},
	"fit --cv":                boolean,
	"fit --folds":             value,
	"fit --alphas":            {kind: "value", ok: map[string]string{"1e308": "as --alpha"}},
	"fit --n-alphas":          value,
	"fit --eps":               value,
	"fit --intercept":         {kind: "value", ok: map[string]string{"0": "no intercept feature, as --no-intercept"}},
	"fit --no-intercept":      boolean,
	"fit --fit-intercept":     boolean,
	"fit --positive":          boolean,
	"fit --tol":               value,
	"fit --max-iter":          value,
	"fit --workers":           value,
	"fit --allow-unconverged": boolean,

	"partition <DATASET_DIR>": value,
	"partition --silos":       value,
	"partition --strategy":    value,
	"partition --seed":        seed,

	"all <CONFIG>":   value, // must exist
	"all --input":    path,
	"all --out":      path,
	"all --force":    boolean,
	"all --features": value,
	"all --model":    value,
	"all --alpha":    {kind: "value", ok: map[string]string{"1e308": "as fit --alpha"}},
	"all --silos":    value,
	"all --strategy": value,
	"all --seed":     seed,

	"verify <DATASET_DIR>": value,
}

// TestPrepEveryFlagRefusesBadValues walks the parser's own model: every
// flag and positional argument of every prep command gets each of
// flagValues; each must be refused with an error naming it (or be listed
// with its documented meaning), without a panic and within a deadline.
// Only parsing and validation run (kong calls each command's Validate), so
// nothing is written.
//
// Mutation control (run 2026-11-25): deleting the --queries check from
// SynthCmd.Validate makes this test fail for "synth --queries" values 0
// and -1; deleting the --workers check from IngestCmd.Validate fails it for
// "ingest --workers" 0 and -1.
func TestPrepEveryFlagRefusesBadValues(t *testing.T) {
	dir := t.TempDir()
	// base holds the other arguments that make each command valid; a pair
	// naming the flag under test is dropped.
	base := map[string][][2]string{
		"ingest":    {{"", "in.txt"}, {"--out", "out"}},
		"synth":     nil,
		"fit":       {{"", dir}, {"--features", "all"}, {"--alpha", "1e-3"}},
		"partition": {{"", dir}, {"--silos", "2"}},
		"all":       nil,
		"verify":    {{"", dir}},
	}
	var c cli
	parser, err := kong.New(&c, kong.Name("prep"), kong.Exit(func(int) { panic("exit") }))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	try := func(key, label string, args []string, r flagRule) {
		for _, v := range flagValues {
			if r.kind == "path" && v != "a\nb" {
				continue // a name: "0" is a file called 0
			}
			a := make([]string, len(args))
			for i, s := range args {
				a[i] = strings.ReplaceAll(s, "\x00", v)
			}
			err := parseWithin(t, a)
			if meaning, ok := r.ok[v]; ok {
				if err != nil {
					t.Errorf("prep %q: refused (%v), documented as %s", a, err, meaning)
				}
				continue
			}
			if err == nil {
				t.Errorf("%s = %q: accepted (no rule gives it a meaning): prep %q", key, v, a)
			} else if !strings.Contains(err.Error(), label) && !(strings.HasPrefix(label, "<") && strings.Contains(err.Error(), "unknown flag "+v)) {
				// (a positional argument "-1" is read as a flag, and named)
				t.Errorf("%s = %q: error does not name %s: %v", key, v, label, err)
			}
		}
	}
	var walk func(n *kong.Node, cmd string)
	walk = func(n *kong.Node, cmd string) {
		for _, f := range n.Flags {
			key := cmd + " --" + f.Name
			seen[key] = true
			r, ok := flagRules[key]
			if !ok {
				t.Errorf("flag %q has no rule in flagRules: say what 0, -1, NaN, +Inf, 1e308 and a newline must do", key)
				continue
			}
			if f.IsBool() != (r.kind == "bool") {
				t.Errorf("%s: bool %v but rule %q", key, f.IsBool(), r.kind)
			}
			if r.kind == "bool" || cmd == "" {
				continue
			}
			args := []string{cmd}
			for _, p := range base[cmd] {
				if p[0] != "--"+f.Name {
					args = append(args, p[0], p[1])
				}
			}
			try(key, "--"+f.Name, append(trimEmpty(args), "--"+f.Name+"=\x00"), r)
		}
		for i, p := range n.Positional {
			key := cmd + " <" + p.Name + ">"
			seen[key] = true
			r, ok := flagRules[key]
			if !ok {
				t.Errorf("argument %q has no rule in flagRules", key)
				continue
			}
			args := []string{cmd}
			k := 0
			for _, b := range base[cmd] {
				if b[0] == "" {
					if k == i {
						b[1] = "\x00"
					}
					k++
				}
				args = append(args, b[0], b[1])
			}
			if k <= i {
				args = append(args, "\x00")
			}
			try(key, "<"+p.Name+">", trimEmpty(args), r)
		}
		for _, ch := range n.Children {
			walk(ch, ch.Name)
		}
	}
	walk(parser.Model.Node, "")
	for key := range flagRules {
		if !seen[key] {
			t.Errorf("flagRules has %q, which is no flag of prep", key)
		}
	}
}

// trimEmpty drops the empty flag names that mark positional arguments.
func trimEmpty(args []string) []string {
	out := args[:0:0]
	for _, a := range args {
		if a != "" {
			out = append(out, a)
		}
	}
	return out
}

// parseWithin parses args with a fresh parser (parse and Validate only,
// never Run) under a deadline, turning a panic into an error that fails
// the caller's check.
func parseWithin(t *testing.T, args []string) error {
	t.Helper()
	var c cli
	parser, err := kong.New(&c, kong.Name("prep"), kong.Exit(func(int) { panic("exit") }))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("PANIC %v", p)
			}
		}()
		_, err := parser.Parse(args)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil && strings.HasPrefix(err.Error(), "PANIC") {
			t.Errorf("prep %q: %v", args, err)
		}
		return err
	case <-ctx.Done():
		t.Fatalf("prep %q: no answer within the deadline", args)
		return nil
	}
}

// TestR4efgklZeroFlags: attack round 2's explicit zeros (R4e, R4f, R4k, R4l)
// as the user typed them: each is refused naming the flag, never replaced
// by the default.
func TestR4efklZeroFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"synth", "--queries", "0", "--out", "s0.txt"}, "--queries 0"},                       // R4e
		{[]string{"synth", "--queries", "3", "--mean-docs", "0", "--out", "s1.txt"}, "--mean-docs 0"}, // R4f
		{[]string{"synth", "--queries", "3", "--max-docs", "0"}, "--max-docs 0"},
		{[]string{"synth", "--queries", "3", "--first-qid", "0"}, "--first-qid 0"},
		{[]string{"fit", dir, "--features", "all", "--alpha", "1e-4", "--workers", "0"}, "--workers 0"}, // R4k
		{[]string{"fit", dir, "--features", "all", "--alpha", "1e-4", "--workers=-1"}, "--workers -1"},
		{[]string{"ingest", "in.txt", "--out", "o", "--workers", "0"}, "--workers 0"},
		{[]string{"ingest", "in.txt", "--out", "o", "--features", "0"}, "--features 0"},
		{[]string{"ingest", "in.txt", "--out", "o", "--label-max", "0"}, "--label-max 0"}, // R4l
	} {
		err := parseWithin(t, tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("prep %q: err = %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestO2AllConfigErrorsNameKey: a bad value in a prep all config is named
// by its config key (CONFIG: fit[0].tol), not by a CLI flag.
func TestO2AllConfigErrorsNameKey(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ body, want string }{
		{"[[fit]]\nfeatures = \"all\"\nalpha = 1e-3\ntol = 0\n", "fit[0].tol 0"},
		{"[[fit]]\nfeatures = \"all\"\nalpha = 1e-3\n[[fit]]\nfeatures = \"all\"\ncv = true\nn_alphas = 0\n", "fit[1].n_alphas 0"},
		{"[[fit]]\nfeatures = \"\"\nalpha = 1e-3\n", "fit[0].features"},
		{"[[fit]]\nfeatures = \"all\"\nalpha = 0.0\n", "fit[0].alpha 0"},
		{"[[partition]]\nsilos = 0\n", "partition[0].silos 0"},
	} {
		cfg := dir + "/c.toml"
		if err := os.WriteFile(cfg, []byte("out = \"ds\"\n"+tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		err := prep(t, "all", cfg)
		if err == nil || !strings.Contains(err.Error(), cfg+": "+tc.want) || strings.Contains(err.Error(), "--") {
			t.Errorf("config %q: err = %v, want %q", tc.body, err, cfg+": "+tc.want)
		}
	}
}

// TestAllConfigReplacesFlags: a flag given together with a prep all
// config would be ignored; it is an error naming it.
func TestAllConfigReplacesFlags(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.toml")
	if err := os.WriteFile(cfg, []byte("out = \"ds\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"--out=x", "--input=x", "--force", "--alpha=1e-3", "--seed=3"} {
		err := parseWithin(t, []string{"all", cfg, flag})
		if name := strings.SplitN(flag, "=", 2)[0]; err == nil || !strings.Contains(err.Error(), name+" with CONFIG") {
			t.Errorf("prep all CONFIG %s: err = %v", flag, err)
		}
	}
}

// TestEmptyColumnNames: a Parquet column flag given with an empty name is
// an error naming the flag, never the default column (label, qid, f1..fN)
// that leaving the flag out means.
func TestEmptyColumnNames(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.parquet")
	if err := os.WriteFile(in, []byte("PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--label-column", ""},
		{"--qid-column", ""},
		{"--feature-columns", "f1,,f3"},
	} {
		err := prep(t, append([]string{"ingest", in, "--out", filepath.Join(t.TempDir(), "ds")}, args...)...)
		if err == nil || !strings.Contains(err.Error(), args[0]+": an empty column name") {
			t.Errorf("prep ingest %s %q: %v, want an error naming %s", args[0], args[1], err, args[0])
		}
	}
}

// TestR4_19EmptyFeatureColumns: --feature-columns with an empty value (kong
// made it an empty list, which meant the default f1..fN) is the same
// error as an empty name inside the list.
func TestR4_19EmptyFeatureColumns(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.parquet")
	if err := os.WriteFile(in, []byte("PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--feature-columns="}, {"--feature-columns", ""}} {
		err := prep(t, append([]string{"ingest", in, "--out", filepath.Join(t.TempDir(), "ds")}, args...)...)
		if err == nil || !strings.Contains(err.Error(), "--feature-columns: an empty column name") {
			t.Errorf("prep ingest %q: %v, want the empty-name error", args, err)
		}
	}
}
