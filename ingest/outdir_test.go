package ingest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// listTree returns every file below dir (relative paths), sorted.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// letorDir writes a LETOR 4.0 directory (S1..S5.txt and a SOURCE.md) at dir.
func letorDir(t *testing.T, dir string) {
	t.Helper()
	for i := 1; i <= 5; i++ {
		writeFile(t, filepath.Join(dir, "S"+strconv.Itoa(i)+".txt"), []byte(strconv.Itoa(i%3)+" qid:"+strconv.Itoa(i)+" 1:0.5 2:1 3:-2\n"))
	}
	writeFile(t, filepath.Join(dir, "SOURCE.md"), []byte("where it came from\n"))
}

// TestForceNeverDeletesInputs: the data-loss cases of `prep ingest --force`.
// Each must fail with a clear error and leave every file where it was.
func TestForceNeverDeletesInputs(t *testing.T) {
	ctx := context.Background()
	t.Run("input is the output", func(t *testing.T) {
		// prep ingest rawcopy --out rawcopy --force
		raw := filepath.Join(t.TempDir(), "rawcopy")
		letorDir(t, raw)
		before := listTree(t, raw)
		_, err := Run(ctx, Options{Inputs: []string{raw}, Out: raw, Force: true})
		if err == nil || !strings.Contains(err.Error(), "inside the output directory") {
			t.Fatalf("err = %v, want an error saying the input lies inside the output", err)
		}
		if got := listTree(t, raw); strings.Join(got, ",") != strings.Join(before, ",") {
			t.Fatalf("files changed: %v -> %v", before, got)
		}
	})
	t.Run("input inside the output", func(t *testing.T) {
		dir := t.TempDir()
		out := filepath.Join(dir, "data")
		letorDir(t, filepath.Join(out, "raw", "MQ2008"))
		in := filepath.Join(out, "raw", "MQ2008", "S1.txt")
		before := listTree(t, out)
		// Also through a relative path with a "..": still the same file.
		wd, _ := os.Getwd()
		defer os.Chdir(wd)
		os.Chdir(dir)
		_, err := Run(ctx, Options{Inputs: []string{"data/raw/../raw/MQ2008/S1.txt"}, Out: "data", Force: true})
		if err == nil || !strings.Contains(err.Error(), "inside the output directory") {
			t.Fatalf("err = %v", err)
		}
		if got := listTree(t, out); strings.Join(got, ",") != strings.Join(before, ",") {
			t.Fatalf("files changed: %v -> %v", before, got)
		}
		if _, err := os.Stat(in); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("output reached through a symbolic link", func(t *testing.T) {
		// prep ingest raw --out link --force, link -> raw
		dir := t.TempDir()
		raw := filepath.Join(dir, "raw")
		letorDir(t, raw)
		link := filepath.Join(dir, "link")
		if err := os.Symlink(raw, link); err != nil {
			t.Skip("no symbolic links:", err)
		}
		before := listTree(t, raw)
		_, err := Run(ctx, Options{Inputs: []string{raw}, Out: link, Force: true})
		if err == nil || !strings.Contains(err.Error(), "inside the output directory") {
			t.Fatalf("err = %v, want an error saying the input lies inside the output", err)
		}
		if got := listTree(t, raw); strings.Join(got, ",") != strings.Join(before, ",") {
			t.Fatalf("files changed: %v -> %v", before, got)
		}
	})
	t.Run("unrelated files in a dataset directory", func(t *testing.T) {
		dir := t.TempDir()
		in := writeFile(t, filepath.Join(dir, "good.txt"), []byte(good))
		out := filepath.Join(dir, "out")
		if _, err := Run(ctx, Options{Inputs: []string{in}, Out: out}); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(out, "notes.txt"), []byte("mine\n"))
		writeFile(t, filepath.Join(out, "raw", "S1.txt"), []byte(good))
		before := listTree(t, out)
		_, err := Run(ctx, Options{Inputs: []string{in}, Out: out, Force: true})
		if err == nil || !strings.Contains(err.Error(), "notes.txt, raw") {
			t.Fatalf("err = %v, want an error naming notes.txt and raw", err)
		}
		if got := listTree(t, out); strings.Join(got, ",") != strings.Join(before, ",") {
			t.Fatalf("files changed: %v -> %v", before, got)
		}
	})
	t.Run("a directory that is not a dataset", func(t *testing.T) {
		dir := t.TempDir()
		in := writeFile(t, filepath.Join(dir, "good.txt"), []byte(good))
		out := filepath.Join(dir, "home")
		writeFile(t, filepath.Join(out, "thesis.tex"), []byte("years of work\n"))
		_, err := Run(ctx, Options{Inputs: []string{in}, Out: out, Force: true})
		if err == nil || !strings.Contains(err.Error(), "has no manifest.json") {
			t.Fatalf("err = %v", err)
		}
		if _, err := os.Stat(filepath.Join(out, "thesis.tex")); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a dataset with its own artifacts is replaced", func(t *testing.T) {
		dir := t.TempDir()
		in := writeFile(t, filepath.Join(dir, "good.txt"), []byte(good))
		out := filepath.Join(dir, "out")
		if _, err := Run(ctx, Options{Inputs: []string{in}, Out: out}); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(out, "instances", "x.theta.json"), []byte("{}"))
		writeFile(t, filepath.Join(out, "partitions", "contiguous-M2.json"), []byte("{}"))
		if _, err := Run(ctx, Options{Inputs: []string{in}, Out: out, Force: true}); err != nil {
			t.Fatal(err)
		}
		if got := listTree(t, out); strings.Join(got, ",") != "documents.parquet,manifest.json" {
			t.Fatalf("after --force: %v", got)
		}
		assertNoTemp(t, dir)
	})
}

// deadPid returns the pid of a process that has exited.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	return cmd.Process.Pid
}

// TestLeftoversCleaned: a killed ingest leaves its hidden temporary
// directory (and, between the two renames of a replacement, the old
// dataset moved aside); the next ingest into the same output removes or
// restores them, and leaves alone those of an ingest still running.
func TestLeftoversCleaned(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "good.txt"), []byte(good))
	out := filepath.Join(dir, "out")
	dead := filepath.Join(dir, ".out.tmp-111")
	writeFile(t, filepath.Join(dead, ownerFile), []byte(strconv.Itoa(deadPid(t))))
	writeFile(t, filepath.Join(dead, DocumentsFile), make([]byte, 1000))
	live := filepath.Join(dir, ".out.tmp-222")
	writeFile(t, filepath.Join(live, ownerFile), []byte("1")) // init: alive
	// Owner files naming no process: abandoned.
	var bogus []string
	for i, pid := range []string{"0", "-5", "x", ""} {
		p := filepath.Join(dir, ".out.tmp-4"+strconv.Itoa(i))
		writeFile(t, filepath.Join(p, ownerFile), []byte(pid))
		bogus = append(bogus, p)
	}
	// No owner file (killed between mkdir and writing it): abandoned
	// after a minute untouched, kept before.
	young := filepath.Join(dir, ".out.tmp-555")
	aged := filepath.Join(dir, ".out.tmp-666")
	for _, p := range []string{young, aged} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-61 * time.Second)
	if err := os.Chtimes(aged, past, past); err != nil {
		t.Fatal(err)
	}
	// The old dataset moved aside, out missing: restored.
	if _, err := Run(context.Background(), Options{Inputs: []string{in}, Out: filepath.Join(dir, "prev")}); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "prev"), filepath.Join(dir, ".out.old-333")); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), Options{Inputs: []string{in}, Out: out})
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("the moved-aside dataset was not restored to out: err = %v", err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("dead run's temp dir still there: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a running ingest's temp dir was removed: %v", err)
	}
	for _, p := range append(bogus, aged) {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("abandoned temp dir %s still there: %v", filepath.Base(p), err)
		}
	}
	if _, err := os.Stat(young); err != nil {
		t.Errorf("a temp dir made just now, without its owner file yet, was removed: %v", err)
	}
	if _, err := ReadManifest(out); err != nil {
		t.Errorf("restored dataset: %v", err)
	}
}
