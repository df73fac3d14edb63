package registry

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/ltr"
)

// TestLTRClickData: an ltr-click instance is the dataset's partitioned
// documents (ltr.LoadDocuments, the learner's view) with each document's
// mean its click model's probability of its label, played as Bernoulli
// rewards without noise; the hash tells click models and M apart, and
// the plan's memory estimate counts the dataset's columns as read.
func TestLTRClickData(t *testing.T) {
	dir := tinyDataset(t, 46, letorRows)
	table := map[string]any{"kind": "ltr-click", "dataset": dir, "features": "all", "click_model": "navigational"}
	in, err := DecodeInstance(table, "")
	if err != nil {
		t.Fatal(err)
	}
	l, err := in.Load(2, Env{})
	if err != nil {
		t.Fatal(err)
	}
	data := l.Linear().LTR
	docs, err := ltr.LoadDocuments(ltr.DocOptions{Dataset: dir, Features: "all", Silos: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !data.Bernoulli || data.NoiseStd != 0 || data.Dim != 47 || l.Dim != 47 || len(data.Queries) != 3 || len(data.Silos) != 2 || data.R != 1 || data.Crs != 0.1 {
		t.Fatalf("data %+v", data)
	}
	man, err := ingest.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := ingest.LoadBytes(*man, 47); l.LoadBytes != want || want <= 0 {
		t.Errorf("LoadBytes %d, want the dataset's columns as read, %d", l.LoadBytes, want)
	}
	wantMu := [][]float64{{0.05, 0.5, 0.95, 0.05, 0.95}, {0.5}, {0.05, 0.5}} // labels 0 1 2 0 2; 1; 0 1
	for q := range data.Queries {
		if !slices.Equal(data.Queries[q].Mu, wantMu[q]) || !slices.Equal(data.Queries[q].X, docs.Queries[q].X) {
			t.Errorf("query %d: mu %v, want %v; X equal to the documents' %v", q, data.Queries[q].Mu, wantMu[q], slices.Equal(data.Queries[q].X, docs.Queries[q].X))
		}
	}
	for s := range data.Silos {
		if !slices.Equal(data.Silos[s], docs.Silos[s]) {
			t.Errorf("silo %d: %v, want %v", s, data.Silos[s], docs.Silos[s])
		}
	}
	hashes := map[string]bool{l.Hash: true}
	for _, v := range []struct {
		model string
		m     int
	}{{"informational", 2}, {"perfect", 2}, {"navigational", 3}} {
		table["click_model"] = v.model
		in, err := DecodeInstance(table, "")
		if err != nil {
			t.Fatal(err)
		}
		o, err := in.Load(v.m, Env{})
		if err != nil {
			t.Fatal(err)
		}
		if hashes[o.Hash] {
			t.Errorf("%s at M = %d: a hash seen before", v.model, v.m)
		}
		hashes[o.Hash] = true
	}
}

// TestLTRClickRewardsAreClicks: a run on an ltr-click instance observes
// clicks: its realised regret (best document's click minus the played
// one's) is a whole number at every checkpoint, while its pseudo-regret
// is not. Mutation control (run 2026-12-02): the simulator's ltr instance
// ignoring the Bernoulli law (rewards = means, no noise) makes realised =
// pseudo and fails it.
func TestLTRClickRewardsAreClicks(t *testing.T) {
	dir := tinyDataset(t, 46, letorRows)
	rs := RunSpec{Algorithm: "fedlinucb", Instance: "ltr-click", Seed: 5, T: 400, M: 2, B: 5, Every: 20,
		Table: map[string]any{"dataset": dir, "features": "all", "click_model": "informational"}}
	a, err := Lookup(rs.Algorithm)
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.NewRun(context.Background(), rs)
	if err != nil {
		t.Fatal(err)
	}
	whole := true
	for _, c := range res.Curve {
		whole = whole && c.Realised == math.Trunc(c.Realised)
	}
	last := res.Curve[len(res.Curve)-1]
	if !whole || last.Pseudo == math.Trunc(last.Pseudo) || last.Pseudo <= 0 {
		t.Errorf("realised regret whole at every checkpoint: %v; pseudo at T %v", whole, last.Pseudo)
	}
}

// TestLTRClickBadInput: each bad input is one error naming the key.
func TestLTRClickBadInput(t *testing.T) {
	dir := tinyDataset(t, 46, letorRows)
	odd := tinyDataset(t, 46, [][2]int{{0, 1}, {3, 1}}, 3) // labels 0-3: four levels
	single := tinyDataset(t, 46, [][2]int{{0, 1}, {1, 2}})
	ok := func() map[string]any {
		return map[string]any{"kind": "ltr-click", "dataset": dir, "features": "all", "click_model": "perfect"}
	}
	for _, tc := range []struct {
		change   map[string]any
		drop     string
		key, msg string
	}{
		{drop: "features", key: "features", msg: "missing"},
		{drop: "click_model", key: "click_model", msg: "missing: one of perfect, navigational, informational"},
		{drop: "dataset", key: "dataset", msg: "missing"},
		{change: map[string]any{"click_model": "cascade"}, key: "click_model", msg: `"cascade": want one of`},
		{change: map[string]any{"dataset": odd}, key: "click_model", msg: "labels are 0-3"},
		{change: map[string]any{"dataset": single}, key: "dataset", msg: "has 1 document"},
		{change: map[string]any{"strategy": "zigzag"}, key: "strategy", msg: "zigzag"},
		{change: map[string]any{"features": "title"}, key: "features", msg: "MSLR-WEB"},
		{change: map[string]any{"features": "1-99"}, key: "features", msg: "99"},
		{change: map[string]any{"partition_seed": int64(-1)}, key: "partition_seed", msg: "-1"},
		{change: map[string]any{"model": "reference"}, key: "model", msg: "not a key of kind"},
		{change: map[string]any{"click_model": int64(3)}, key: "click_model", msg: ""},
	} {
		table := ok()
		delete(table, tc.drop)
		for k, v := range tc.change {
			table[k] = v
		}
		_, err := DecodeInstance(table, "")
		var ke *KeyError
		if !asKeyError(err, &ke) || ke.Key != tc.key || !strings.Contains(ke.Msg, tc.msg) {
			t.Errorf("%v without %q: %v, want key %s: %q", tc.change, tc.drop, err, tc.key, tc.msg)
		}
	}
	in, err := DecodeInstance(ok(), "")
	if err != nil {
		t.Fatal(err)
	}
	if err := in.CheckM(4); err == nil || !strings.Contains(err.Error(), "M = 4 silos exceeds the 3 queries") {
		t.Errorf("CheckM(4): %v", err)
	}
}

func init() {
	kindSamples["ltr-click"] = func(t *testing.T) map[string]any {
		return map[string]any{"dataset": tinyDataset(t, 46, letorRows), "features": "all", "click_model": "perfect"}
	}
}
