package outputs

import (
	"errors"
	"strings"
	"testing"
)

// TestPrivateRowRecordsTarget: a private run's row must record its (eps,
// delta) target, certified or not, in every family: a per-run file
// without target_eps or target_delta is refused at writing, naming the
// column (the rule cd328db loosened for fixtures that recorded none).
//
// Mutation control (run once): deleting the case "a private run without
// its (eps, delta) target" from checkClaim makes every subtest fail.
func TestPrivateRowRecordsTarget(t *testing.T) {
	for name, rec := range map[string]RunRecord{"linear": sampleRecord(strings.Repeat("a", 64), 1), "mab": mabRecord(strings.Repeat("b", 64), 1)} {
		for _, drop := range []string{"target_eps", "target_delta"} {
			t.Run(name+" without "+drop, func(t *testing.T) {
				r := rec
				if drop == "target_eps" {
					r.TargetEps = nil
				} else {
					r.TargetDelta = nil
				}
				if _, err := EncodeRun(&r, samplePoints); err == nil || !strings.Contains(err.Error(), "column target_eps") {
					t.Errorf("err = %v, want one naming column target_eps", err)
				}
			})
		}
	}
}

// TestCurveRowOfMissingRun: a curves.arrow row whose run is not in
// runs.arrow is refused by ReadTables (ErrTablesMismatch, naming the run
// and both files), never read with an empty group_id.
//
// Mutation control (run once): ReadTables taking group[run_id] without
// the check (cd328db) makes this test fail.
func TestCurveRowOfMissingRun(t *testing.T) {
	dir := t.TempDir()
	a, b := sampleRecord(strings.Repeat("a", 64), 1), sampleRecord(strings.Repeat("b", 64), 2)
	var curves []CurvePoint
	for _, r := range []*RunRecord{&a, &b} {
		for _, p := range samplePoints {
			curves = append(curves, Derive(r, p))
		}
	}
	if err := WriteTables(dir, []RunRecord{a}, curves); err != nil {
		t.Fatal(err)
	}
	_, _, err := ReadTables(dir)
	if !errors.Is(err, ErrTablesMismatch) || !strings.Contains(err.Error(), b.RunID) || !strings.Contains(err.Error(), RunsFile) {
		t.Errorf("err = %v, want ErrTablesMismatch naming run %s and %s", err, b.RunID, RunsFile)
	}
}
