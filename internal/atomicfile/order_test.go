package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// recorder is a file system that logs every step Write takes (on the
// real disk underneath) and can fail one named step.
type recorder struct {
	log  []string
	dirs []string // CreateTemp's directory arguments
	fail string   // step to fail: "write", "chmod", "sync", "close", "rename", "syncdir"
}

var errInjected = errors.New("injected failure")

func (r *recorder) step(name string) error {
	r.log = append(r.log, name)
	if name == r.fail {
		return errInjected
	}
	return nil
}

type recFile struct {
	f *os.File
	r *recorder
}

func (f *recFile) Name() string { return f.f.Name() }
func (f *recFile) Write(p []byte) (int, error) {
	if err := f.r.step("write"); err != nil {
		return 0, err
	}
	return f.f.Write(p)
}
func (f *recFile) Chmod(m os.FileMode) error {
	if err := f.r.step("chmod"); err != nil {
		return err
	}
	return f.f.Chmod(m)
}
func (f *recFile) Sync() error {
	if err := f.r.step("sync"); err != nil {
		return err
	}
	return f.f.Sync()
}
func (f *recFile) Close() error {
	if err := f.r.step("close"); err != nil {
		f.f.Close()
		return err
	}
	return f.f.Close()
}

func (r *recorder) CreateTemp(dir, pattern string) (tempFile, error) {
	r.log = append(r.log, "create")
	r.dirs = append(r.dirs, dir)
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return &recFile{f: f, r: r}, nil
}
func (r *recorder) Rename(o, n string) error {
	if err := r.step("rename"); err != nil {
		return err
	}
	return os.Rename(o, n)
}
func (r *recorder) Remove(name string) error {
	r.log = append(r.log, "remove")
	return os.Remove(name)
}
func (r *recorder) SyncDir(dir string) error {
	if err := r.step("syncdir"); err != nil {
		return err
	}
	return syncDir(dir)
}

func withRecorder(t *testing.T, r *recorder) {
	t.Helper()
	disk = r
	t.Cleanup(func() { disk = osDisk{} })
}

// TestWriteOrder: Write takes its steps in the only durable order:
// create the temp file, write, chmod, fsync, close, rename over the
// target, fsync the directory. Dropping the fsync, or renaming before the
// fsync and close (the faults of the data-path review), fails here.
func TestWriteOrder(t *testing.T) {
	r := &recorder{}
	withRecorder(t, r)
	path := filepath.Join(t.TempDir(), "f.txt")
	if err := WriteFile(path, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	want := []string{"create", "write", "chmod", "sync", "close", "rename", "syncdir"}
	if !slices.Equal(r.log, want) {
		t.Fatalf("steps %v, want %v", r.log, want)
	}
	if b, _ := os.ReadFile(path); string(b) != "hello" {
		t.Errorf("content %q", b)
	}
	// The temp file is made beside the target (a rename is atomic only
	// within one file system).
	if want := filepath.Dir(path) + string(filepath.Separator); len(r.dirs) != 1 || r.dirs[0] != want {
		t.Errorf("temp file made in %q, want %q", r.dirs, want)
	}
	// A bare file name is written in the current directory.
	t.Chdir(filepath.Dir(path))
	r.log, r.dirs = nil, nil
	if err := Write("g.txt", func(w io.Writer) error { _, err := w.Write([]byte("x")); return err }); err != nil {
		t.Fatal(err)
	}
	if len(r.dirs) != 1 || r.dirs[0] != "." {
		t.Errorf("bare name: temp file made in %q, want \".\"", r.dirs)
	}
}

// TestWriteFailingStep: whatever step before the rename fails, the old
// content stays, no temp file is left and the error names the step; a
// failing rename likewise; a failing directory fsync is reported (the
// new content is in place: the rename happened).
func TestWriteFailingStep(t *testing.T) {
	for _, step := range []string{"write", "chmod", "sync", "close", "rename", "syncdir"} {
		t.Run(step, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.txt")
			if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			r := &recorder{fail: step}
			withRecorder(t, r)
			err := Write(path, func(w io.Writer) error { _, err := w.Write([]byte("new")); return err })
			if !errors.Is(err, errInjected) {
				t.Fatalf("err = %v, want the injected failure", err)
			}
			names := map[string]string{"write": "write", "sync": "fsync", "close": "close", "rename": "rename", "syncdir": "", "chmod": ""}
			if n := names[step]; n != "" && !strings.Contains(err.Error(), n) {
				t.Errorf("error %q does not name the %s step", err, n)
			}
			b, _ := os.ReadFile(path)
			want := "old"
			if step == "syncdir" {
				want = "new"
			}
			if string(b) != want {
				t.Errorf("content %q after a failing %s, want %q", b, step, want)
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 {
				t.Errorf("%d entries left in the directory (temp file not removed?)", len(ents))
			}
			if step != "syncdir" && step != "rename" && slices.Contains(r.log, "rename") {
				t.Errorf("renamed after a failing %s: %v", step, r.log)
			}
		})
	}
}
