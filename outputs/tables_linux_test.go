//go:build linux

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
	var recs []RunRecord
	for _, f := range s.Runs {
		recs = append(recs, f.Record)
	}
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
