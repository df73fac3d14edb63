package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/ltr"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
)

// TestR9aUnconvergedNoteInRuns (attack round 2, R9a): the note of an
// instance (ltr.Build sets it for a theta* whose fit did not converge)
// reaches every run's calibration_note in runs.arrow, and changes no run id.
//
// Mutation control (run 2026-11-25): removing the LTR-note lines of
// Sweep.execute makes this test fail.
func TestR9aUnconvergedNoteInRuns(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"schema_version":1,"queries":8}`), 0o644)
	cfg := fmt.Sprintf(`name = "l"
seeds = 1
[[instance]]
kind = "ltr"
dataset = %q
features = "all"
[[algorithm]]
name = "fedlinucb"
[[algorithm]]
name = "ldp"
[grid]
eps = [1]
delta = [0.1]
M = [2]
B = [5]
T = [20]
`, dir)
	note := ltr.UnconvergedNote + ": all-reference-a0.001-unconverged.theta.json stopped at max_iter 1"
	plan := func(note string) *Plan {
		c, err := ParseConfig([]byte(cfg), "")
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlan(c, registry.Env{BuildLTR: func(o ltr.Options) (*federate.LTRData, error) {
			d := &federate.LTRData{Name: "fake", Dim: 2, Hash: "h", R: 1, Crs: 0.1, Note: note}
			for q := 0; q < 8; q++ {
				d.Queries = append(d.Queries, federate.LTRQuery{X: []float64{1, 0, 0, 1}, Mu: []float64{0.1, 0.2}})
			}
			for s := 0; s < o.Silos; s++ {
				d.Silos = append(d.Silos, []int{s})
			}
			return d, nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := plan(note)
	if q := plan(""); q.Runs[0].ID != p.Runs[0].ID {
		t.Error("the note changed a run id")
	}
	out := filepath.Join(t.TempDir(), "out")
	s := &Sweep{Plan: p, Out: out, Workers: 1, Log: quietLog()}
	if _, err := s.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	runs, err := outputs.ReadRuns(filepath.Join(out, outputs.RunsFile))
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs, %v", len(runs), err)
	}
	for _, r := range runs {
		if !strings.Contains(r.HindsightNote, note) || strings.Contains(r.CalibrationNote, note) {
			t.Errorf("run %s (%s): hindsight_note %q lacks the instance note (calibration_note %q)", r.RunID, r.Algorithm, r.HindsightNote, r.CalibrationNote)
		}
	}
}
