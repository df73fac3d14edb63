package registry

import (
	"strings"
	"testing"
)

// TestR4_11LTROneDocumentQueriesRefused: an ltr instance on a dataset whose
// queries all have one document (every round a single action, regret
// identically 0) is refused naming instance.dataset; one query of two
// documents among them is enough.
func TestR4_11LTROneDocumentQueriesRefused(t *testing.T) {
	one := tinyDataset(t, 2, [][2]int{{0, 1}, {1, 2}, {2, 3}})
	_, err := DecodeInstance(map[string]any{"name": "i", "kind": "ltr", "dataset": one, "features": "all"}, "")
	var ke *KeyError
	if !asKeyError(err, &ke) || ke.Key != "dataset" || !strings.Contains(ke.Msg, "every one of its 3 queries has 1 document") {
		t.Errorf("one-document queries: %v", err)
	}
	two := tinyDataset(t, 2, [][2]int{{0, 1}, {1, 2}, {2, 2}})
	if _, err := DecodeInstance(map[string]any{"name": "i", "kind": "ltr", "dataset": two, "features": "all"}, ""); err != nil {
		t.Errorf("a query of two documents: %v", err)
	}
}
