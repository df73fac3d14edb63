package outputs

import (
	"bytes"
	"cmp"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/fedbandit/fedbandit/internal/nodetool"
)

// collectMixed copies testdata/mixed-layout2 (linear, mab and bco runs
// written by the layout-2 release) to a temporary directory and collects
// it in this layout.
func collectMixed(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(mixedDir)); err != nil {
		t.Fatal(err)
	}
	if _, err := Collect(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMixedLayout2: a directory of linear, mab and bco runs written by
// the layout-2 release (98ad0ae) is read whole (no run invalid), its
// layout-2 tables are refused with a message to collect, and the collect
// writes layout-3 tables in which every column means one thing per
// family: the values layout 2 wrote as 0 where a column did not apply are
// null, mab's arms and the mab and bco instance seeds are where they
// belong, certified is set and every note of a run that is not
// certified has the one prefix. (Mutation control, run: the mab kind's
// arms left in d fails it.)
func TestMixedLayout2(t *testing.T) {
	scan, err := ScanRuns(mixedDir)
	if err != nil || len(scan.Invalid) != 0 || len(scan.Runs) != 21 {
		t.Fatalf("scan: %v, %d invalid, %d runs", err, len(scan.Invalid), len(scan.Runs))
	}
	if _, _, err := ReadTables(mixedDir); err == nil || !strings.Contains(err.Error(), "run collect") || !strings.Contains(err.Error(), RunsFile) {
		t.Errorf("layout-2 tables: %v", err)
	}
	dir := collectMixed(t)
	runs, curves, err := ReadTables(dir)
	if err != nil {
		t.Fatal(err)
	}
	families := map[string]int{}
	for _, r := range runs {
		families[r.Family]++
		what := r.Algorithm + " on " + r.Instance
		if r.FormatVersion != 2 {
			t.Errorf("%s: format_version %d", what, r.FormatVersion)
		}
		switch r.Family {
		case "linear":
			if r.Linear == nil || Deref(r.Arms) != 5 || Deref(r.Dim) != 3 || Deref(r.InstanceSeed) != 7 || Deref(r.M) != 2 || r.Linear.SiloPseudo == nil {
				t.Errorf("%s: linear columns %+v", what, r)
			}
		case "mab":
			wantArms, wantSeed := 4, Some[uint64](3)
			if r.Instance == "given" {
				wantArms, wantSeed = 3, nil
			}
			if r.Linear != nil || r.M != nil || r.B != nil || r.Dim != nil || Deref(r.Arms) != wantArms || (r.InstanceSeed == nil) != (wantSeed == nil) ||
				wantSeed != nil && *r.InstanceSeed != *wantSeed || r.NoiseVar != nil {
				t.Errorf("%s: mab columns arms %v d %v M %v seed %v", what, r.Arms, r.Dim, r.M, r.InstanceSeed)
			}
		case "bco":
			if r.Linear != nil || Deref(r.M) != 1 || Deref(r.B) != 1 || Deref(r.Dim) != 3 || r.Arms != nil || Deref(r.InstanceSeed) != 5 {
				t.Errorf("%s: bco columns d %v M %v arms %v seed %v", what, r.Dim, r.M, r.Arms, r.InstanceSeed)
			}
		}
		if r.Trust == "none" {
			if r.Eps != nil || r.Delta != nil || r.DeliveredEps != nil || r.Certified || r.Mechanism != "" {
				t.Errorf("%s: non-private run with eps %v delivered %v certified %v", what, r.Eps, r.DeliveredEps, r.Certified)
			}
			continue
		}
		if !r.Certified && (!strings.HasPrefix(r.CalibrationNote, notCertified) || strings.Count(strings.ToLower(r.CalibrationNote), "not certified") != 1) {
			t.Errorf("%s: note %q", what, r.CalibrationNote)
		}
		if r.Family != "linear" && r.Mechanism == "" {
			t.Errorf("%s: mechanism not recovered from the layout-2 note %q", what, r.CalibrationNote)
		}
	}
	if families["linear"] != 6 || families["mab"] != 10 || families["bco"] != 5 {
		t.Errorf("families %v", families)
	}
	certified := map[string]bool{}
	bound := map[string]bool{}
	for _, r := range runs {
		if r.Trust == "none" {
			continue
		}
		key := r.Algorithm
		if p, ok := r.Params["per_user"]; ok {
			key += map[float64]string{0: "/0", 1: "/1"}[p]
		}
		if r.Eps != nil && r.Family == "bco" {
			key += map[float64]string{1: "@1", 9: "@9"}[*r.Eps]
		}
		certified[key], bound[key] = r.Certified, r.DeliveredEps != nil
	}
	for key, want := range map[string][2]bool{
		"ldp": {true, true}, "feducb": {false, false}, "dp-se": {true, true},
		"dist-dp-se/0": {true, true}, "dist-dp-se/1": {false, false}, "dist-rdp-se/0": {true, true},
		"ldp-one-point@1": {true, true}, "ldp-one-point@9": {false, false}, "ldp-two-point@1": {true, true}, "ldp-two-point@9": {true, true},
	} {
		if got, ok := certified[key]; !ok || got != want[0] || bound[key] != want[1] {
			t.Errorf("%s: certified %v (bound %v), want %v (bound %v)", key, got, bound[key], want[0], want[1])
		}
	}
	for i, c := range curves {
		for _, v := range []float64{c.Pseudo, c.Realised, c.TimeAvgPseudo, c.TimeAvgRealised, Deref(c.PerSiloPseudo), Deref(c.PerSiloRealised)} {
			if math.IsInf(v, 0) || math.IsNaN(v) {
				t.Fatalf("curve row %d: %+v", i, c)
			}
		}
	}
	checkSchemaRules(t, filepath.Join(dir, RunsFile))
	checkSchemaRules(t, filepath.Join(dir, CurvesFile))
	requireReaders(t, dir)
}

// checkSchemaRules: no unsigned integer, struct, duplicate or forbidden
// column name in the table at path.
func checkSchemaRules(t *testing.T, path string) {
	t.Helper()
	r, err := ipc.NewFileReader(bytes.NewReader(mustRead(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	seen := map[string]bool{}
	for _, f := range r.Schema().Fields() {
		switch {
		case seen[f.Name]:
			t.Errorf("%s: column %s twice", path, f.Name)
		case map[string]bool{"group": true, "lambda": true, "T": true, "round": true, "lazy": true}[f.Name]:
			t.Errorf("%s: column %s has a forbidden name", path, f.Name)
		case f.Type.ID() == arrow.STRUCT || f.Type.ID() == arrow.UINT64 || f.Type.ID() == arrow.UINT32:
			t.Errorf("%s: column %s of type %s", path, f.Name, f.Type)
		}
		seen[f.Name] = true
	}
}

// requireReaders runs the independent readers (tools/arrow-check,
// tools/polars-check) on dir; skipped when they are not installed, unless
// FEDBANDIT_REQUIRE_READERS=1 (CI).
func requireReaders(t *testing.T, dir string) {
	t.Helper()
	for _, tool := range []struct{ name, pkg string }{{"arrow-check", "apache-arrow"}, {"polars-check", "nodejs-polars"}} {
		if err := runReader(t, tool.name, tool.pkg, dir); err != nil {
			t.Errorf("%s: %v", tool.name, err)
		}
	}
}

func runReader(t *testing.T, name, pkg, dir string) error {
	t.Helper()
	node, script, ok := nodetool.Find(t, "..", name, pkg)
	if !ok {
		t.Skipf("independent reader not installed (cd tools/%s && npm ci)", name)
	}
	args := []string{script, dir}
	if name == "polars-check" {
		args = []string{script, "sweep", dir}
	}
	out, err := exec.Command(node, args...).CombinedOutput()
	t.Logf("%s", out)
	return err
}

// TestReadersRejectMisplacedValues: the independent readers fail a
// directory where a mab run records silos (M = 0, as layout 2 did) or a
// non-private run a delivered eps: the per-family rules are checked, not
// only the schema.
func TestReadersRejectMisplacedValues(t *testing.T) {
	for name, spoil := range map[string]func(r *RunRecord){
		"mab with M": func(r *RunRecord) { r.M = Some(0) },
		"non-private with a bound": func(r *RunRecord) {
			r.Trust, r.Eps, r.Mechanism, r.Sampler, r.Relation, r.CalibrationNote = "none", nil, "", "", "", ""
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := collectMixed(t)
			rec := mabRecord(strings.Repeat("e", 64), 1)
			rec.CalibrationNote, rec.Certified, rec.DeliveredEps, rec.DeliveredDelta = "x", true, Some(1.0), Some(0.0)
			spoil(&rec)
			// Written past the per-run files' validation, which refuses
			// the second (column certified).
			runs, curves, err := ReadTables(dir)
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, rec)
			slices.SortFunc(runs, func(a, b RunRecord) int { return strings.Compare(a.RunID, b.RunID) })
			for _, p := range samplePoints {
				curves = append(curves, Derive(&rec, p))
			}
			slices.SortStableFunc(curves, func(a, b CurvePoint) int {
				return cmp.Or(strings.Compare(a.GroupID, b.GroupID), strings.Compare(a.RunID, b.RunID))
			})
			if err := WriteTables(dir, runs, curves); err != nil {
				t.Fatal(err)
			}
			tools := []struct{ name, pkg string }{{"arrow-check", "apache-arrow"}}
			if name == "mab with M" { // polars-check is slow to start: one case
				tools = append(tools, struct{ name, pkg string }{"polars-check", "nodejs-polars"})
			}
			for _, tool := range tools {
				if err := runReader(t, tool.name, tool.pkg, dir); err == nil {
					t.Errorf("%s accepted %s", tool.name, name)
				}
			}
		})
	}
}

// TestLegacyDefaults: what layout 2 wrote as 0 for "not applicable" or
// "the default" is upgraded to null or to the value: a mab row's every = 0
// (checkpoint_every left to its default) becomes T/100, its M, B, delta
// and a non-private row's eps become null, its arms move from d to arms,
// its seed comes from the instance name; a linear non-private row keeps
// its calibration note and loses its +Inf delivered eps. (Mutation
// control, run: every = 0 upgraded to T fails it.)
func TestLegacyDefaults(t *testing.T) {
	base := map[string]string{
		"run_id": strings.Repeat("a", 64), "status": "done", "error": "", "format_version": "2", "sweep": "s", "group": "g", "group_id": "g",
		"instance": "i", "instance_kind": "mab", "instance_hash": "h", "instance_name": "mab K=10 gap=0.5 seed=3 means=chacha8", "d": "10",
		"features": "", "reward_model": "", "noise_var": "0", "partition_strategy": "", "partition_seed": "0", "k": "0", "fixed_basis": "false",
		"instance_seed": "0", "shared_contexts": "false", "context_gen": "", "family": "mab", "algorithm": "se", "trust": "none", "params": "conf=0.1",
		"protocol": "", "lazy": "false", "preset": "", "eps": "0", "delta": "0", "relation": "", "M": "0", "T": "20000", "B": "0", "alpha": "0",
		"every": "0", "seed": "1", "R": "0", "crs": "0", "gram_noise": "", "reward_lo": "0", "reward_hi": "0", "no_clip": "false", "sigma": "0",
		"lambda": "0", "beta_T": "0", "kappa": "0", "delivered_eps": "0", "delivered_delta": "0", "amplified": "false", "calibration_note": "",
		"mu_gdp": "0", "non_pd": "0", "syncs": "3", "scalars": "0", "rounds": "20000", "pseudo_regret": "1", "realised_regret": "1",
		"silo_pseudo_regret": "", "silo_realised_regret": "", "wall_seconds": "0.5",
	}
	r, err := upgradeLegacy(&legacySummary{v: base}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if r.Every != 200 || r.M != nil || r.B != nil || r.Eps != nil || r.Delta != nil || r.Dim != nil || Deref(r.Arms) != 10 ||
		Deref(r.InstanceSeed) != 3 || r.DeliveredEps != nil || r.Certified || r.Linear != nil || r.NoiseVar != nil {
		t.Errorf("mab row upgraded to %+v", r)
	}
	lin := maps.Clone(base)
	for k, v := range map[string]string{"instance_kind": "synthetic", "family": "linear", "algorithm": "fedlinucb", "params": "", "M": "2", "B": "5",
		"every": "10", "k": "5", "instance_seed": "7", "delivered_eps": "+Inf", "calibration_note": "no privacy: non-private FedLinUCB adds no noise",
		"silo_pseudo_regret": "0.5,0.5", "silo_realised_regret": "0.5,0.5"} {
		lin[k] = v
	}
	r, err = upgradeLegacy(&legacySummary{v: lin}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if r.Every != 10 || Deref(r.M) != 2 || Deref(r.Arms) != 5 || Deref(r.InstanceSeed) != 7 || r.DeliveredEps != nil || r.Certified ||
		r.Linear == nil || r.Linear.Noise != nil || len(r.Linear.SiloPseudo) != 2 || r.CalibrationNote != lin["calibration_note"] {
		t.Errorf("linear row upgraded to %+v", r)
	}
}
