package partition

import (
	"testing"

	"github.com/fedbandit/fedbandit/ingest"
)

// TestSummariesMeanNotSum: Summaries gives each query its document count
// and MEAN label. The queries are chosen so that the mean and the sum
// order them differently (a query of many weak documents has the larger
// sum, one strong document the larger mean), so by-relevance built on
// the sum (the fault: Relevance = s) fails, as does any other mix-up of
// counts and labels.
func TestSummariesMeanNotSum(t *testing.T) {
	ds := &ingest.Dataset{Queries: []ingest.Query{
		{QID: 1, Labels: []float64{1, 1, 1, 1, 0, 0}}, // sum 4, mean 2/3
		{QID: 2, Labels: []float64{2}},                // sum 2, mean 2
		{QID: 3, Labels: []float64{}},                 // empty: mean 0
		{QID: 4, Labels: []float64{0, 3, 0}},          // sum 3, mean 1
	}}
	got := Summaries(ds)
	want := []Query{{Docs: 6, Relevance: 4.0 / 6}, {Docs: 1, Relevance: 2}, {Docs: 0, Relevance: 0}, {Docs: 3, Relevance: 1}}
	if len(got) != len(want) {
		t.Fatalf("%d summaries, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("query %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// by-relevance on these summaries orders by mean: q3 (0), q1, q4, q2.
	p, err := Split(ByRelevance, got, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.Assign[0][0] != 0 || p.Assign[0][1] != 2 || p.Assign[1][0] != 1 || p.Assign[1][1] != 3 {
		t.Errorf("by-relevance assign %v, want [[0 2] [1 3]]", p.Assign)
	}
}
