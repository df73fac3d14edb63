package outputs_test

import (
	"fmt"
	"testing"

	"github.com/fedbandit/fedbandit/outputs"
)

// TestTablesSortUnsortedInput: Tables orders runs by id and each run's
// curve by round whatever order the run files come in (directory order
// is arbitrary), and leaves its input untouched. An unsorted Tables (the
// sort dropped) fails here.
func TestTablesSortUnsortedInput(t *testing.T) {
	var runs []outputs.RunFile
	for _, i := range []int{7, 2, 9, 0, 5} {
		id := fmt.Sprintf("%064x", i)
		runs = append(runs, outputs.RunFile{
			Record: outputs.RunRecord{RunID: id, M: 2},
			Points: []outputs.Point{{Round: 10, Pseudo: float64(i)}, {Round: 20, Pseudo: float64(i) + 1}},
		})
	}
	first := runs[0].Record.RunID
	recs, curves := outputs.Tables(runs)
	if runs[0].Record.RunID != first {
		t.Error("Tables reordered its input")
	}
	want := []int{0, 2, 5, 7, 9}
	if len(recs) != len(want) || len(curves) != 2*len(want) {
		t.Fatalf("%d records, %d curve rows", len(recs), len(curves))
	}
	for k, i := range want {
		id := fmt.Sprintf("%064x", i)
		if recs[k].RunID != id {
			t.Errorf("record %d is %s, want %s", k, recs[k].RunID[60:], id[60:])
		}
		for j, round := range []int64{10, 20} {
			c := curves[2*k+j]
			if c.RunID != id || c.Round != round || c.Pseudo != float64(i+j) {
				t.Errorf("curve row %d: %s round %d pseudo %v", 2*k+j, c.RunID[60:], c.Round, c.Pseudo)
			}
		}
	}
}
