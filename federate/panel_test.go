package federate

import (
	"math/rand/v2"
	"testing"
)

// TestShareQueriesSharesPanels: an instance that shares another's queries
// also shares the panel copy the kernel reads (one copy of the documents
// in memory), while an instance built separately has its own.
func TestShareQueriesSharesPanels(t *testing.T) {
	a := makeLTR(2, 3, 5, 4, 1, unitFeatures, func(r *rand.Rand, x []float64) float64 { return x[0] })
	b := &LTRData{Dim: a.Dim, Silos: [][]int{{0, 1, 2, 3, 4, 5}}, R: 1, Crs: 0.1}
	b.ShareQueries(a)
	c := &LTRData{Dim: a.Dim, Queries: a.Queries, Silos: b.Silos, R: 1, Crs: 0.1}
	pa, pb, pc := a.panel(4), b.panel(4), c.panel(4)
	if &pa.x[0] != &pb.x[0] {
		t.Error("ShareQueries: the panels are held twice")
	}
	if &pa.x[0] == &pc.x[0] {
		t.Error("separately built instances share panels: the check above has no power")
	}
	row := make([]float64, a.Dim)
	pb.row(row, 3)
	for j, v := range row {
		if v != a.Queries[4].X[3*a.Dim+j] {
			t.Fatalf("panel row %v, want %v", row, a.Queries[4].X[3*a.Dim:4*a.Dim])
		}
	}
}
