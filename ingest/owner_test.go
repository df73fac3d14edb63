package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestR1gForceDropsListed (attack round 2, R1g): ForceDrops lists the
// fitted theta* and partitions that an ingest --force replacement drops,
// so that prep can say so before doing it.
func TestR1gForceDropsListed(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "good.txt"), []byte(good))
	out := filepath.Join(dir, "out")
	if _, err := Run(context.Background(), Options{Inputs: []string{in}, Out: out}); err != nil {
		t.Fatal(err)
	}
	if d := ForceDrops(out); len(d) != 0 {
		t.Errorf("fresh dataset: drops %v", d)
	}
	writeFile(t, filepath.Join(out, "instances", "all-reference-a0.001.theta.json"), []byte("{}"))
	writeFile(t, filepath.Join(out, "partitions", "contiguous-M2.json"), []byte("{}"))
	want := []string{filepath.Join(out, "instances", "all-reference-a0.001.theta.json"), filepath.Join(out, "partitions", "contiguous-M2.json")}
	if d := ForceDrops(out); strings.Join(d, ",") != strings.Join(want, ",") {
		t.Errorf("drops %v, want %v", d, want)
	}
}

// TestOD1ResultsDirNeverADataset: a results directory of run (its marker,
// or a manifest.json that is not a dataset's) is never replaced by
// ingest --force nor read as a dataset; nothing in it changes.
func TestOD1ResultsDirNeverADataset(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "good.txt"), []byte(good))
	res := filepath.Join(dir, "results")
	writeFile(t, filepath.Join(res, "manifest.json"), []byte(`{"sweep": "x", "runs": 4}`))
	writeFile(t, filepath.Join(res, DocumentsFile), []byte("not parquet"))
	for _, force := range []bool{false, true} {
		_, err := Run(context.Background(), Options{Inputs: []string{in}, Out: res, Force: force})
		if err == nil || !strings.Contains(err.Error(), "not a dataset manifest") && !strings.Contains(err.Error(), "already exists") {
			t.Errorf("force %v: err = %v", force, err)
		}
	}
	writeFile(t, filepath.Join(res, ResultsMarker), nil)
	for _, force := range []bool{false, true} {
		_, err := Run(context.Background(), Options{Inputs: []string{in}, Out: res, Force: force})
		if err == nil || !strings.Contains(err.Error(), "results directory") {
			t.Errorf("marked, force %v: err = %v", force, err)
		}
	}
	if _, err := ReadManifest(res); err == nil || !strings.Contains(err.Error(), "results directory") {
		t.Errorf("ReadManifest of a results directory: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(res, "manifest.json")); string(b) != `{"sweep": "x", "runs": 4}` {
		t.Errorf("the results manifest changed: %s", b)
	}
}

// TestIngestIntoEmptyDir: an existing empty directory (made by mkdir) is
// an output like a missing one; a non-empty one still needs --force.
func TestIngestIntoEmptyDir(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "good.txt"), []byte(good))
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), Options{Inputs: []string{in}, Out: out}); err != nil {
		t.Fatalf("empty directory: %v", err)
	}
	if _, err := ReadManifest(out); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), Options{Inputs: []string{in}, Out: out}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("non-empty directory without --force: %v", err)
	}
}
