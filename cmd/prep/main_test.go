package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/fedbandit/fedbandit/datasets/mq2008"
	"github.com/fedbandit/fedbandit/ltr"
)

// prep runs the real command tree in-process with args, as the binary would.
func prep(t *testing.T, args ...string) error {
	t.Helper()
	var c cli
	parser, err := kong.New(&c, kong.Name("prep"), kong.Exit(func(int) { t.Fatalf("prep %v exited", args) }))
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := parser.Parse(args)
	if err != nil {
		return err
	}
	return ctx.Run()
}

// TestPrepPipeline drives ingest -> fit -> partition on the real MQ2008 set
// through the CLI and checks that the artifacts form a usable instance.
func TestPrepPipeline(t *testing.T) {
	src := t.TempDir()
	if _, err := mq2008.Extract(src); err != nil {
		t.Fatal(err)
	}
	ds := filepath.Join(t.TempDir(), "mq2008")
	if err := prep(t, "ingest", src, "--out", ds); err != nil {
		t.Fatalf("ingest: %v", err)
	}
	// A second ingest into the same directory must refuse without --force.
	err := prep(t, "ingest", src, "--out", ds)
	if err == nil || !strings.Contains(err.Error(), "force") {
		t.Fatalf("re-ingest without --force: got %v, want an error naming --force", err)
	}
	if err := prep(t, "fit", ds, "--features", "all", "--alpha", "1e-4"); err != nil {
		t.Fatalf("fit: %v", err)
	}
	if err := prep(t, "partition", ds, "--silos", "10"); err != nil {
		t.Fatalf("partition: %v", err)
	}
	data, err := ltr.Build(ltr.Options{Dataset: ds, Features: "all", Model: "reference", Silos: 10, Strategy: "contiguous"})
	if err != nil {
		t.Fatalf("the prepared instance does not build: %v", err)
	}
	if data.Dim != 47 || len(data.Silos) != 10 || len(data.Silos[0]) != mq2008.Queries/10 {
		t.Fatalf("instance: d=%d, %d silos of %d queries; want d=47, 10 silos of %d", data.Dim, len(data.Silos), len(data.Silos[0]), mq2008.Queries/10)
	}
	// MQ2008's [0,1] features at alpha = 1 give an all-zero lasso: an error
	// that says so, never a silent instance with zero regret.
	err = prep(t, "fit", ds, "--features", "all", "--alpha", "1")
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "zero") {
		t.Fatalf("degenerate fit: got %v, want an error explaining the all-zero fit", err)
	}
}

// TestPrepBadInput checks that the CLI surfaces file, line and field.
func TestPrepBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("0 qid:1 1:0.5 2:0.25\n1 qid:1 1:0.5 2:abc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "ds")
	err := prep(t, "ingest", bad, "--out", out)
	if err == nil {
		t.Fatal("ingest accepted a non-numeric feature value")
	}
	for _, want := range []string{"bad.txt", "2", "abc"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if _, statErr := os.Stat(out); !os.IsNotExist(statErr) {
		t.Errorf("a failed ingest left %s behind", out)
	}
}

// TestPrepAllNoticesChangedInputs: `prep all` reuses a prepared dataset
// only when it was made from the inputs given; a changed input file or a
// different set of inputs is an error naming the reason (issue 14).
func TestPrepAllNoticesChangedInputs(t *testing.T) {
	src := t.TempDir()
	paths, err := mq2008.Extract(src)
	if err != nil {
		t.Fatal(err)
	}
	ds := filepath.Join(t.TempDir(), "mq2008")
	args := []string{"all", "-i", src, "-o", ds, "--features", "all", "--alpha", "1e-4", "--silos", "5"}
	if err := prep(t, args...); err != nil {
		t.Fatalf("prep all: %v", err)
	}
	if err := prep(t, args...); err != nil {
		t.Fatalf("prep all again, same inputs: %v", err)
	}
	if err := prep(t, "verify", ds); err != nil {
		t.Fatalf("prep verify: %v", err)
	}
	// One changed byte in S3.txt: a label 0 -> 1.
	b, _ := os.ReadFile(paths[2])
	b[0] = map[byte]byte{'0': '1', '1': '0', '2': '1'}[b[0]]
	os.WriteFile(paths[2], b, 0o644)
	err = prep(t, args...)
	if err == nil || !strings.Contains(err.Error(), "S3.txt changed since the dataset was made") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("changed input: err = %v", err)
	}
	other := append([]string{"all", "-i", paths[0]}, args[3:]...)
	if err := prep(t, other...); err == nil || !strings.Contains(err.Error(), "source files") {
		t.Fatalf("other inputs: err = %v", err)
	}
	// --force re-ingests from the changed input.
	if err := prep(t, append(args, "--force")...); err != nil {
		t.Fatalf("prep all --force: %v", err)
	}
	if err := prep(t, args...); err != nil {
		t.Fatalf("prep all after --force: %v", err)
	}
	// prep verify names a tampered theta artifact.
	thetas, _ := filepath.Glob(filepath.Join(ds, "instances", "*.theta.json"))
	tb, _ := os.ReadFile(thetas[0])
	os.WriteFile(thetas[0], []byte(strings.Replace(string(tb), `"alpha": 0.0001`, `"alpha": 0.0002`, 1)), 0o644)
	if err := prep(t, "verify", ds); err == nil || !strings.Contains(err.Error(), thetas[0]) {
		t.Fatalf("verify of a tampered theta: err = %v", err)
	}
}

// TestIngestForceKeepsInputs is issue 14's report as the user typed it:
// `prep ingest rawcopy --out rawcopy --force` must not delete the input.
func TestIngestForceKeepsInputs(t *testing.T) {
	raw := filepath.Join(t.TempDir(), "rawcopy")
	if _, err := mq2008.Extract(raw); err != nil {
		t.Fatal(err)
	}
	err := prep(t, "ingest", raw, "--out", raw, "--force")
	if err == nil || !strings.Contains(err.Error(), "inside the output directory") {
		t.Fatalf("err = %v", err)
	}
	for _, f := range append(append([]string{}, mq2008.Partitions...), "SOURCE.md") {
		if _, err := os.Stat(filepath.Join(raw, f)); err != nil {
			t.Errorf("input %s: %v", f, err)
		}
	}
}

// TestFitZeroFlagsValidated: a flag the user set to 0 is validated as given,
// never replaced by its default (issue 14).
func TestFitZeroFlagsValidated(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "mq2008")
	src := t.TempDir()
	if _, err := mq2008.Extract(src); err != nil {
		t.Fatal(err)
	}
	if err := prep(t, "ingest", src, "--out", ds); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--alpha", "0"}, "--alpha 0: want a penalty > 0"},
		{[]string{"--alpha=-1"}, "--alpha -1"},
		{[]string{"--cv", "--folds", "0"}, "--folds 0"},
		{[]string{"--cv", "--folds", "1"}, "--folds 1"},
		{[]string{"--cv", "--n-alphas", "0"}, "--n-alphas 0"},
		{[]string{"--cv", "--eps", "0"}, "--eps 0"},
		{[]string{"--alpha", "1e-3", "--tol", "0"}, "--tol 0"},
		{[]string{"--alpha", "1e-3", "--max-iter", "0"}, "--max-iter 0"},
		{nil, "give --alpha A or --cv"},
	} {
		err := prep(t, append([]string{"fit", ds, "--features", "all"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("prep fit %v: err = %v, want %q", tc.args, err, tc.want)
		}
	}
	if err := prep(t, "fit", ds, "--features", "all", "--cv", "--folds", "3", "--n-alphas", "4", "--eps", "0.5"); err != nil {
		t.Errorf("valid CV flags: %v", err)
	}
}

// TestR9aPrepAllMaxIter1: prep all with max_iter = 1 in a [[fit]] table
// refuses the unconverged fit (as prep fit does) and says how to keep it;
// with allow_unconverged = true it is kept under its own -unconverged name.
func TestR9aPrepAllMaxIter1(t *testing.T) {
	src := t.TempDir()
	if _, err := mq2008.Extract(src); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.toml")
	body := fmt.Sprintf("inputs = [%q]\nout = \"ds\"\n[[fit]]\nfeatures = \"all\"\nalpha = 1e-4\nmax_iter = 1\n", src)
	os.WriteFile(cfg, []byte(body), 0o644)
	err := prep(t, "all", cfg)
	if err == nil || !strings.Contains(err.Error(), "did not converge") || !strings.Contains(err.Error(), "allow_unconverged") {
		t.Fatalf("max_iter = 1: err = %v", err)
	}
	if ps, _ := filepath.Glob(filepath.Join(dir, "ds", "instances", "*.theta.json")); len(ps) != 0 {
		t.Fatalf("refused fit wrote %v", ps)
	}
	os.WriteFile(cfg, []byte(body+"allow_unconverged = true\n"), 0o644)
	if err := prep(t, "all", cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ds", "instances", "all-reference-a0.0001-maxiter1-unconverged.theta.json")); err != nil {
		t.Error(err)
	}
}
