package runner

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
)

// mixedDir is a results directory of linear, mab and bco runs written by
// the layout-2 release 98ad0ae from the three sweep files of mixedSweeps
// (outputs/testdata/README.md says how).
var (
	mixedDir    = filepath.Join("..", "outputs", "testdata", "mixed-layout2")
	mixedSweeps = filepath.Join("..", "outputs", "testdata", "mixed-sweeps")
)

// mixedFiles are the three sweep files of mixedSweeps.
var mixedFiles = []string{filepath.Join(mixedSweeps, "linear.toml"), filepath.Join(mixedSweeps, "mab.toml"), filepath.Join(mixedSweeps, "bco.toml")}

// sweepFiles runs the sweeps of files into dir and returns the reports.
func sweepFiles(t *testing.T, dir string, files []string) []*Report {
	t.Helper()
	var reps []*Report
	for _, f := range files {
		cfg, err := LoadConfig(f)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := NewPlan(cfg, registry.Env{})
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
// files, has every run done (run ids do not depend on the layout): no run
// file changes; the collected layout-3 tables say what a fresh sweep by
// this build says, row for row, but for what layout 2 did not record (the
// format version, the wall time, the linear runs' mechanism and every
// run's sampler, the mab and bco runs' relation), and the curves are the
// same. The one exception is issue 33's deliberate change of two mab
// entries (dp-se's parameter accuracy_base, dist-rdp-se's eps a target
// (eps, delta)), which made their runs other runs with other ids
// (runner.TestRunIDsPinned re-pinned then): their 4 runs are done anew
// beside the old files, which are kept (with paper_eps = 1 the
// dist-rdp-se ones keep their ids: TestPaperPresetKeepsLayout2IDs). Both CI readers open both
// directories. (Mutation control, run: the upgrade leaving a mab row's
// arms in d fails it, for all 10 mab runs.)
func TestResumeMixedLayout2(t *testing.T) {
	reidentified := map[string]bool{"dp-se": true, "dist-rdp-se": true} // by issue 33
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(mixedDir)); err != nil {
		t.Fatal(err)
	}
	before := dirHashes(t, filepath.Join(dir, outputs.RunsDir))
	executed := 0
	for _, rep := range sweepFiles(t, dir, mixedFiles) {
		executed += rep.Executed
		if len(rep.Redone) != 0 || len(rep.Superseded) != 0 || rep.Skipped+rep.Executed != rep.Runs {
			t.Errorf("resume of the layout-2 directory: %+v", rep)
		}
	}
	if executed != 4 {
		t.Errorf("resume of the layout-2 directory executed %d runs, want 4 (dp-se and dist-rdp-se on two instances)", executed)
	}
	after := dirHashes(t, filepath.Join(dir, outputs.RunsDir))
	for k, h := range before {
		if after[k] != h {
			t.Errorf("run file %s changed by the resume", k)
		}
	}
	fresh := t.TempDir()
	sweepFiles(t, fresh, mixedFiles)
	old, oldCurves, err := outputs.ReadTables(dir)
	if err != nil {
		t.Fatal(err)
	}
	now, nowCurves, err := outputs.ReadTables(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if len(old) != 25 || len(now) != 21 {
		t.Fatalf("%d runs upgraded (want 21 + 4 redone), %d fresh", len(old), len(now))
	}
	byID := map[string]outputs.RunRecord{}
	for _, o := range old {
		byID[o.RunID] = o
	}
	for _, n := range now {
		o, ok := byID[n.RunID]
		if !ok {
			t.Errorf("run %.8s (%s on %s) of the fresh sweep is not in the resumed directory", n.RunID, n.Algorithm, n.Instance)
			continue
		}
		delete(byID, n.RunID)
		want := 2
		if reidentified[n.Algorithm] {
			want = outputs.FormatVersion
		}
		if o.FormatVersion != want || n.FormatVersion != outputs.FormatVersion {
			t.Errorf("%s: format versions %d, %d", o.Algorithm, o.FormatVersion, n.FormatVersion)
		}
		o.FormatVersion, o.WallSeconds, n.WallSeconds = n.FormatVersion, 0, 0
		// Not recorded by layout 2, nor filled in by the upgrade: the
		// mab and bco samplers (a linear row's mechanism and sampler, a mab
		// or bco row's relation are, and must equal the fresh run's).
		if o.Family != outputs.FamilyLinear {
			o.Sampler = n.Sampler
		}
		// Recorded otherwise since 98ad0ae, not by the layout: the
		// given means in an instance's name and label (issue 32, "means=given"
		// then) and the mab notes' SecAgg accuracy sentence (issue 33).
		if o.InstanceName != n.InstanceName && strings.Contains(o.InstanceName, "=given") {
			o.InstanceName, o.Group = n.InstanceName, n.Group
		}
		if o.Family == "mab" {
			o.CalibrationNote = n.CalibrationNote
		}
		// Recorded otherwise since issue 42 (one floating-point sampler
		// policy in every family, docs/privacy.md): dist-dp-se with
		// per_user = 1 is certified for the mechanism in exact arithmetic;
		// layout 2 recorded it not certified, and the upgrade keeps what
		// was recorded.
		if o.Algorithm == "dist-dp-se" && o.Params["per_user"] == 1 && !o.Certified && n.Certified {
			o.Certified, o.DeliveredEps, o.DeliveredDelta = n.Certified, n.DeliveredEps, n.DeliveredDelta
		}
		if !reflect.DeepEqual(o, n) {
			t.Errorf("run %.8s (%s on %s): upgraded\n%+v\nfresh\n%+v", o.RunID, o.Algorithm, o.Instance, o, n)
		}
	}
	for _, o := range byID {
		if !reidentified[o.Algorithm] || o.FormatVersion != 2 {
			t.Errorf("run %.8s (%s, layout %d) of the resumed directory is not a fresh sweep's", o.RunID, o.Algorithm, o.FormatVersion)
		}
	}
	// The curves, modulo the curve metrics newer than the directory's
	// layout 2 (which its redone runs and the fresh sweep record).
	var kept []outputs.CurvePoint
	for _, c := range oldCurves {
		if _, orphan := byID[c.RunID]; !orphan {
			c.Point = c.Point.Modulo(2)
			kept = append(kept, c)
		}
	}
	for i := range nowCurves {
		nowCurves[i].Point = nowCurves[i].Point.Modulo(2)
	}
	if !reflect.DeepEqual(kept, nowCurves) {
		t.Error("curves of the upgraded directory differ from a fresh sweep's")
	}
	requireArrowCheck(t, dir, "--runs", "25", "--done", "25")
	requireArrowCheck(t, fresh, "--runs", "21", "--done", "21")
	requirePolarsCheck(t, "sweep", fresh, "--runs", "21")
}

// TestPaperPresetKeepsLayout2IDs: the layout-2 mab sweep with paper_eps =
// 1 on dist-rdp-se, the meaning eps had for it before issue 33, plans the
// run ids the layout-2 release wrote for every entry but dp-se (whose
// sampler changed, so its runs are other runs): a user who sets the
// preset resumes those runs with none redone (core.Param.Pinned). Without
// the pin, dist-rdp-se's ids move (mutation control: Pinned removed from
// paper_eps fails this test for its 2 runs).
func TestPaperPresetKeepsLayout2IDs(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(mixedSweeps, "mab.toml"))
	if err != nil {
		t.Fatal(err)
	}
	paper := strings.Replace(string(text), "name = \"dist-rdp-se\"\n", "name = \"dist-rdp-se\"\npaper_eps = 1\n", 1)
	if paper == string(text) {
		t.Fatal("mab.toml has no dist-rdp-se entry")
	}
	file := filepath.Join(t.TempDir(), "mab.toml")
	if err := os.WriteFile(file, []byte(paper), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(file)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(cfg, registry.Env{})
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for _, r := range plan.Runs {
		_, err := os.Stat(filepath.Join(mixedDir, outputs.RunsDir, r.ID+".arrow"))
		switch alg := r.Spec.Algorithm; {
		case alg == "dp-se" && err == nil:
			t.Errorf("dp-se run %s kept its layout-2 id: its sampler changed", r.ID)
		case alg != "dp-se" && err != nil:
			t.Errorf("%s run %s: not a layout-2 run id: %v", alg, r.ID, err)
		case alg != "dp-se":
			kept++
		}
	}
	if kept != 8 {
		t.Errorf("%d runs kept their layout-2 ids, want 8 (se, dist-dp-se x 2, dist-rdp-se on two instances)", kept)
	}
}

// TestResumeMixedLayout3: the layout-3 release's directory (a26df98:
// outputs/testdata/mixed-layout3), swept again by this build from its
// linear, mab and bco sweep files, has none of their runs redone and no
// run file changed, and its collected layout-4 rows are what a fresh
// sweep by this build records, row for row, but for the format version,
// the wall time and a paper preset's target (the layout-3 note printed
// the nominal curve to 6 digits: the upgrade takes the delivered eps that
// prints as it). The curves are the same. (Mutation control, run: the
// upgrade leaving bco's mechanism in words fails it for its 5 private
// runs.)
func TestResumeMixedLayout3(t *testing.T) {
	src := filepath.Join("..", "outputs", "testdata", "mixed-layout3")
	files := []string{filepath.Join(mixedSweeps, "linear.toml"), filepath.Join(mixedSweeps, "..", "mixed-sweeps3", "mab3.toml"), filepath.Join(mixedSweeps, "bco.toml")}
	sweep := func(dir string) int {
		executed := 0
		for _, rep := range sweepFiles(t, dir, files) {
			executed += rep.Executed
		}
		return executed
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	before := dirHashes(t, filepath.Join(dir, outputs.RunsDir))
	if n := sweep(dir); n != 0 {
		t.Errorf("resume of the layout-3 directory executed %d runs, want 0", n)
	}
	after := dirHashes(t, filepath.Join(dir, outputs.RunsDir))
	for k, h := range before {
		if after[k] != h {
			t.Errorf("run file %s changed by the resume", k)
		}
	}
	fresh := t.TempDir()
	sweep(fresh)
	old, oldCurves, err := outputs.ReadTables(dir)
	if err != nil {
		t.Fatal(err)
	}
	now, nowCurves, err := outputs.ReadTables(fresh)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]outputs.RunRecord{}
	for _, o := range old {
		byID[o.RunID] = o
	}
	freshIDs := map[string]bool{}
	for _, n := range now {
		freshIDs[n.RunID] = true
		o, ok := byID[n.RunID]
		if !ok {
			t.Errorf("run %.8s (%s on %s) of the fresh sweep is not in the resumed directory", n.RunID, n.Algorithm, n.Instance)
			continue
		}
		if o.FormatVersion != 3 || n.FormatVersion != outputs.FormatVersion {
			t.Errorf("%s: format versions %d, %d", o.Algorithm, o.FormatVersion, n.FormatVersion)
		}
		o.FormatVersion, o.WallSeconds, n.WallSeconds = n.FormatVersion, 0, 0
		if o.Params["paper_eps"] == 1 && o.TargetEps != nil && n.TargetEps != nil && *o.TargetEps != *n.TargetEps &&
			strconv.FormatFloat(*o.TargetEps, 'g', 6, 64) == strconv.FormatFloat(*n.TargetEps, 'g', 6, 64) {
			o.TargetEps = n.TargetEps
		}
		if !reflect.DeepEqual(o, n) {
			t.Errorf("run %.8s (%s on %s): upgraded\n%+v\nfresh\n%+v", o.RunID, o.Algorithm, o.Instance, o, n)
		}
	}
	if len(now) != 17 || len(old) != 21 {
		t.Errorf("%d fresh runs (want 17), %d in the resumed directory (want 21: 4 of mab-ltr and bco-ltr)", len(now), len(old))
	}
	// The curves, modulo the curve metrics newer than the directory's
	// layout 3 (which the fresh sweep records).
	var kept []outputs.CurvePoint
	for _, c := range oldCurves {
		if freshIDs[c.RunID] {
			c.Point = c.Point.Modulo(3)
			kept = append(kept, c)
		}
	}
	for i := range nowCurves {
		nowCurves[i].Point = nowCurves[i].Point.Modulo(3)
	}
	if !reflect.DeepEqual(kept, nowCurves) {
		t.Error("curves of the upgraded directory differ from a fresh sweep's")
	}
}
