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
