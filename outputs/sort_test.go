package outputs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fedbandit/fedbandit/outputs"
)

// TestCollectOrder: whatever order the run files were written in,
// runs.arrow is sorted by run id and curves.arrow by configuration
// (group_id), run id, then round. Mutation control (run): dropping the
// sort of curveOrder leaves curves.arrow in run id order and fails here.
func TestCollectOrder(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, outputs.RunsDir), 0o755)
	for _, i := range []int{7, 2, 9, 0, 5} {
		rec := outputs.RunRecord{RunID: fmt.Sprintf("%064x", i), Status: outputs.StatusDone, FormatVersion: outputs.FormatVersion,
			Family: "mab", Algorithm: "se", Trust: "none", Params: map[string]float64{}, GroupID: fmt.Sprint("g", 9-i), Group: fmt.Sprint("se ", 9-i), T: 20, Every: 10, Rounds: 20,
			Instance: "easy", InstanceKind: "mab", InstanceHash: "h", InstanceName: "mab K=2"}
		pts := []outputs.Point{{Round: 10, Pseudo: float64(i)}, {Round: 20, Pseudo: float64(i) + 1}}
		if err := outputs.WriteRun(outputs.RunPath(dir, rec.RunID), &rec, pts); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := outputs.Collect(dir); err != nil {
		t.Fatal(err)
	}
	recs, curves, err := outputs.ReadTables(dir)
	if err != nil {
		t.Fatal(err)
	}
	for k, i := range []int{0, 2, 5, 7, 9} {
		if id := fmt.Sprintf("%064x", i); recs[k].RunID != id {
			t.Errorf("record %d is %s, want %s", k, recs[k].RunID[60:], id[60:])
		}
	}
	for k, i := range []int{9, 7, 5, 2, 0} { // by group g0, g2, g4, g7, g9
		for j, round := range []int64{10, 20} {
			c := curves[2*k+j]
			if c.RunID != fmt.Sprintf("%064x", i) || c.Round != round || c.Pseudo != float64(i+j) || c.PerSiloPseudo != nil {
				t.Errorf("curve row %d: %s round %d pseudo %v", 2*k+j, c.RunID[60:], c.Round, c.Pseudo)
			}
		}
	}
}
