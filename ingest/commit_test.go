package ingest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// recordingDisk records commitDir's steps on the real file system and
// fails the step named in failAt (e.g. "rename tmp out").
type recordingDisk struct {
	names  map[string]string // path -> short name in the record
	steps  []string
	failAt string
}

func (r *recordingDisk) name(p string) string {
	for full, short := range r.names {
		if p == full {
			return short
		}
	}
	switch base := filepath.Base(p); {
	case strings.Contains(base, ".tmp-"):
		return "tmp"
	case strings.Contains(base, ".old-"):
		return "old"
	}
	return p
}

func (r *recordingDisk) step(s string) error {
	r.steps = append(r.steps, s)
	if s == r.failAt {
		return errors.New("injected failure: " + s)
	}
	return nil
}

// Create records the creation of a file and returns one that records its
// first write, any write after its fsync, its fsync and its close.
func (r *recordingDisk) Create(p string) (dataFile, error) {
	name := filepath.Base(p)
	if err := r.step("create " + name); err != nil {
		return nil, err
	}
	f, err := osDisk{}.Create(p)
	if err != nil {
		return nil, err
	}
	return &recordingFile{f: f, r: r, name: name}, nil
}

type recordingFile struct {
	f             dataFile
	r             *recordingDisk
	name          string
	wrote, synced bool
}

func (w *recordingFile) Write(b []byte) (int, error) {
	switch {
	case w.synced:
		if err := w.r.step("write after fsync " + w.name); err != nil {
			return 0, err
		}
	case !w.wrote:
		w.wrote = true
		if err := w.r.step("write " + w.name); err != nil {
			return 0, err
		}
	}
	return w.f.Write(b)
}

func (w *recordingFile) Sync() error {
	w.synced = true
	if err := w.r.step("fsync " + w.name); err != nil {
		return err
	}
	return w.f.Sync()
}

func (w *recordingFile) Close() error {
	if err := w.r.step("close " + w.name); err != nil {
		w.f.Close()
		return err
	}
	return w.f.Close()
}

func (r *recordingDisk) Rename(o, n string) error {
	if err := r.step("rename " + r.name(o) + " " + r.name(n)); err != nil {
		return err
	}
	return osDisk{}.Rename(o, n)
}

func (r *recordingDisk) SyncDir(dir string) error {
	if err := r.step("fsync " + r.name(dir)); err != nil {
		return err
	}
	return osDisk{}.SyncDir(dir)
}

func (r *recordingDisk) RemoveAll(p string) error {
	if err := r.step("remove " + r.name(p)); err != nil {
		return err
	}
	return osDisk{}.RemoveAll(p)
}

// withDisk runs f with commitDir's file system replaced by r.
func withDisk(t *testing.T, r *recordingDisk, f func()) {
	t.Helper()
	saved := disk
	disk = r
	defer func() { disk = saved }()
	f()
}

// TestCommitOrder observes the steps that write documents.parquet and
// publish a dataset directory: the file written, fsynced and closed (and
// nothing written after its fsync), the temp directory fsynced before it
// is renamed to out, the parent fsynced
// after, and, when --force replaces a dataset, the old one moved aside and
// deleted only after the parent's fsync has made the swap durable. A step
// failing leaves the old dataset in place (or the new one complete, when
// only the final fsync fails) and is reported.
func TestCommitOrder(t *testing.T) {
	dir := t.TempDir()
	first := writeFile(t, filepath.Join(dir, "first.txt"), []byte(good))
	second := writeFile(t, filepath.Join(dir, "second.txt"), []byte("1 qid:4 1:1 2:2 3:3\n"))
	out := filepath.Join(dir, "out")
	r := &recordingDisk{names: map[string]string{out: "out", dir: "parent"}}
	ingest := func(in string, force bool) error {
		r.steps = nil
		var err error
		withDisk(t, r, func() {
			_, err = Run(context.Background(), Options{Inputs: []string{in}, Out: out, Force: force})
		})
		return err
	}
	manifest := func() []byte {
		b, err := os.ReadFile(filepath.Join(out, ManifestFile))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	if err := ingest(first, false); err != nil {
		t.Fatal(err)
	}
	docs := []string{"create documents.parquet", "write documents.parquet", "fsync documents.parquet", "close documents.parquet"}
	if want := append(docs, "fsync tmp", "rename tmp out", "fsync parent"); !reflect.DeepEqual(r.steps, want) {
		t.Errorf("new dataset: steps %q, want %q", r.steps, want)
	}
	if _, err := os.Stat(filepath.Join(out, ownerFile)); !os.IsNotExist(err) {
		t.Errorf("owner file published: %v", err)
	}
	old := manifest()

	// A new dataset, each step failing in turn: nothing published unless
	// the rename happened, and the error reported either way.
	fresh := filepath.Join(dir, "fresh")
	r.names[fresh] = "fresh"
	for _, step := range append(docs, "fsync tmp", "rename tmp fresh", "fsync parent") {
		r.steps, r.failAt = nil, step
		var err error
		withDisk(t, r, func() {
			_, err = Run(context.Background(), Options{Inputs: []string{first}, Out: fresh})
		})
		r.failAt = ""
		if err == nil || !strings.Contains(err.Error(), "injected failure: "+step) {
			t.Errorf("new dataset, %s failing: error %v", step, err)
		}
		_, serr := os.Stat(filepath.Join(fresh, ManifestFile))
		if published := serr == nil; published != (step == "fsync parent") {
			t.Errorf("new dataset, %s failing: published %v", step, published)
		}
		os.RemoveAll(fresh)
		assertNoTemp(t, dir)
	}

	if err := ingest(second, true); err != nil {
		t.Fatal(err)
	}
	want := append(docs, "fsync tmp", "rename out old", "rename tmp out", "fsync parent", "remove old")
	if !reflect.DeepEqual(r.steps, want) {
		t.Errorf("replacement: steps %q, want %q", r.steps, want)
	}
	assertNoTemp(t, dir)
	replaced := manifest()

	// Each step failing in turn, replacing the dataset of second.txt by
	// that of first.txt.
	for _, step := range want {
		r.failAt = step
		err := ingest(first, true)
		r.failAt = ""
		if err == nil || !strings.Contains(err.Error(), "injected failure: "+step) {
			t.Errorf("%s failing: error %v", step, err)
		}
		i := 0
		for i < len(r.steps) && r.steps[i] != step {
			i++
		}
		// Nothing after a failing step, but the file's close (a write or
		// fsync failing) or moving the old dataset back (the rename).
		after := r.steps[min(i+1, len(r.steps)):]
		switch step {
		case "write documents.parquet", "fsync documents.parquet":
			if !reflect.DeepEqual(after, []string{"close documents.parquet"}) {
				t.Errorf("%s failing: steps after it: %q", step, after)
			}
		case "rename tmp out":
		default:
			if len(after) > 0 {
				t.Errorf("%s failing: steps after it: %q", step, after)
			}
		}
		got := manifest()
		switch step {
		case "fsync parent", "remove old":
			// The swap happened; only its durability (or the old
			// dataset's removal) is in doubt, and the error says so.
			if !bytes.Equal(got, old) {
				t.Errorf("%s failing: the new dataset is not in place", step)
			}
			// Leave out as the replaced dataset for the next step.
			r.failAt = ""
			if err := ingest(second, true); err != nil {
				t.Fatal(err)
			}
		default:
			if !bytes.Equal(got, replaced) {
				t.Errorf("%s failing: the old dataset was not kept", step)
			}
		}
		if step == "rename tmp out" {
			if last := r.steps[len(r.steps)-1]; last != "rename old out" {
				t.Errorf("rename tmp out failing: old dataset not moved back: %q", r.steps)
			}
		}
	}
	// What a failed step left beside out (the old dataset moved aside,
	// when its removal failed or came after a failed fsync) is cleaned by
	// the next run once it is a minute old (cleanLeftovers: no owner file,
	// so age tells it from a swap in progress).
	entries, _ := os.ReadDir(dir)
	aged := time.Now().Add(-2 * time.Minute)
	n := 0
	for _, e := range entries {
		if strings.Contains(e.Name(), ".old-") {
			n++
			if err := os.Chtimes(filepath.Join(dir, e.Name()), aged, aged); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d old datasets left by the failed fsync and removal, want 2", n)
	}
	if err := ingest(second, true); err != nil {
		t.Fatal(err)
	}
	assertNoTemp(t, dir)
	entries, _ = os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".old-") {
			t.Errorf("old dataset left behind: %s", e.Name())
		}
	}
}
