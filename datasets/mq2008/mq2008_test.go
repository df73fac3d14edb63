package mq2008

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The embedded bytes are exactly the published files (sha256 from SOURCE.md).
func TestEmbeddedChecksums(t *testing.T) {
	want := map[string]string{
		"S1.txt": "cbd42504549a2388f6c0aefdb506f22074225b574c7a5df10194174c9b00e4e0",
		"S2.txt": "055ac792cb8f7d5a029090b8acbfb6c57323339d1371251bf2465ac182aa8605",
		"S3.txt": "a03fe2b6e76479de60fecdb37d560a40a4e899b0cd685553d2da31ea205af1ab",
		"S4.txt": "a239850bc6fe960ad08c2b7b0d99db90fe976dd93a15358e98036591b4e7a2ac",
		"S5.txt": "c68c52feb1ecae7f17b64c8e2fda2098302681bbd4ea5fad8c73a1d32a1cf2b2",
	}
	dir := t.TempDir()
	paths, err := Extract(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 5 {
		t.Fatalf("Extract returned %d paths, want 5", len(paths))
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprintf("%x", sha256.Sum256(b))
		if got != want[filepath.Base(p)] {
			t.Errorf("%s: sha256 %s, want %s", p, got, want[filepath.Base(p)])
		}
	}
}
