package mab

import (
	"os"
	"strings"
	"testing"
)

// docs/mab.md lists every entry and every parameter key (the tables are
// hand-written: this keeps them from going stale).
func TestDocsListEverything(t *testing.T) {
	b, err := os.ReadFile("../docs/mab.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, a := range Algorithms {
		if !strings.Contains(doc, "| `"+a.Name+"` |") {
			t.Errorf("docs/mab.md: no table row for %q", a.Name)
		}
		for _, p := range a.Params {
			if !strings.Contains(doc, "| `"+p.Key+"` |") {
				t.Errorf("docs/mab.md: no row for parameter %q of %s", p.Key, a.Name)
			}
		}
	}
	for _, key := range []string{"arms", "gap", "means", "noise_sd", "reward", "seed", "means_from"} {
		if !strings.Contains(doc, "| `"+key+"` |") {
			t.Errorf("docs/mab.md: no row for instance key %q", key)
		}
	}
}
