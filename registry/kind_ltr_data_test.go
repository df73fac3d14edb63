package registry

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/bco"
	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/features"
	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/mab"
)

// tinyDataset prepares a dataset from rows (label, qid) with nf features
// (feature j of row i is ((i+1)*(j+3)) mod 7 / 7; labels 0..labelMax,
// the format's when absent) and returns its directory.
func tinyDataset(t *testing.T, nf int, rows [][2]int, labelMax ...int) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for i, r := range rows {
		fmt.Fprintf(&b, "%d qid:%d", r[0], r[1])
		for j := 1; j <= nf; j++ {
			fmt.Fprintf(&b, " %d:%g", j, float64(((i+1)*(j+3))%7)/7)
		}
		b.WriteString("\n")
	}
	src := filepath.Join(dir, "rows.txt")
	if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "ds")
	o := ingest.Options{Inputs: []string{src}, Out: out}
	if len(labelMax) > 0 {
		o.LabelMax = labelMax[0]
	}
	if _, err := ingest.Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	return out
}

// letorRows: qid 7 with labels 0, 1, 2, 0, 2; qid 9 with one document;
// qid 11 with 0, 1.
var letorRows = [][2]int{{0, 7}, {1, 7}, {2, 7}, {0, 7}, {2, 7}, {1, 9}, {0, 11}, {1, 11}}

func loadKind(t *testing.T, table map[string]any, env Env) (*Loaded, error) {
	t.Helper()
	in, err := DecodeInstance(table, "")
	if err != nil {
		return nil, err
	}
	return in.Load(0, env)
}

// TestMABLTRMeans: the arms are the query's documents in order, with the
// click model's probabilities for LETOR's three levels (0-2) and MSLR's
// five (0-4), or label / maximum label; the rewards are Bernoulli.
func TestMABLTRMeans(t *testing.T) {
	letor := tinyDataset(t, 46, letorRows)
	mslr := tinyDataset(t, 136, [][2]int{{0, 3}, {1, 3}, {2, 3}, {3, 3}, {4, 3}, {4, 5}})
	for _, tc := range []struct {
		dir   string
		query int64
		key   string
		val   string
		want  []float64
	}{
		{letor, 7, "click_model", "perfect", []float64{0, 0.5, 1, 0, 1}},
		{letor, 7, "click_model", "navigational", []float64{0.05, 0.5, 0.95, 0.05, 0.95}},
		{letor, 7, "click_model", "informational", []float64{0.4, 0.7, 0.9, 0.4, 0.9}},
		{letor, 7, "reward", "label", []float64{0, 0.5, 1, 0, 1}},
		{letor, 11, "reward", "label", []float64{0, 0.5}},
		{mslr, 3, "click_model", "perfect", []float64{0, 0.2, 0.4, 0.8, 1}},
		{mslr, 3, "click_model", "navigational", []float64{0.05, 0.3, 0.5, 0.7, 0.95}},
		{mslr, 3, "click_model", "informational", []float64{0.4, 0.6, 0.7, 0.8, 0.9}},
		{mslr, 3, "reward", "label", []float64{0, 0.25, 0.5, 0.75, 1}},
	} {
		l, err := loadKind(t, map[string]any{"kind": "mab-ltr", "dataset": tc.dir, "query": tc.query, tc.key: tc.val}, Env{})
		if err != nil {
			t.Fatal(err)
		}
		in := l.Value.(mab.Instance)
		if !reflect.DeepEqual(in.Means, tc.want) || in.Reward != mab.RewardBernoulli || l.Dim != len(tc.want) {
			t.Errorf("%s = %s on qid %d: means %v reward %s dim %d, want %v", tc.key, tc.val, tc.query, in.Means, in.Reward, l.Dim, tc.want)
		}
		if !strings.Contains(l.Name, fmt.Sprintf("query=%d K=%d", tc.query, len(tc.want))) {
			t.Errorf("name %q", l.Name)
		}
	}
}

// TestMABLTRNewRunIsMabNew: a mab-ltr run is mab.New on the explicit
// means with Bernoulli rewards, bit for bit.
func TestMABLTRNewRunIsMabNew(t *testing.T) {
	dir := tinyDataset(t, 46, letorRows)
	rs := RunSpec{Algorithm: "dist-dp-se", Instance: "mab-ltr", Seed: 3, T: 4000, Every: 100, Eps: 1,
		Table: map[string]any{"dataset": dir, "query": int64(7), "click_model": "navigational"}}
	a, _ := Lookup(rs.Algorithm)
	got, err := a.NewRun(context.Background(), rs)
	if err != nil {
		t.Fatal(err)
	}
	in := mab.DefaultInstance()
	in.Arms, in.Means, in.Reward = 0, []float64{0.05, 0.5, 0.95, 0.05, 0.95}, mab.RewardBernoulli
	p, claim, err := mab.New(mab.Spec{Algorithm: rs.Algorithm, Eps: 1, T: 4000, Seed: 3, Instance: in})
	if err != nil {
		t.Fatal(err)
	}
	want, err := core.Drive(context.Background(), p, 4000, 100)
	if err != nil {
		t.Fatal(err)
	}
	want.Privacy = claim
	want.Privacy.Note = withStats(claim.Note, p.(*mab.Run).Stats())
	got.WallSeconds, want.WallSeconds = 0, 0
	if !reflect.DeepEqual(got, want) {
		t.Errorf("NewRun differs from mab.New on the means")
	}
	if got.Pseudo <= 0 {
		t.Errorf("pseudo-regret %v", got.Pseudo)
	}
}

// TestMABLTRBadInput: each bad input is one error naming the key (and the
// dataset directory where the data is at fault).
func TestMABLTRBadInput(t *testing.T) {
	dir := tinyDataset(t, 46, letorRows)
	odd := tinyDataset(t, 46, [][2]int{{0, 1}, {3, 1}}, 3) // labels 0-3: four levels
	missing := filepath.Join(t.TempDir(), "nope")
	for _, tc := range []struct {
		table    map[string]any
		key, msg string
	}{
		{map[string]any{"dataset": missing, "query": 7, "click_model": "perfect"}, "dataset", "nope"},
		{map[string]any{"query": 7, "click_model": "perfect"}, "dataset", "missing"},
		{map[string]any{"dataset": dir, "query": 8, "click_model": "perfect"}, "query", "8: no query with this qid in " + dir},
		{map[string]any{"dataset": dir, "query": 9, "click_model": "perfect"}, "query", "9: this query of " + dir + " has 1 document"},
		{map[string]any{"dataset": dir, "query": 7, "click_model": "cascade"}, "click_model", `"cascade": want one of perfect, navigational, informational (dataset ` + dir},
		{map[string]any{"dataset": odd, "query": 1, "click_model": "perfect"}, "click_model", "labels are 0-3"},
		{map[string]any{"dataset": dir, "query": 7, "click_model": "perfect", "reward": "label"}, "reward", "not both"},
		{map[string]any{"dataset": dir, "query": 7}, "click_model", "missing"},
		{map[string]any{"dataset": dir, "query": 7, "reward": "bernoulli"}, "reward", `"bernoulli"`},
		{map[string]any{"dataset": dir, "click_model": "perfect"}, "query", "missing"},
		{map[string]any{"dataset": dir, "query": 7, "click_model": "perfect", "arms": 5}, "arms", "not a key"},
		{map[string]any{"dataset": dir, "query": 7, "click_model": "perfect", "gap": 0.5}, "gap", "not a key"},
		{map[string]any{"dataset": dir, "query": 7, "click_model": "perfect", "means": []any{0.1, 0.2}}, "means", "not a key"},
	} {
		tc.table["kind"] = "mab-ltr"
		_, err := loadKind(t, tc.table, Env{})
		var ke *KeyError
		if !asKeyError(err, &ke) || ke.Key != tc.key || !strings.Contains(ke.Msg, tc.msg) {
			t.Errorf("%v: got %v, want an error of key %s saying %q", tc.table, err, tc.key, tc.msg)
		}
	}
}

func asKeyError(err error, ke **KeyError) bool {
	k, ok := err.(*KeyError)
	*ke = k
	return ok
}

// TestBCOLTRData: the documents are the feature set's learner's view
// (unit norm, intercept first) and label / maximum label, in the dataset's
// order; a run is bco.RunLTR on them, bit for bit.
func TestBCOLTRData(t *testing.T) {
	dir := tinyDataset(t, 46, letorRows)
	table := map[string]any{"kind": "bco-ltr", "dataset": dir, "features": "1-3", "loss": "absolute", "order": "dataset"}
	l, err := loadKind(t, table, Env{})
	if err != nil {
		t.Fatal(err)
	}
	in := l.Value.(bco.LTRInstance)
	if in.Data.D != 4 || in.Data.Docs() != len(letorRows) || l.Dim != 4 || in.Radius != 1 || in.Order != bco.OrderDataset {
		t.Fatalf("%+v, dim %d", in, l.Dim)
	}
	for i, r := range letorRows {
		x := in.Data.X[i*4 : (i+1)*4]
		raw := []float64{features.DefaultIntercept}
		for j := 1; j <= 3; j++ {
			raw = append(raw, float64(((i+1)*(j+3))%7)/7)
		}
		features.Normalize(raw)
		for j := range x {
			if math.Abs(x[j]-raw[j]) > 1e-15 {
				t.Fatalf("document %d: x %v, want %v", i, x, raw)
			}
		}
		if in.Data.Y[i] != float64(r[0])/2 {
			t.Errorf("document %d: y %v, want %v", i, in.Data.Y[i], float64(r[0])/2)
		}
	}
	rs := RunSpec{Algorithm: "two-point", Instance: "bco-ltr", Seed: 2, T: 300, Every: 30,
		Table: map[string]any{"dataset": dir, "features": "1-3", "loss": "absolute", "order": "dataset"}}
	a, _ := Lookup(rs.Algorithm)
	got, err := a.NewRun(context.Background(), rs)
	if err != nil {
		t.Fatal(err)
	}
	want, err := bco.RunLTR(context.Background(), bco.LTRSpec{Algorithm: "two-point", Instance: in, M: 1, B: 1, T: 300, Every: 30, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	got.WallSeconds, want.WallSeconds = 0, 0
	if !reflect.DeepEqual(got, want) {
		t.Errorf("NewRun differs from bco.RunLTR")
	}
	if !strings.Contains(got.Privacy.Note, "certified within") {
		t.Errorf("note %q", got.Privacy.Note)
	}
	if err := a.Check(rs); err != nil {
		t.Error(err)
	}
	rs.T = 0
	if err := a.Check(rs); err == nil || !strings.Contains(err.Error(), "T = 0") {
		t.Errorf("T = 0: %v", err)
	}
}

// TestBCOLTRBadInput: each bad input is one error naming the key (and the
// dataset directory where the data is at fault).
func TestBCOLTRBadInput(t *testing.T) {
	dir := tinyDataset(t, 46, letorRows)
	missing := filepath.Join(t.TempDir(), "nope")
	ok := func() map[string]any {
		return map[string]any{"kind": "bco-ltr", "dataset": dir, "features": "all", "loss": "squared"}
	}
	for _, tc := range []struct {
		key string
		val any
		msg string
	}{
		{"dataset", missing, "nope"},
		{"features", "title", "defined for MSLR-WEB datasets (136 features), this dataset has 46"},
		{"features", "1-50", "uses column 47 but the dataset has only 46 features (dataset " + dir},
		{"features", "", "empty feature set"},
		{"loss", "quadratic", `"quadratic": want "squared" or "absolute"`},
		{"radius", 0.0, "0: need 1e-8 <= radius <= 1e100"},
		{"radius", 1e-20, "1e-20: need 1e-8 <= radius"},   // R4-10: regret exactly 0 at 1e-20
		{"radius", 1e-300, "1e-300: need 1e-8 <= radius"}, // R4-21: was refused at algorithm[0]
		{"order", "random", `"random"`},
		{"seed", int64(-1), "want a seed >= 0"},
		{"gap", 0.5, "not a key"},
	} {
		table := ok()
		table[tc.key] = tc.val
		_, err := loadKind(t, table, Env{})
		var ke *KeyError
		if !asKeyError(err, &ke) || ke.Key != tc.key || !strings.Contains(ke.Msg, tc.msg) {
			t.Errorf("%s = %v: got %v, want an error of key %s saying %q", tc.key, tc.val, err, tc.key, tc.msg)
		}
	}
	table := ok()
	table["order"], table["seed"] = "dataset", int64(3)
	if _, err := loadKind(t, table, Env{}); err == nil || !strings.Contains(err.Error(), "seed: only with order = \"shuffled\"") {
		t.Errorf("seed with the dataset order: %v", err)
	}
	table = ok()
	delete(table, "loss")
	if _, err := loadKind(t, table, Env{}); err == nil || !strings.HasPrefix(err.Error(), "loss: missing") {
		t.Errorf("no loss: %v", err)
	}
	table = ok()
	delete(table, "features")
	if _, err := loadKind(t, table, Env{}); err == nil || !strings.HasPrefix(err.Error(), "features: missing") {
		t.Errorf("no features: %v", err)
	}
}
