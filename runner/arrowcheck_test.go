package runner

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestIndependentReader opens a sweep's tables (with done and failed runs)
// with the npm apache-arrow package through tools/arrow-check. Skipped
// when node or the package is not installed, unless
// FEDBANDIT_REQUIRE_READERS=1 (CI), where it must run.
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
	tool, _ := filepath.Abs(filepath.Join("..", "tools", "arrow-check"))
	node, err := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(tool, "node_modules", "apache-arrow"))
	if err != nil || modErr != nil {
		if req, _ := strconv.ParseBool(os.Getenv("FEDBANDIT_REQUIRE_READERS")); req {
			t.Fatalf("independent reader required but not installed (run npm ci in %s): node %v, package %v", tool, err, modErr)
		}
		t.Skipf("independent reader not installed (cd tools/arrow-check && npm ci)")
	}
	cmd := exec.Command(node, append([]string{filepath.Join(tool, "check.mjs"), dir}, args...)...)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	return err
}
