package partition

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func uniform(q int) []Query {
	qs := make([]Query, q)
	for i := range qs {
		qs[i] = Query{Docs: 1}
	}
	return qs
}

func TestSplitTable(t *testing.T) {
	sized := []Query{{Docs: 5, Relevance: 0.1}, {Docs: 1, Relevance: 0.9}, {Docs: 3, Relevance: 0.5}, {Docs: 1, Relevance: 0.2}, {Docs: 9, Relevance: 0}, {Docs: 2, Relevance: 0.5}, {Docs: 4, Relevance: 0.3}}
	tests := []struct {
		name     string
		strategy string
		queries  []Query
		m        int
		assign   [][]int
		unused   []int
	}{
		{"contiguous exact", Contiguous, uniform(6), 3, [][]int{{0, 1}, {2, 3}, {4, 5}}, []int{}},
		{"contiguous remainder dropped at the end", Contiguous, uniform(7), 3, [][]int{{0, 1}, {2, 3}, {4, 5}}, []int{6}},
		{"one silo gets everything", Contiguous, uniform(4), 1, [][]int{{0, 1, 2, 3}}, []int{}},
		{"one query per silo", Contiguous, uniform(3), 3, [][]int{{0}, {1}, {2}}, []int{}},
		// Sizes 5,1,3,1,9,2,4 -> ascending stable: 1(q1),1(q3),2(q5),3(q2),4(q6),5(q0),9(q4).
		{"by-size", BySize, sized, 3, [][]int{{1, 3}, {2, 5}, {0, 6}}, []int{4}},
		// Relevance 0.1,0.9,0.5,0.2,0,0.5,0.3 -> ascending stable: q4,q0,q3,q6,q2,q5,q1.
		{"by-relevance", ByRelevance, sized, 2, [][]int{{0, 3, 4}, {2, 5, 6}}, []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Split(tc.strategy, tc.queries, tc.m, 99)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p.Assign, tc.assign) || !reflect.DeepEqual(p.Unused, tc.unused) {
				t.Errorf("assign %v unused %v, want %v %v", p.Assign, p.Unused, tc.assign, tc.unused)
			}
			if p.Seed != 0 {
				t.Errorf("unseeded strategy recorded seed %d", p.Seed)
			}
		})
	}
}

func TestSplitErrors(t *testing.T) {
	tests := []struct {
		strategy string
		q, m     int
		want     string
	}{
		{Contiguous, 10, 0, "at least 1"},
		{Contiguous, 10, -2, "at least 1"},
		{Random, 10, 11, "only 10 queries"},
		{"round-robin", 10, 2, "unknown strategy"},
		{"", 10, 2, "unknown strategy"},
	}
	for _, tc := range tests {
		_, err := Split(tc.strategy, uniform(tc.q), tc.m, 1)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Split(%q, %d queries, M=%d): error %v, want one containing %q", tc.strategy, tc.q, tc.m, err, tc.want)
		}
	}
}

// TestRandom checks the random strategy: a valid partition (every query
// used at most once, equal silo sizes), deterministic per seed, different
// across seeds, and not the contiguous one.
func TestRandom(t *testing.T) {
	const q, m = 103, 10
	a, err := Split(Random, uniform(q), m, 7)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Split(Random, uniform(q), m, 7)
	c, _ := Split(Random, uniform(q), m, 8)
	cont, _ := Split(Contiguous, uniform(q), m, 7)
	if !a.Equal(b) {
		t.Error("same seed, different partitions")
	}
	if a.Equal(c) {
		t.Error("seeds 7 and 8 gave the same partition")
	}
	if reflect.DeepEqual(a.Assign, cont.Assign) {
		t.Error("random partition equals the contiguous one")
	}
	seen := map[int]bool{}
	for _, s := range a.Assign {
		if len(s) != q/m || !slices.IsSorted(s) {
			t.Errorf("silo %v: want %d sorted queries", s, q/m)
		}
		for _, x := range s {
			if seen[x] {
				t.Errorf("query %d in two silos", x)
			}
			seen[x] = true
		}
	}
	for _, x := range a.Unused {
		if seen[x] {
			t.Errorf("unused query %d also assigned", x)
		}
		seen[x] = true
	}
	if len(seen) != q || len(a.Unused) != q%m || a.Seed != 7 {
		t.Errorf("%d queries covered, %d unused, seed %d", len(seen), len(a.Unused), a.Seed)
	}
}

func TestArtifactRoundTrip(t *testing.T) {
	dir := t.TempDir()
	p, err := Split(Random, uniform(20), 3, 5)
	if err != nil {
		t.Fatal(err)
	}
	path, err := WriteArtifact(dir, "abc123", p)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "partitions", "random-M3-s5.json"); path != want {
		t.Errorf("path %s, want %s", path, want)
	}
	a, err := ReadArtifact(path)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Partition.Equal(p) || a.DatasetSHA256 != "abc123" || a.Hash != p.Hash() {
		t.Errorf("round trip: %+v", a)
	}
	// Tampering is detected.
	b, _ := os.ReadFile(path)
	b = []byte(strings.Replace(string(b), `"seed": 5`, `"seed": 6`, 1))
	os.WriteFile(path, b, 0o644)
	if _, err := ReadArtifact(path); err == nil || !strings.Contains(err.Error(), "hash") {
		t.Errorf("edited artifact: %v", err)
	}
	if got := ArtifactName(Contiguous, 10, 3); got != "contiguous-M10.json" {
		t.Errorf("unseeded name %q", got)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "partitions"))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}
