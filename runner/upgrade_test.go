package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
)

// layout1Dir is a results directory written by the layout-1 release
// (fedbandit 5cab670; outputs/testdata/README.md says how).
var layout1Dir = filepath.Join("..", "outputs", "testdata", "layout1")

// TestResumeLayout1: the layout-1 release's results directory, planned
// again from its own sweep file by this build, has every run done but
// FedUCB's (its other run ids are the ones the old release computed), so
// a resume redoes only the two FedUCB runs, whose layout-1 files it moves
// to runs/superseded/ (outputs/README.md); the collect writes runs.arrow in the
// current layout with family, trust and params, and curves.arrow
// byte-identical in every value (only the layout in its metadata
// changes). The simulator is federate.Run: a run redone would show. A
// second seed added to the sweep mixes both layouts in one table.
// (Mutation controls, run: SemanticsVersion 2 redoes every run; FedUCB's
// default threshold not filled in, or super-agent's trust local, fail it.)
func TestResumeLayout1(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(layout1Dir)); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(filepath.Join(dir, ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := NewPlan(cfg, registry.Env{})
	if err != nil {
		t.Fatal(err)
	}
	before := dirHashes(t, filepath.Join(dir, outputs.RunsDir))
	s := &Sweep{Plan: plan, Out: dir, Workers: 2, Log: quietLog(), LogEvery: time.Hour}
	rep, err := s.Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// FedUCB's ids changed once (issue 19: sync_threshold is now one of its
	// parameters): its two layout-1 files are set aside and redone under
	// the new ids; every other run is skipped, its file untouched.
	if rep.Runs != 5 || rep.Skipped != 3 || rep.Executed != 2 || len(rep.Redone) != 0 || len(rep.Superseded) != 2 {
		t.Fatalf("resume of a layout-1 directory: %+v", rep)
	}
	after := dirHashes(t, filepath.Join(dir, outputs.RunsDir))
	for name, h := range before {
		if a, ok := after[name]; ok && a != h {
			t.Errorf("run file %s changed by the resume", name)
		}
	}
	recs, err := outputs.ReadRuns(rep.Collected.RunsPath)
	if err != nil {
		t.Fatal(err)
	}
	// The layout-1 tables are refused (run collect rewrites them); the
	// layout-1 run files are read and upgraded.
	if _, err := outputs.ReadRuns(filepath.Join(layout1Dir, outputs.RunsFile)); err == nil {
		t.Error("a layout-1 runs.arrow was read")
	}
	scan, err := outputs.ScanRuns(layout1Dir)
	if err != nil {
		t.Fatal(err)
	}
	var old []outputs.RunRecord
	var oldCurves []outputs.CurvePoint
	for _, f := range scan.Runs {
		rec := f.Record
		if rec.Params == nil {
			rec.Params = map[string]float64{} // runs.arrow cannot tell unrecorded from none
		}
		old = append(old, rec)
		_, pts, err := outputs.ReadRun(outputs.RunPath(layout1Dir, rec.RunID))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pts {
			oldCurves = append(oldCurves, outputs.Derive(&rec, p))
		}
	}
	if len(recs) != len(old) {
		t.Fatalf("%d rows collected, the layout-1 table has %d (a superseded run counted twice?)", len(recs), len(old))
	}
	byID := map[string]outputs.RunRecord{}
	for _, r := range old {
		byID[r.RunID] = r
	}
	newIDs := map[string]bool{}
	for _, r := range recs {
		if r.Algorithm == federate.AlgFedUCB {
			newIDs[r.RunID] = true
			if _, kept := byID[r.RunID]; kept || r.FormatVersion != outputs.FormatVersion || r.Params["sync_threshold"] == 0 {
				t.Errorf("feducb run %.8s: not redone under a new id in the current layout (params %v)", r.RunID, r.Params)
			}
			continue
		}
		if !reflect.DeepEqual(r, byID[r.RunID]) {
			t.Errorf("%s: collected row differs from the layout-1 row read by this build", r.Algorithm)
		}
	}
	trust := map[string]string{"fedlinucb": core.TrustNone, "ldp": core.TrustLocal, "super-agent": core.TrustCentral, "feducb": core.TrustLocal}
	for _, r := range recs {
		if r.Family != outputs.FamilyLinear || r.Trust != trust[r.Algorithm] {
			t.Errorf("%s: family %q trust %q", r.Algorithm, r.Family, r.Trust)
		}
	}
	// Every curve value is the layout-1 one: the redone FedUCB runs under
	// their new ids, the others under their old ones, modulo the curve
	// metrics newer than layout 1 (which the redone runs record).
	curves, _ := outputs.ReadCurves(rep.Collected.CurvesPath)
	strip := func(cs []outputs.CurvePoint) map[string]int {
		m := map[string]int{}
		for _, c := range cs {
			m[fmt.Sprint(c.Point.Modulo(1), c.TimeAvgPseudo, c.TimeAvgRealised, *c.PerSiloPseudo, *c.PerSiloRealised)]++
		}
		return m
	}
	if len(curves) != 10 || !reflect.DeepEqual(strip(curves), strip(oldCurves)) {
		t.Errorf("curves: %d rows, values equal to layout 1's: %v", len(curves), reflect.DeepEqual(strip(curves), strip(oldCurves)))
	}
	// Two seeds: the layout-1 runs are kept, five layout-2 runs join them,
	// and one runs.arrow holds both (params null only in layout-1 rows),
	// which the independent readers open.
	raw, _ := os.ReadFile(filepath.Join(dir, ConfigFile))
	more, err := ParseConfig([]byte(strings.Replace(string(raw), "seeds = 1", "seeds = 2", 1)), dir)
	if err != nil {
		t.Fatal(err)
	}
	morePlan, err := NewPlan(more, registry.Env{})
	if err != nil {
		t.Fatal(err)
	}
	mixed := t.TempDir()
	if err := os.CopyFS(mixed, os.DirFS(layout1Dir)); err != nil {
		t.Fatal(err)
	}
	rep, err = (&Sweep{Plan: morePlan, Out: mixed, Workers: 2, Log: quietLog(), LogEvery: time.Hour}).Execute(context.Background())
	if err != nil || rep.Skipped != 3 || rep.Executed != 7 || len(rep.Superseded) != 2 {
		t.Fatalf("two seeds over layout 1: %v %+v", err, rep)
	}
	mixedRecs, _ := outputs.ReadRuns(rep.Collected.RunsPath)
	layouts := map[int]int{}
	for _, r := range mixedRecs {
		layouts[r.FormatVersion]++
		if r.Params == nil {
			t.Errorf("%s layout %d: params not recorded", r.Algorithm, r.FormatVersion)
		}
	}
	if layouts[1] != 3 || layouts[outputs.FormatVersion] != 7 {
		t.Errorf("rows per layout %v", layouts)
	}
	requireArrowCheck(t, mixed, "--runs", "10", "--done", "10", "--curve-rows", "20")
	requirePolarsCheck(t, "sweep", mixed, "--runs", "10", "--curve-rows", "20")

	// The same sweep run afresh by this build records the new columns
	// itself (feducb's sync_threshold: default and explicit) and the same
	// curves.
	fresh := t.TempDir()
	rep, err = (&Sweep{Plan: plan, Out: fresh, Workers: 2, Log: quietLog(), LogEvery: time.Hour}).Execute(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	freshCurves, _ := outputs.ReadCurves(rep.Collected.CurvesPath)
	if !reflect.DeepEqual(strip(freshCurves), strip(oldCurves)) {
		t.Error("this build's curves differ from the layout-1 release's")
	}
	freshRecs, _ := outputs.ReadRuns(rep.Collected.RunsPath)
	var thresholds []float64
	for _, r := range freshRecs {
		if r.FormatVersion != outputs.FormatVersion || r.Trust != trust[r.Algorithm] || r.Params == nil {
			t.Errorf("%s: format_version %d trust %q params %v", r.Algorithm, r.FormatVersion, r.Trust, r.Params)
		}
		if r.Algorithm == federate.AlgFedUCB {
			thresholds = append(thresholds, r.Params["sync_threshold"])
		} else if len(r.Params) != 0 {
			t.Errorf("%s: params %v", r.Algorithm, r.Params)
		}
	}
	slices.Sort(thresholds)
	// Default T ln(MT)/(dM) at T = 20, M = 2, d = 3, and the explicit 2.5.
	if want := []float64{2.5, federate.DefaultSyncThreshold(20, 2, 3)}; !slices.Equal(thresholds, want) {
		t.Errorf("feducb sync_threshold %v, want %v", thresholds, want)
	}
}

// TestNewerLayoutRefused: a sweep or a collect meeting a directory of a
// newer layout (its manifest, or one run file) stops with the reason and
// moves nothing aside; the files stay as they were.
func TestNewerLayoutRefused(t *testing.T) {
	newer := fmt.Sprint(outputs.FormatVersion + 1)
	msg := fmt.Sprintf("written by a newer fedbandit (layout %s); this build reads up to %d: upgrade", newer, outputs.FormatVersion)
	plan := mustPlan(t, tinyTOML)
	for _, tc := range []struct {
		name  string
		plant func(dir string) error
	}{
		{"manifest", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"format_version": `+newer+`, "runs": 0}`), 0o644)
		}},
		{"run file", func(dir string) error {
			// A valid file relabelled with the next layout.
			p := outputs.RunPath(dir, plan.Runs[0].ID)
			if err := relabelLayout(p, newer); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"format_version": 2}`), 0o644)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := sweepInto(t, plan, dir, 2, fakeSim{}, nil); err != nil {
				t.Fatal(err)
			}
			if err := tc.plant(dir); err != nil {
				t.Fatal(err)
			}
			before := dirHashes(t, dir)
			rep, err := sweepInto(t, plan, dir, 2, fakeSim{}, nil)
			if err == nil || !strings.Contains(err.Error(), msg) || rep != nil {
				t.Errorf("sweep: %v (report %+v)", err, rep)
			}
			if _, err := Collect(dir); err == nil || !strings.Contains(err.Error(), msg) {
				t.Errorf("collect: %v", err)
			}
			if d := diffHashes(before, dirHashes(t, dir)); d != "" {
				t.Errorf("files changed: %s", d)
			}
			if _, err := os.Stat(filepath.Join(dir, outputs.RunsDir, RejectedDir)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a rejected/ directory was made: %v", err)
			}
		})
	}
}

// TestTrustEveryAlgorithm: every registered algorithm has a trust model,
// and the frozen layout-1 table outputs uses to upgrade old rows agrees
// with today's registry for every algorithm of layout 1.
func TestTrustEveryAlgorithm(t *testing.T) {
	for _, a := range registry.Algorithms() {
		if a.Trust == "" {
			t.Errorf("%s: no trust model", a.Name)
		}
	}
	for name, trust := range outputs.Layout1Algorithms() {
		a, err := registry.Lookup(name)
		if err != nil {
			t.Errorf("layout-1 algorithm %s: %v", name, err)
			continue
		}
		if a.Trust != trust {
			t.Errorf("%s: layout-1 trust %q, registry %q", name, trust, a.Trust)
		}
	}
}

// relabelLayout rewrites an Arrow IPC file with its format version
// metadata set to layout, everything else as it was.
func relabelLayout(path, layout string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	r, err := ipc.NewFileReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
	defer r.Close()
	md := r.Schema().Metadata()
	keys, vals := slices.Clone(md.Keys()), slices.Clone(md.Values())
	keys, vals = append(keys, "fedbandit.format_version"), append(vals, layout)
	if i := md.FindKey("fedbandit.format_version"); i >= 0 {
		keys, vals = keys[:len(keys)-1], vals[:len(vals)-1]
		vals[i] = layout
	}
	nmd := arrow.NewMetadata(keys, vals)
	schema := arrow.NewSchema(r.Schema().Fields(), &nmd)
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(schema))
	if err != nil {
		return err
	}
	for i := 0; i < r.NumRecords(); i++ {
		b, err := r.RecordBatch(i)
		if err != nil {
			return err
		}
		if err := w.Write(array.NewRecordBatch(schema, b.Columns(), b.NumRows())); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
