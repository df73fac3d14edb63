package outputs

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// collectSample writes n per-run files into dir/runs and collects them.
func collectSample(t *testing.T, dir string, n int) {
	t.Helper()
	os.MkdirAll(filepath.Join(dir, RunsDir), 0o755)
	for i := 0; i < n; i++ {
		id := strings.Repeat(string(rune('a'+i)), 64)
		rec := sampleRecord(id, uint64(i+1))
		if err := WriteRun(RunPath(dir, id), &rec, samplePoints); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Collect(dir); err != nil {
		t.Fatal(err)
	}
}

// TestFD3TablesOneCommit (attack round 2, case 33): runs.arrow and
// curves.arrow are one collect's pair. A curves.arrow from another collect
// is refused by ReadTables with a message naming the file and `run
// collect`; a collect whose curves write fails (a full disk) leaves the
// previous pair byte-identical and readable.
//
// Mutation control (run once): publishing each table as soon as it is
// staged (rename inside the staging loop, as separate WriteRuns and
// WriteCurves calls did) makes the failed collect replace runs.arrow
// (and leave a 3-run runs.arrow beside a 2-run curves.arrow); this test
// then fails ("runs.arrow changed by the failed collect").
func TestFD3TablesOneCommit(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	collectSample(t, a, 2)
	collectSample(t, b, 3)
	runs, curves, err := ReadTables(a)
	if err != nil || len(runs) != 2 || len(curves) != 2*len(samplePoints) {
		t.Fatalf("consistent pair: %d runs, %d curve rows, %v", len(runs), len(curves), err)
	}

	// A curves.arrow of another collect.
	other, _ := os.ReadFile(filepath.Join(b, CurvesFile))
	saved, _ := os.ReadFile(filepath.Join(a, CurvesFile))
	os.WriteFile(filepath.Join(a, CurvesFile), other, 0o644)
	if _, _, err := ReadTables(a); !errors.Is(err, ErrTablesMismatch) || !strings.Contains(err.Error(), CurvesFile) || !strings.Contains(err.Error(), "run collect") {
		t.Errorf("mismatched pair: err = %v", err)
	}
	os.WriteFile(filepath.Join(a, CurvesFile), saved, 0o644)

	// No tables.json (an older collect): refused, not guessed.
	tj, _ := os.ReadFile(filepath.Join(a, TablesFile))
	os.Remove(filepath.Join(a, TablesFile))
	if _, _, err := ReadTables(a); !errors.Is(err, ErrTablesMismatch) {
		t.Errorf("no %s: err = %v", TablesFile, err)
	}
	os.WriteFile(filepath.Join(a, TablesFile), tj, 0o644)

	// A third run, then a collect whose curves.arrow cannot be written.
	before := map[string][]byte{}
	for _, f := range []string{RunsFile, CurvesFile, TablesFile} {
		before[f], _ = os.ReadFile(filepath.Join(a, f))
	}
	id := strings.Repeat("f", 64)
	rec := sampleRecord(id, 9)
	if err := WriteRun(RunPath(a, id), &rec, samplePoints); err != nil {
		t.Fatal(err)
	}
	stageFile = func(dir, name string, write func(io.Writer) error) (string, error) {
		if name == CurvesFile {
			return "", syscall.ENOSPC
		}
		return stage(dir, name, write)
	}
	_, err = Collect(a)
	stageFile = stage
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "previous tables are unchanged") {
		t.Errorf("collect on a full disk: err = %v", err)
	}
	for f, want := range before {
		if got, _ := os.ReadFile(filepath.Join(a, f)); !bytes.Equal(got, want) {
			t.Errorf("%s changed by the failed collect", f)
		}
	}
	ents, _ := os.ReadDir(a)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), TempSuffix) {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
	if runs, _, err := ReadTables(a); err != nil || len(runs) != 2 {
		t.Errorf("after the failed collect: %d runs, %v", len(runs), err)
	}
	if _, err := Collect(a); err != nil {
		t.Fatal(err)
	}
	if runs, _, err := ReadTables(a); err != nil || len(runs) != 3 {
		t.Errorf("after collecting again: %d runs, %v", len(runs), err)
	}
}
