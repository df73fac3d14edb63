package runner

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/fedbandit/fedbandit/outputs"
)

// mixedDir is a results directory of linear, mab and bco runs written by
// the layout-2 release 98ad0ae from the three sweep files of mixedSweeps
// (outputs/testdata/README.md says how).
var (
	mixedDir    = filepath.Join("..", "outputs", "testdata", "mixed-layout2")
	mixedSweeps = filepath.Join("..", "outputs", "testdata", "mixed-sweeps")
)

// sweepFiles runs the three sweeps of mixedSweeps into dir and returns
// the reports.
func sweepFiles(t *testing.T, dir string) []*Report {
	t.Helper()
	var reps []*Report
	for _, name := range []string{"linear", "mab", "bco"} {
		cfg, err := LoadConfig(filepath.Join(mixedSweeps, name+".toml"))
		if err != nil {
			t.Fatal(err)
		}
		plan, err := NewPlan(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := (&Sweep{Plan: plan, Out: dir, Workers: 2, Log: quietLog(), LogEvery: time.Hour}).Execute(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		reps = append(reps, rep)
	}
	return reps
}

// TestResumeMixedLayout2: the layout-2 release's directory of linear, mab
// and bco runs, swept again by this build from the same three sweep
// files, has every run done (run ids unchanged): nothing is redone and no
// run file changes; the collected layout-3 tables say what a fresh sweep
// by this build says, row for row, but for what layout 2 did not record
// (the format version, the wall time, the linear runs' mechanism and
// every run's sampler, the mab and bco runs' relation), and the curves
// are the same. Both CI readers open both directories. (Mutation
// control, run: the upgrade leaving a mab row's arms in d fails it, for
// all 10 mab runs.)
func TestResumeMixedLayout2(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(mixedDir)); err != nil {
		t.Fatal(err)
	}
	before := dirHashes(t, filepath.Join(dir, outputs.RunsDir))
	for _, rep := range sweepFiles(t, dir) {
		if rep.Executed != 0 || len(rep.Redone) != 0 || len(rep.Superseded) != 0 || rep.Skipped != rep.Runs {
			t.Errorf("resume of the layout-2 directory: %+v", rep)
		}
	}
	if d := diffHashes(before, dirHashes(t, filepath.Join(dir, outputs.RunsDir))); d != "" {
		t.Errorf("run files changed by the resume: %s", d)
	}
	fresh := t.TempDir()
	sweepFiles(t, fresh)
	old, oldCurves, err := outputs.ReadTables(dir)
	if err != nil {
		t.Fatal(err)
	}
	now, nowCurves, err := outputs.ReadTables(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if len(old) != 21 || len(now) != len(old) {
		t.Fatalf("%d runs upgraded, %d fresh", len(old), len(now))
	}
	for i := range old {
		o, n := old[i], now[i]
		if o.FormatVersion != 2 || n.FormatVersion != outputs.FormatVersion {
			t.Errorf("%s: format versions %d, %d", o.Algorithm, o.FormatVersion, n.FormatVersion)
		}
		o.FormatVersion, o.WallSeconds, n.WallSeconds = n.FormatVersion, 0, 0
		// Not recorded by layout 2.
		if o.Family == outputs.FamilyLinear {
			o.Mechanism = n.Mechanism
		} else {
			o.Relation = n.Relation
		}
		o.Sampler = n.Sampler
		if !reflect.DeepEqual(o, n) {
			t.Errorf("run %.8s (%s on %s): upgraded\n%+v\nfresh\n%+v", o.RunID, o.Algorithm, o.Instance, o, n)
		}
	}
	if !reflect.DeepEqual(oldCurves, nowCurves) {
		t.Error("curves of the upgraded directory differ from a fresh sweep's")
	}
	requireArrowCheck(t, dir, "--runs", "21", "--done", "21")
	requireArrowCheck(t, fresh, "--runs", "21", "--done", "21")
	requirePolarsCheck(t, "sweep", fresh, "--runs", "21")
}
