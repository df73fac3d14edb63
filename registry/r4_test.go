package registry

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/ingest"
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

// TestR4_17MABLTRQueryOfOneLabel: a mab-ltr query whose documents all have
// one label is refused naming instance.query and the label, not the key
// means, which mab-ltr does not have.
func TestR4_17MABLTRQueryOfOneLabel(t *testing.T) {
	dir := tinyDataset(t, 3, [][2]int{{1, 5}, {1, 5}, {1, 5}, {0, 6}, {2, 6}})
	for _, model := range []map[string]any{{"click_model": "navigational"}, {"reward": "label"}} {
		table := map[string]any{"kind": "mab-ltr", "dataset": dir, "query": 5}
		for k, v := range model {
			table[k] = v
		}
		_, err := loadKind(t, table, Env{})
		var ke *KeyError
		if !asKeyError(err, &ke) || ke.Key != "query" || !strings.Contains(ke.Msg, "5: its 3 documents all have label 1") {
			t.Errorf("%v: %v", model, err)
		}
	}
}

// TestR4_20FloatInIntegerKey: a float in an integer key is echoed as the
// file spells it, with what to change, and mab-ltr's and bco-ltr's errors
// name the key as every kind's do (instance[0].query, not "instance[0]:
// query:").
func TestR4_20FloatInIntegerKey(t *testing.T) {
	for _, c := range []struct {
		table    map[string]any
		key, msg string
	}{
		{map[string]any{"kind": "mab", "gap": 0.5, "arms": 4.0}, "arms", "4.0: want an integer (no decimal point)"},
		{map[string]any{"kind": "mab-ltr", "dataset": "x", "query": 15522.0, "click_model": "perfect"}, "query", "15522.0: want an integer (no decimal point)"},
		{map[string]any{"kind": "bco-ltr", "dataset": "x", "seed": 2.0, "loss": "squared"}, "seed", "2.0: want an integer (no decimal point)"},
		{map[string]any{"kind": "mab", "gap": 0.5, "seed": 1.5}, "seed", "1.5: want an integer"},
	} {
		c.table["name"] = "i"
		_, err := DecodeInstance(c.table, "")
		var ke *KeyError
		if !asKeyError(err, &ke) || ke.Key != c.key || !strings.Contains(ke.Msg, c.msg) {
			t.Errorf("%v: %v, want key %s saying %q", c.table, err, c.key, c.msg)
		}
	}
}

// TestR4_22DescriptionCarriesTheDataset: two datasets under one directory
// name (a dataset before and after a re-ingest that changed one label)
// give mab-ltr, bco-ltr and ltr-click instances whose descriptions
// differ, by the dataset identity each carries (ingest.DataTag: data=
// and the ShortHash of data_sha256), so that a table or plot of old and
// new runs shows the differing word, not only a hash (the ltr kind's:
// ltr.TestBuildReference). Mutation: ltr.LoadDocuments's name without
// DataTag (as it was) fails the ltr-click case.
func TestR4_22DescriptionCarriesTheDataset(t *testing.T) {
	before := tinyDataset(t, 46, letorRows)
	changed := slices.Clone(letorRows)
	changed[0][0] = 1
	after := tinyDataset(t, 46, changed)
	if filepath.Base(before) != filepath.Base(after) {
		t.Fatalf("the datasets' directories are named %s and %s, want one name", before, after)
	}
	for _, table := range []map[string]any{
		{"kind": "mab-ltr", "query": int64(7), "click_model": "navigational"},
		{"kind": "bco-ltr", "features": "all", "loss": "squared"},
		{"kind": "ltr-click", "features": "all", "click_model": "navigational"},
	} {
		var names []string
		for _, dir := range []string{before, after} {
			table["dataset"] = dir
			table["name"] = "i"
			in, err := DecodeInstance(table, "")
			if err != nil {
				t.Fatal(err)
			}
			l, err := in.Load(1, Env{})
			if err != nil {
				t.Fatal(err)
			}
			man, err := ingest.ReadManifest(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(l.Name, " "+ingest.DataTag(man)+" ") || ingest.DataTag(man) != "data="+man.DataHash[:12] {
				t.Errorf("%s on %s: name %q lacks data=%s", table["kind"], dir, l.Name, man.DataHash[:12])
			}
			names = append(names, l.Name)
		}
		if names[0] == names[1] {
			t.Errorf("%s: one description %q for two datasets", table["kind"], names[0])
		}
	}
}
