package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOD1OD2OutputDirOwned (attack round 2, cases 1 and 2): a sweep
// refuses to write into a prepared dataset directory (prep's
// manifest.json) and into a project folder holding the user's own
// sweep.toml and manifest.json: every file is left byte-identical and the
// error names the directory and the marker. A missing or empty directory
// is claimed (marked) and a marked one is reused.
//
// Mutation control (run once): with ClaimDir's CheckOwned call replaced by
// a plain MkdirAll (the behaviour before), both refusals fail and the
// user's manifest.json is overwritten.
func TestOD1OD2OutputDirOwned(t *testing.T) {
	plan := mustPlan(t, tinyTOML)
	for name, files := range map[string]map[string]string{
		"OD1 dataset": {"manifest.json": `{"schema_version":1,"rows":15}`, "documents.parquet": "PAR1"},
		"OD2 project": {"sweep.toml": "name = \"mine\"\n", "manifest.json": `{"mine":1}`},
	} {
		dir := t.TempDir()
		for f, content := range files {
			os.WriteFile(filepath.Join(dir, f), []byte(content), 0o644)
		}
		_, err := sweepInto(t, plan, dir, 1, fakeSim{}, nil)
		if !errors.Is(err, ErrNotOwned) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), ResultsMarker) {
			t.Errorf("%s: err = %v", name, err)
		}
		ents, _ := os.ReadDir(dir)
		if len(ents) != len(files) {
			t.Errorf("%s: the directory now holds %d entries, want %d", name, len(ents), len(files))
		}
		for f, content := range files {
			if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != content {
				t.Errorf("%s: %s overwritten: %q", name, f, b)
			}
		}
		if _, err := Collect(dir); !errors.Is(err, ErrNotOwned) {
			t.Errorf("%s: collect: err = %v", name, err)
		}
	}
	// A file given as the directory.
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, []byte("x"), 0o644)
	if err := ClaimDir(file); !errors.Is(err, ErrNotOwned) {
		t.Errorf("file: err = %v", err)
	}
	// Missing (with parents) and empty directories are claimed; a marked
	// directory is reused (resume).
	missing := filepath.Join(t.TempDir(), "a", "b")
	empty := t.TempDir()
	for _, dir := range []string{missing, empty} {
		if _, err := sweepInto(t, plan, dir, 1, fakeSim{}, nil); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if _, err := os.Stat(filepath.Join(dir, ResultsMarker)); err != nil {
			t.Error(err)
		}
		rep, err := sweepInto(t, plan, dir, 1, fakeSim{}, nil)
		if err != nil || rep.Skipped != len(plan.Runs) {
			t.Errorf("%s: resume: %+v %v", dir, rep, err)
		}
	}
}
