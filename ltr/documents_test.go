package ltr

import (
	"slices"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/lasso"
	"github.com/fedbandit/fedbandit/partition"
)

// TestLoadDocuments: the documents of a feature set without a theta* are
// Build's, bit for bit: the same learner's view X and the same partition
// (checked against Build after a fit), with the dataset's labels in
// order; the hash names the data, the feature set and the partition.
func TestLoadDocuments(t *testing.T) {
	dir := mq2008Dataset(t)
	o := DocOptions{Dataset: dir, Features: "all", Silos: 10}
	docs, err := LoadDocuments(o)
	if err != nil {
		t.Fatal(err)
	}
	fitAll(t, dir, lasso.ModelReference)
	ref, err := Build(Options{Dataset: dir, Features: "all", Model: lasso.ModelReference, Silos: 10})
	if err != nil {
		t.Fatal(err)
	}
	ds, err := ingest.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if docs.Dim != ref.Dim || docs.LabelMax != 2 || len(docs.Queries) != len(ref.Queries) || len(docs.Silos) != 10 {
		t.Fatalf("dim %d label max %d, %d queries, %d silos", docs.Dim, docs.LabelMax, len(docs.Queries), len(docs.Silos))
	}
	for i := range docs.Silos {
		if !slices.Equal(docs.Silos[i], ref.Silos[i]) {
			t.Fatalf("silo %d: %v, Build's %v", i, docs.Silos[i], ref.Silos[i])
		}
	}
	for q := range docs.Queries {
		if !slices.Equal(docs.Queries[q].X, ref.Queries[q].X) || !slices.Equal(docs.Queries[q].Labels, ds.Queries[q].Labels) {
			t.Fatalf("query %d: X or labels differ from Build's and the dataset's", q)
		}
	}
	again, err := LoadDocuments(o)
	if err != nil || again.Hash != docs.Hash {
		t.Fatalf("hash not stable: %v, %v", again, err)
	}
	hashes := map[string]string{docs.Hash: "base"}
	for name, v := range map[string]DocOptions{
		"features": {Dataset: dir, Features: "1-40", Silos: 10},
		"silos":    {Dataset: dir, Features: "all", Silos: 9},
		"strategy": {Dataset: dir, Features: "all", Silos: 10, Strategy: partition.Random},
		"seed":     {Dataset: dir, Features: "all", Silos: 10, Strategy: partition.Random, PartitionSeed: 3},
	} {
		d, err := LoadDocuments(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if prev, ok := hashes[d.Hash]; ok {
			t.Errorf("%s: the hash of %s", name, prev)
		}
		hashes[d.Hash] = name
	}
	for _, tc := range []struct {
		o    DocOptions
		want string
	}{
		{DocOptions{Dataset: dir, Features: "nosuch", Silos: 2}, "nosuch"},
		{DocOptions{Dataset: dir, Features: "all", Silos: 100000}, "100000"},
		{DocOptions{Dataset: t.TempDir(), Features: "all", Silos: 2}, "manifest"},
	} {
		if _, err := LoadDocuments(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.want)
		}
	}
}
