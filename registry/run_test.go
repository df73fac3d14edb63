package registry

import (
	"math"
	"testing"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/outputs"
)

// TestNeutralResultNote: a run's recorded calibration note is its
// mechanism, then the claim's note, prefixed "not certified: " when the
// claim does not hold; a non-private run records none. Mutation control:
// the `p.Mechanism != ""` test negated (the mechanism dropped, or an
// empty one leaving a leading "; ") fails.
func TestNeutralResultNote(t *testing.T) {
	for _, c := range []struct {
		name string
		p    core.Privacy
		want string
	}{
		{"mechanism and note", core.Privacy{Trust: core.TrustCentral, Mechanism: "polya-secagg", Certified: true, Note: "Theorem 1"}, "polya-secagg; Theorem 1"},
		{"mechanism alone", core.Privacy{Trust: core.TrustCentral, Mechanism: "polya-secagg", Certified: true}, "polya-secagg"},
		{"note alone", core.Privacy{Trust: core.TrustLocal, Certified: true, Note: "Theorem 1"}, "Theorem 1"},
		{"not certified", core.Privacy{Trust: core.TrustLocal, Mechanism: "laplace", Note: "beyond the theorem"}, "not certified: laplace; beyond the theorem"},
		{"not private", core.Privacy{Trust: core.TrustNone, Mechanism: "none", Note: "x"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var rec outputs.RunRecord
			res := &core.Result{Privacy: c.p}
			if !c.p.Certified && c.p.Private() {
				res.Privacy.DeliveredEps = math.Inf(1) // what a claim that does not hold delivers
			}
			if err := neutralResult(RunSpec{}, res, &rec); err != nil {
				t.Fatal(err)
			}
			if rec.CalibrationNote != c.want {
				t.Errorf("note %q, want %q", rec.CalibrationNote, c.want)
			}
		})
	}
}
