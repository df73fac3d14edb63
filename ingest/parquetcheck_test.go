package ingest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/fedbandit/fedbandit/internal/nodetool"
)

// TestIndependentParquetReader opens the real MQ2008 output with hyparquet, a
// pure-JavaScript Parquet reader that shares no code with our writer
// (tools/parquet-check), and requires its counts, label histogram and
// per-feature statistics to equal the manifest. A manifest with one count
// changed must be rejected, so the checker itself is shown to bite.
// Skipped when node or the package is not installed, unless
// FEDBANDIT_REQUIRE_READERS=1 (CI), where it must run.
func TestIndependentParquetReader(t *testing.T) {
	node, script, ok := nodetool.Find(t, "..", "parquet-check", "hyparquet")
	if !ok {
		t.Skip("independent reader not installed (cd tools/parquet-check && npm ci)")
	}
	dir, m := ingestMQ2008(t)
	check := func() ([]byte, error) {
		return exec.Command(node, script, dir).CombinedOutput()
	}
	if out, err := check(); err != nil {
		t.Fatalf("hyparquet disagrees with the manifest: %v\n%s", err, out)
	}

	// Mutation control: the same file against a manifest claiming one row more.
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
