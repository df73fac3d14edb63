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

// TestLegacyResultsAdopted: a results directory of a release before the
// marker (run's own manifest.json beside runs/) is adopted, marker
// written, so that it resumes and collects (issue "One core": today's
// directories resume with no run redone; TestResumeLayout1 runs one end
// to end). A manifest of another schema, or one without runs/, is not.
func TestLegacyResultsAdopted(t *testing.T) {
	runManifest := `{"format_version":1,"runs":1,"done":1,"failed":0,"entries":[{"id":"ab","status":"done","group":"g"}]}`
	for name, c := range map[string]struct {
		manifest string
		runsDir  bool
		adopted  bool
	}{
		"legacy results":        {runManifest, true, true},
		"no runs directory":     {runManifest, false, false},
		"dataset manifest":      {`{"schema_version":1,"rows":15}`, true, false},
		"extra field":           {`{"format_version":1,"runs":0,"entries":[],"mine":1}`, true, false},
		"format version 0":      {`{"format_version":0,"runs":0,"entries":[]}`, true, false},
		"runs count mismatched": {`{"format_version":1,"runs":3,"entries":[]}`, true, false},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(c.manifest), 0o644); err != nil {
				t.Fatal(err)
			}
			if c.runsDir {
				os.Mkdir(filepath.Join(dir, "runs"), 0o755)
			}
			err := ClaimDir(dir)
			_, marked := os.Stat(filepath.Join(dir, ResultsMarker))
			if c.adopted && (err != nil || marked != nil) {
				t.Errorf("not adopted: %v (marker: %v)", err, marked)
			}
			if !c.adopted && (!errors.Is(err, ErrNotOwned) || marked == nil) {
				t.Errorf("adopted: err %v, marker written %v", err, marked == nil)
			}
		})
	}
}

// TestNotOwnedSaysWhy: the refusal of a directory without the marker says
// what it holds: a manifest.json that run did not write, or else one of
// its entries. Mutation control: the manifest.json test negated (each
// directory described as the other) fails.
func TestNotOwnedSaysWhy(t *testing.T) {
	for _, c := range []struct{ name, file, content, want string }{
		{"foreign manifest", "manifest.json", `{"mine":1}`, "it holds a manifest.json that run did not write"},
		{"other file", "notes.txt", "x", "it is not empty (e.g. notes.txt)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, c.file), []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			err := CheckOwned(dir)
			if !errors.Is(err, ErrNotOwned) || !strings.Contains(err.Error(), ": "+c.want) {
				t.Errorf("err = %v, want ErrNotOwned saying %q", err, c.want)
			}
		})
	}
}
