package registry

import (
	"testing"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/outputs"
)

// TestSetPrivacyNote: a run's claim is recorded in its columns through
// its family's Result (neutralResult, outputs.RunRecord.SetPrivacy): the
// mechanism in its own column, the note prefixed "not certified: " once
// (whatever case the family wrote it in) when the claim is not certified,
// nothing for a non-private run.
func TestSetPrivacyNote(t *testing.T) {
	for _, c := range []struct {
		name  string
		trust string
		p     core.Privacy
		want  string
	}{
		{"mechanism and note", core.TrustCentral, core.Privacy{Trust: core.TrustCentral, Mechanism: "polya-secagg", Certified: true, TargetEps: 1, DeliveredEps: 1, Note: "Theorem 1"}, "Theorem 1"},
		{"note alone", core.TrustLocal, core.Privacy{Trust: core.TrustLocal, Certified: true, TargetEps: 1, DeliveredEps: 1, Note: "Theorem 1"}, "Theorem 1"},
		{"not certified", core.TrustLocal, core.Privacy{Trust: core.TrustLocal, Mechanism: "laplace", Note: "beyond the theorem"}, "not certified: beyond the theorem"},
		{"not certified twice", core.TrustLocal, core.Privacy{Trust: core.TrustLocal, Note: "NOT CERTIFIED: beyond"}, "not certified: beyond"},
		{"no claim", core.TrustLocal, core.Privacy{}, "not certified: the simulator recorded no privacy claim"},
		{"not private", core.TrustNone, core.Privacy{Trust: core.TrustNone, Mechanism: "none", Note: ""}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := outputs.RunRecord{Trust: c.trust}
			if err := neutralResult(RunSpec{}, &core.Result{Privacy: c.p}, &rec); err != nil {
				t.Fatal(err)
			}
			if rec.CalibrationNote != c.want {
				t.Errorf("note %q, want %q", rec.CalibrationNote, c.want)
			}
			if c.p.Mechanism != "" && c.trust != core.TrustNone && rec.Mechanism != c.p.Mechanism {
				t.Errorf("mechanism %q, want %q", rec.Mechanism, c.p.Mechanism)
			}
		})
	}
}
