package ingest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestPolarsReadsDocuments loads the real MQ2008 documents.parquet with
// polars (npm nodejs-polars, tools/polars-check) in one call, as a notebook
// does, and requires every column typed (features float, qid, doc, label
// and part integers) and the row count, distinct queries and label
// histogram of the manifest. A manifest claiming one row more must be
// rejected (the checker bites). Skipped when node or the package is not
// installed, unless FEDBANDIT_REQUIRE_READERS=1 (CI), where it must run.
func TestPolarsReadsDocuments(t *testing.T) {
	tool, err := filepath.Abs(filepath.Join("..", "tools", "polars-check"))
	if err != nil {
		t.Fatal(err)
	}
	node, nodeErr := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(tool, "node_modules", "nodejs-polars"))
	if nodeErr != nil || modErr != nil {
		if req, _ := strconv.ParseBool(os.Getenv("FEDBANDIT_REQUIRE_READERS")); req {
			t.Fatalf("independent reader required but not installed (run npm ci in %s): node %v, package %v", tool, nodeErr, modErr)
		}
		t.Skip("independent reader not installed (cd tools/polars-check && npm ci)")
	}
	dir, m := ingestMQ2008(t)
	check := func() ([]byte, error) {
		return exec.Command(node, filepath.Join(tool, "check.mjs"), "dataset", dir).CombinedOutput()
	}
	out, err := check()
	if err != nil {
		t.Fatalf("polars disagrees with the manifest: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	bad := *m
	bad.Rows++
	b, err := json.Marshal(&bad)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := check(); err == nil {
		t.Fatalf("checker accepted a manifest with a wrong row count:\n%s", out)
	}
}
