package ingest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/fedbandit/fedbandit/internal/nodetool"
)

// TestPolarsReadsDocuments loads the real MQ2008 documents.parquet with
// polars (npm nodejs-polars, tools/polars-check) in one call, as a notebook
// does, and requires every column typed (features float, qid, doc, label
// and part integers) and the row count, distinct queries and label
// histogram of the manifest. A manifest claiming one row more must be
// rejected (the checker bites). Skipped when node or the package is not
// installed, unless FEDBANDIT_REQUIRE_READERS=1 (CI), where it must run.
func TestPolarsReadsDocuments(t *testing.T) {
	node, script, ok := nodetool.Find(t, "..", "polars-check", "nodejs-polars")
	if !ok {
		t.Skip("independent reader not installed (cd tools/polars-check && npm ci)")
	}
	dir, m := ingestMQ2008(t)
	check := func() ([]byte, error) {
		return exec.Command(node, script, "dataset", dir).CombinedOutput()
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
