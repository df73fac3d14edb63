package ingest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/fedbandit/fedbandit/datasets/mq2008"
)

// TestLoadVerifiesDocuments: one changed byte in documents.parquet (offset
// 50000 of MQ2008, inside the data) is caught by Load, also after a
// successful load cached the check; an intact dataset is hashed once per
// content.
func TestLoadVerifiesDocuments(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if _, err := mq2008.Extract(src); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "mq2008")
	if _, err := Run(t.Context(), Options{Inputs: []string{src}, Out: out}); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(out, []int{1, 2}); err != nil {
		t.Fatalf("intact dataset: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, verifiedFile)); err != nil {
		t.Errorf("no verification record written: %v", err)
	}
	docs := filepath.Join(out, DocumentsFile)
	b, err := os.ReadFile(docs)
	if err != nil {
		t.Fatal(err)
	}
	b[50000] ^= 0x01
	// A later modification time, as any write has (the test writes
	// within the file system's timestamp resolution otherwise).
	if err := os.WriteFile(docs, b, 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(2 * time.Second)
	os.Chtimes(docs, later, later)
	_, err = Load(out, []int{1, 2})
	if err == nil || !strings.Contains(err.Error(), "changed or is corrupt") || !strings.Contains(err.Error(), docs) {
		t.Fatalf("tampered documents.parquet: err = %v", err)
	}
	if _, err := Verify(out); err == nil {
		t.Error("Verify accepted the tampered file")
	}
	// Restored content: accepted again.
	b[50000] ^= 0x01
	if err := os.WriteFile(docs, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(out, []int{1}); err != nil {
		t.Errorf("restored dataset: %v", err)
	}
}

// TestR2bTamperRestoringMtime (attack round 2, R2b): documents.parquet
// replaced by different bytes of the same size, its modification time set
// back, is caught by the next Load (in this process and, through
// .verified.json, in a new one): the status-change time moved.
//
// Mutation control (run 2026-11-25): a stamp without statIdentity (size
// and mtime only, the code before) makes this test fail.
func TestR2bTamperRestoringMtime(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the status-change time is read on Linux only")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if _, err := mq2008.Extract(src); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "mq2008")
	if _, err := Run(t.Context(), Options{Inputs: []string{src}, Out: out}); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(out, []int{1}); err != nil {
		t.Fatal(err)
	}
	docs := filepath.Join(out, DocumentsFile)
	st, err := os.Stat(docs)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(docs)
	b[50000] ^= 0x01
	if err := os.WriteFile(docs, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(docs, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if st2, _ := os.Stat(docs); st2.Size() != st.Size() || !st2.ModTime().Equal(st.ModTime()) {
		t.Fatal("setup: size or mtime differ")
	}
	for _, fresh := range []bool{false, true} {
		if fresh { // a new process: only .verified.json remembers
			abs, _ := filepath.Abs(docs)
			verified.Delete(abs)
		}
		if _, err := Load(out, []int{1}); err == nil || !strings.Contains(err.Error(), "changed or is corrupt") {
			t.Errorf("fresh process %v: tampered file with restored mtime loaded: %v", fresh, err)
		}
	}
}

// TestVerifyHashesOncePerContent: Load hashes documents.parquet once per
// content, the first time; later loads trust the stamp kept in this
// process or, in a new process, the one in .verified.json, unless that
// record is missing, unreadable or of other content.
func TestVerifyHashesOncePerContent(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "in.txt"), []byte(good))
	out := filepath.Join(dir, "out")
	if _, err := Run(t.Context(), Options{Inputs: []string{in}, Out: out}); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(filepath.Join(out, DocumentsFile))
	record := filepath.Join(out, verifiedFile)
	steps := []struct {
		name   string
		before func()
		hashes int64
	}{
		{"first load", func() {}, 1},
		{"second load, same process", func() {}, 0},
		{"same process, record removed", func() { os.Remove(record) }, 0},
		{"new process, record missing", func() { verified.Delete(abs) }, 1},
		{"new process, record kept", func() { verified.Delete(abs) }, 0},
		{"new process, record rewritten", func() { verified.Delete(abs) }, 0},
		{"new process, record unreadable", func() { verified.Delete(abs); os.WriteFile(record, []byte("{"), 0o644) }, 1},
		{"new process, record of other content", func() {
			verified.Delete(abs)
			os.WriteFile(record, []byte(`{"size":1,"mtime_ns":1,"documents_sha256":"00"}`), 0o644)
		}, 1},
		{"new process, record rewritten again", func() { verified.Delete(abs) }, 0},
	}
	for _, s := range steps {
		s.before()
		n := documentsHashed.Load()
		if _, err := Load(out, []int{1}); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := documentsHashed.Load() - n; got != s.hashes {
			t.Errorf("%s: %d hashes, want %d", s.name, got, s.hashes)
		}
	}
}

// TestStale: a dataset is stale when its inputs now hold other source files
// (more, fewer, or another file in a place) or a source's bytes changed;
// each reason names the file.
func TestStale(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "MQ2008")
	for _, s := range []string{"S1", "S2", "S3", "S4", "S5"} {
		writeFile(t, filepath.Join(root, s+".txt"), []byte(strings.ReplaceAll(good, "qid:", "qid:"+s[1:])))
	}
	single := writeFile(t, filepath.Join(dir, "single.txt"), []byte(good))
	out := filepath.Join(dir, "out")
	if _, err := Run(t.Context(), Options{Inputs: []string{root}, Out: out}); err != nil {
		t.Fatal(err)
	}
	stale := func(inputs ...string) string {
		t.Helper()
		why, err := Stale(out, Options{Inputs: inputs})
		if err != nil {
			t.Fatal(err)
		}
		return why
	}
	if why := stale(root); why != "" {
		t.Errorf("unchanged inputs: %q", why)
	}
	if why := stale(root, single); !strings.Contains(why, "the inputs hold 6 source files, the dataset was made from 5") {
		t.Errorf("one more source: %q", why)
	}
	if why := stale(single, single, single, single, single); !strings.HasPrefix(why, "source 1 is ") || !strings.HasSuffix(why, "single.txt, the dataset was made from MQ2008/S1.txt") {
		t.Errorf("other sources: %q", why)
	}
	// A changed byte in the third source.
	s3 := filepath.Join(root, "S3.txt")
	b, _ := os.ReadFile(s3)
	b[0] = '1'
	writeFile(t, s3, b)
	if why := stale(root); !strings.Contains(why, "S3.txt changed since the dataset was made") {
		t.Errorf("changed source: %q", why)
	}
	os.Remove(s3)
	if _, err := Stale(out, Options{Inputs: []string{root}}); err == nil || !strings.Contains(err.Error(), "S3.txt") {
		t.Errorf("missing source: %v", err)
	}
	if _, err := Stale(filepath.Join(dir, "nothing"), Options{Inputs: []string{single}}); err == nil {
		t.Error("no dataset: no error")
	}
}
