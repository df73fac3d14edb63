// Package nodetool finds the independent readers of tools/ (Node.js
// checkers of our Parquet and Arrow output, installed with npm) for the
// tests of several packages.
package nodetool

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// Find returns node and the path of tools/<name>/check.mjs under the
// repository root root (relative to the test's directory), with ok
// false when node or the npm package pkg is not installed. A test that
// requires the readers (FEDBANDIT_REQUIRE_READERS=1, as in CI) fails
// instead: there the check must run.
func Find(t testing.TB, root, name, pkg string) (node, script string, ok bool) {
	t.Helper()
	tool, err := filepath.Abs(filepath.Join(root, "tools", name))
	if err != nil {
		t.Fatal(err)
	}
	node, nodeErr := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(tool, "node_modules", pkg))
	if nodeErr != nil || modErr != nil {
		if req, _ := strconv.ParseBool(os.Getenv("FEDBANDIT_REQUIRE_READERS")); req {
			t.Fatalf("independent reader required but not installed (run npm ci in %s): node %v, package %v", tool, nodeErr, modErr)
		}
		return "", "", false
	}
	return node, filepath.Join(tool, "check.mjs"), true
}
