package outputs

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
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
	stageFile = func(dir, name string, data []byte) (string, error) {
		if name == CurvesFile {
			return "", syscall.ENOSPC
		}
		return stage(dir, name, data)
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

// TestFD3FullDiskTmpfs is TestFD3TablesOneCommit on a real full disk: a
// 4 MiB tmpfs, filled so that the new runs.arrow fits and curves.arrow
// does not (the round's reproduction). The collect fails with "no space
// left on device", and the previous pair is still the one ReadTables
// returns. It needs root (mount); elsewhere it is skipped. Mutation
// control (run once): publishing each table as soon as it is staged made
// it fail ("runs.arrow changed by the failed collect").
func TestFD3FullDiskTmpfs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	long := make([]Point, 2000)
	for i := range long {
		long[i] = Point{Round: int64(i + 1), Pseudo: float64(i) * 0.5, Realised: float64(i) * 0.25, Syncs: int64(i / 10)}
	}
	os.MkdirAll(filepath.Join(dir, RunsDir), 0o755)
	write := func(i int) {
		id := strings.Repeat(string(rune('a'+i)), 64)
		rec := sampleRecord(id, uint64(i+1))
		rec.T, rec.Rounds, rec.Every = 2000, 2000, 1
		if err := WriteRun(RunPath(dir, id), &rec, long); err != nil {
			t.Fatal(err)
		}
	}
	write(0)
	write(1)
	if _, err := Collect(dir); err != nil {
		t.Fatal(err)
	}
	before := map[string][]byte{}
	for _, f := range []string{RunsFile, CurvesFile, TablesFile} {
		before[f], _ = os.ReadFile(filepath.Join(dir, f))
	}
	write(2)
	// Leave room for the new runs.arrow (and its page rounding), not for
	// the new curves.arrow (three runs of 2000 checkpoints).
	s, _ := ScanRuns(dir)
	recs, _ := Tables(s.Runs)
	rb, _ := EncodeRuns(recs)
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * st.Bsize
	filler := free - int64(len(rb)) - 2*st.Bsize
	if filler <= 0 {
		t.Fatalf("tmpfs too small: %d bytes free, runs.arrow %d", free, len(rb))
	}
	if err := os.WriteFile(filepath.Join(dir, "filler"), make([]byte, filler), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Collect(dir)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("collect on the full disk: err = %v", err)
	}
	for f, want := range before {
		if got, _ := os.ReadFile(filepath.Join(dir, f)); !bytes.Equal(got, want) {
			t.Errorf("%s changed by the failed collect", f)
		}
	}
	if runs, curves, err := ReadTables(dir); err != nil || len(runs) != 2 || len(curves) != 2*len(long) {
		t.Errorf("after the failed collect: %d runs, %d curve rows, %v", len(runs), len(curves), err)
	}
	os.Remove(filepath.Join(dir, "filler"))
	if _, err := Collect(dir); err != nil {
		t.Fatal(err)
	}
	if runs, _, err := ReadTables(dir); err != nil || len(runs) != 3 {
		t.Errorf("after collecting again: %d runs, %v", len(runs), err)
	}
}
