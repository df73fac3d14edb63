package runner

import (
	"errors"
	"os/exec"
	"testing"

	"github.com/fedbandit/fedbandit/internal/nodetool"
)

// TestIndependentReader opens a sweep's tables (with done and failed runs)
// with the npm apache-arrow package through tools/arrow-check, and with
// polars (npm nodejs-polars) through tools/polars-check. Skipped when node
// or the packages are not installed, unless FEDBANDIT_REQUIRE_READERS=1
// (CI), where they must run. TestResumeLayout1 runs both on tables with
// parameters (feducb's sync_threshold, null for layout-1 runs).
func TestIndependentReader(t *testing.T) {
	plan := mustPlan(t, tinyTOML)
	dir := t.TempDir()
	if _, err := sweepInto(t, plan, dir, 2, fakeSim{failSeed: 2}, nil); !errors.Is(err, ErrRunsFailed) {
		t.Fatal(err)
	}
	// 4 configurations x 3 seeds; seed 2 fails; 10 checkpoints per run.
	requireArrowCheck(t, dir, "--runs", "12", "--done", "8", "--failed", "4", "--curve-rows", "80")
	// The checker must reject a mismatch.
	if err := arrowCheck(t, dir, "--runs", "13"); err == nil {
		t.Error("arrow-check accepted a wrong row count")
	}
	requirePolarsCheck(t, "sweep", dir, "--runs", "12", "--curve-rows", "80")
	if err := nodeTool(t, "polars-check", "nodejs-polars", "sweep", dir, "--runs", "13"); err == nil {
		t.Error("polars-check accepted a wrong row count")
	}
}

// requirePolarsCheck runs tools/polars-check/check.mjs (mode "sweep" or
// "dataset") on dir and fails the test if it reports a mismatch.
func requirePolarsCheck(t *testing.T, mode, dir string, args ...string) {
	t.Helper()
	if err := nodeTool(t, "polars-check", "nodejs-polars", append([]string{mode, dir}, args...)...); err != nil {
		t.Fatal(err)
	}
}

// requireArrowCheck runs tools/arrow-check/check.mjs on dir and fails the test if
// it reports a mismatch.
func requireArrowCheck(t *testing.T, dir string, args ...string) {
	t.Helper()
	if err := arrowCheck(t, dir, args...); err != nil {
		t.Fatal(err)
	}
}

func arrowCheck(t *testing.T, dir string, args ...string) error {
	t.Helper()
	return nodeTool(t, "arrow-check", "apache-arrow", append([]string{dir}, args...)...)
}

// nodeTool runs tools/<name>/check.mjs with args; pkg is the npm package
// it needs. It skips the test when node or the package is missing, unless
// FEDBANDIT_REQUIRE_READERS=1.
func nodeTool(t *testing.T, name, pkg string, args ...string) error {
	t.Helper()
	node, script, ok := nodetool.Find(t, "..", name, pkg)
	if !ok {
		t.Skipf("independent reader not installed (cd tools/%s && npm ci)", name)
	}
	cmd := exec.Command(node, append([]string{script}, args...)...)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	return err
}
