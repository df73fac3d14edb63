package outputs

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// sampleRecord is a done private linear run on a synthetic instance.
func sampleRecord(id string, seed uint64) RunRecord {
	return RunRecord{
		RunID: id, Status: StatusDone, FormatVersion: FormatVersion, Sweep: "s", Group: "ldp eps=1", GroupID: "0123456789abcdef",
		Instance: "syn", InstanceKind: "synthetic", InstanceHash: "abc", InstanceName: "synthetic d=4", Dim: Some(4),
		NoiseVar: Some(0.25), Arms: Some(10), InstanceSeed: Some[uint64](7), FixedBasis: Some(false), SharedContexts: Some(false), ContextGen: "chacha8",
		Family: "linear", Algorithm: "ldp", Trust: "local", Params: map[string]float64{},
		Eps: Some(1.0), Delta: Some(0.1), M: Some(2), T: 20, B: Some(10), Every: 10, Seed: seed,
		Linear: &LinearSettings{Protocol: "P", Preset: "reference-code", Alpha: 0.01, R: 0.5, Crs: 1, GramNoise: "symmetrised", RewardHi: 1,
			Lambda: 1120.5, BetaT: 109.376, Kappa: 2, NonPD: 1,
			Noise:      &LinearNoise{Sigma: 5.4519, MuGDP: 0.3},
			SiloPseudo: []float64{1.25, 2.25}, SiloRealised: []float64{1, 1.25}},
		Certified: true, TargetEps: Some(1.0), TargetDelta: Some(0.1), DeliveredEps: Some(0.999999), DeliveredDelta: Some(0.1),
		Relation: "add-remove", Mechanism: "tree-gaussian", Sampler: "gaussian",
		CalibrationNote: "note, with comma", Syncs: 2, Scalars: 40, Rounds: 20,
		PseudoRegret: 3.5, RealisedRegret: 2.25, WallSeconds: 0.125,
	}
}

// mabRecord is a done mab run: no silos, no batch, no linear settings.
func mabRecord(id string, seed uint64) RunRecord {
	return RunRecord{
		RunID: id, Status: StatusDone, FormatVersion: FormatVersion, Sweep: "m", Group: "dist-dp-se", GroupID: "fedcba9876543210",
		Instance: "easy", InstanceKind: "mab", InstanceHash: "def", InstanceName: "mab K=4", Arms: Some(4), InstanceSeed: Some[uint64](3),
		Family: "mab", Algorithm: "dist-dp-se", Trust: "distributed", Params: map[string]float64{"crs": 1, "per_user": 1},
		Eps: Some(1.0), T: 20, Every: 10, Seed: seed,
		TargetEps: Some(1.0), TargetDelta: Some(0.0),
		Mechanism: "polya-secagg", Sampler: "polya", Relation: "replace-one", RelationNote: "one user",
		CalibrationNote: "not certified: per_user = 1", Syncs: 3, Scalars: 12, Rounds: 20, PseudoRegret: 1, RealisedRegret: 2,
	}
}

var samplePoints = []Point{{Round: 10, Pseudo: 1.5, Realised: 1, Syncs: 1}, {Round: 20, Pseudo: 3.5, Realised: 2.25, Syncs: 2}}

func TestRunFileRoundTrip(t *testing.T) {
	for _, rec := range []RunRecord{sampleRecord(strings.Repeat("a", 64), 3), mabRecord(strings.Repeat("c", 64), 5)} {
		b1, err := EncodeRun(&rec, samplePoints)
		if err != nil {
			t.Fatal(err)
		}
		b2, _ := EncodeRun(&rec, samplePoints)
		if !bytes.Equal(b1, b2) {
			t.Fatal("encoding is not deterministic")
		}
		got, pts, err := DecodeRun(b1)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(*got, rec) || !reflect.DeepEqual(pts, samplePoints) {
			t.Errorf("round trip:\n got %+v %v\nwant %+v %v", *got, pts, rec, samplePoints)
		}
	}
	failed := sampleRecord(strings.Repeat("b", 64), 4)
	failed.Status, failed.Error, failed.Rounds = StatusFailed, "panic: boom", 0
	failed.Syncs, failed.Scalars, failed.PseudoRegret, failed.RealisedRegret, failed.WallSeconds, failed.Linear.NonPD = 0, 0, 0, 0, 0, 0
	failed.Linear.SiloPseudo, failed.Linear.SiloRealised = nil, nil
	b3, _ := EncodeRun(&failed, nil)
	got, pts, err := DecodeRun(b3)
	if err != nil || len(pts) != 0 || !reflect.DeepEqual(*got, failed) {
		t.Errorf("failed run round trip: %v %v %+v", err, pts, got)
	}
}

// TestRunFileRejectsDamage: every truncation and a flipped byte in the
// data are rejected (T15).
func TestRunFileRejectsDamage(t *testing.T) {
	rec := sampleRecord(strings.Repeat("a", 64), 3)
	data, _ := EncodeRun(&rec, samplePoints)
	for n := 0; n < len(data); n++ {
		if _, _, err := DecodeRun(data[:n]); err == nil {
			t.Fatalf("truncation to %d of %d bytes accepted", n, len(data))
		}
	}
	// Corrupt the stored values: a curve value (its float64 bytes) and a
	// digit of a summary value. The content checksum must catch both.
	// (Flips in Arrow's structural flatbuffers are out of scope: arrow-go
	// may allocate whatever a corrupted length says. Crashes and SIGKILL
	// only ever truncate or omit files, which the footer check rejects.)
	var val [8]byte
	binary.LittleEndian.PutUint64(val[:], math.Float64bits(samplePoints[1].Pseudo))
	for name, at := range map[string]int{
		"curve value":   bytes.Index(data, val[:]),
		"summary value": bytes.LastIndex(data, []byte("1120.5")) + 2, // the footer copy of the schema, which readers use
	} {
		if at < 2 {
			t.Fatalf("%s not found in the encoding", name)
		}
		d := bytes.Clone(data)
		d[at] ^= 0x01
		if _, _, err := DecodeRun(d); err == nil || !strings.Contains(err.Error(), "checksum") {
			t.Errorf("%s corrupted: err = %v", name, err)
		}
	}
	// A record claiming done with a curve ending early is refused when
	// written.
	rec.Rounds = 30
	if _, err := EncodeRun(&rec, samplePoints); err == nil {
		t.Error("inconsistent rounds accepted")
	}
}

func TestCollect(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, RunsDir), 0o755)
	ids := []string{strings.Repeat("c", 64), strings.Repeat("1", 64), strings.Repeat("b", 64)}
	var want []RunRecord
	for i, id := range ids {
		rec := sampleRecord(id, uint64(i))
		if i == 2 {
			rec.Status, rec.Error, rec.Rounds = StatusFailed, "bad numerics", 0
			rec.Syncs, rec.Scalars, rec.PseudoRegret, rec.RealisedRegret, rec.WallSeconds, rec.Linear.NonPD = 0, 0, 0, 0, 0, 0
			rec.Linear.SiloPseudo, rec.Linear.SiloRealised = nil, nil
			if err := WriteRun(RunPath(dir, id), &rec, nil); err != nil {
				t.Fatal(err)
			}
		} else if err := WriteRun(RunPath(dir, id), &rec, samplePoints); err != nil {
			t.Fatal(err)
		}
		want = append(want, rec)
	}
	// Debris that must be ignored.
	os.WriteFile(filepath.Join(dir, RunsDir, ids[0]+".arrow.42.tmp"), []byte("junk"), 0o644)
	os.WriteFile(filepath.Join(dir, RunsDir, "notes.txt"), []byte("junk"), 0o644)
	sum, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Runs != 3 || sum.Done != 2 || sum.Failed != 1 || sum.CurveRows != 4 {
		t.Errorf("summary %+v", sum)
	}
	runs, err := ReadRuns(sum.RunsPath)
	if err != nil {
		t.Fatal(err)
	}
	wantOrder := []RunRecord{want[1], want[2], want[0]} // sorted by id
	if !reflect.DeepEqual(runs, wantOrder) {
		t.Errorf("runs.arrow rows:\n%+v\nwant\n%+v", runs, wantOrder)
	}
	_, curves, err := ReadTables(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(curves) != 4 || curves[0].RunID != ids[1] || curves[2].RunID != ids[0] || curves[1].Round != 20 {
		t.Fatalf("curves order %+v", curves)
	}
	c := curves[1] // round 20, pseudo 3.5, realised 2.25, M = 2
	if c.TimeAvgPseudo != 3.5/20 || c.TimeAvgRealised != 2.25/20 || *c.PerSiloPseudo != 3.5/40 || *c.PerSiloRealised != 2.25/40 || c.Syncs != 2 || c.GroupID != want[0].GroupID {
		t.Errorf("derived columns %+v", c)
	}
	// A truncated run file stops collect with its name, and nothing is
	// rewritten.
	before := tableBytes(t, dir)
	full, _ := os.ReadFile(RunPath(dir, ids[0]))
	os.WriteFile(RunPath(dir, ids[0]), full[:100], 0o644)
	if _, err := Collect(dir); err == nil || !strings.Contains(err.Error(), ids[0]) {
		t.Errorf("collect over a truncated file: %v", err)
	}
	if !reflect.DeepEqual(tableBytes(t, dir), before) {
		t.Error("a refused collect rewrote the tables")
	}
	// A valid file under another run's name is rejected too.
	os.WriteFile(RunPath(dir, ids[0]), mustRead(t, RunPath(dir, ids[1])), 0o644)
	if s, _ := ScanRuns(dir); len(s.Invalid) != 1 || len(s.Ignored) != 2 {
		t.Errorf("scan %+v", s)
	}
}

// tableBytes reads the three table files of dir.
func tableBytes(t *testing.T, dir string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, f := range []string{RunsFile, CurvesFile, TablesFile} {
		out = append(out, mustRead(t, filepath.Join(dir, f)))
	}
	return out
}

func mustRead(t *testing.T, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSchemaDocumented: README.md documents every column of the tables
// (one table row per column, in order, with its type and the runs it
// applies to; curves.arrow's metric columns by the table of curve
// metrics, each row its declaration's), and the schemas match the column
// lists.
func TestSchemaDocumented(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([A-Za-z_0-9]+)` \\| ([a-z0-9<>]+) \\| ([^|]*) \\|")
	var got []string
	for _, m := range row.FindAllStringSubmatch(string(readme), -1) {
		got = append(got, m[1]+":"+m[2]+":"+strings.TrimSpace(m[3]))
	}
	var want []string
	for _, c := range Columns {
		want = append(want, c.Name+":"+c.TypeName()+":"+c.Applies)
	}
	for _, c := range curveBase { // the metric columns: the table of curve metrics
		want = append(want, c.Name+":"+c.TypeName()+":"+c.Applies)
	}
	for _, c := range AuditColumns {
		want = append(want, c.Name+":"+c.TypeName()+":"+c.Applies)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("README.md documents\n%v\nschema has\n%v", got, want)
	}
	for _, c := range Columns {
		if c.Doc == "" || c.Applies == "" {
			t.Errorf("column %s undocumented", c.Name)
		}
	}
	// The table of curve metrics is their declarations' (MetricsMarkdown):
	// here the regret metrics' and core's; registry.TestMetricsDocumented
	// holds the whole table, every family's metrics registered.
	for _, line := range strings.SplitAfter(MetricsMarkdown(), "\n") {
		if line != "" && !strings.Contains(string(readme), line) {
			t.Errorf("README.md's table of curve metrics lacks its declared row\n%s", line)
		}
	}
}

func TestRunIDFromName(t *testing.T) {
	id := strings.Repeat("0a", 32)
	for name, ok := range map[string]bool{
		id + ".arrow":                  true,
		id + ".arrow.123.tmp":          false,
		strings.ToUpper(id) + ".arrow": false,
		id[:63] + ".arrow":             false,
		id + ".feather":                false,
	} {
		if _, got := RunIDFromName(name); got != ok {
			t.Errorf("%s: %v", name, got)
		}
	}
}

func TestAuditRoundTrip(t *testing.T) {
	rows := []AuditRow{
		{Config: "ldp eps=1", Algorithm: "ldp", Learner: "lazy", Eps: 1, Delta: 0.1, B: 25, M: 1, T: 25, Pair: "reward", Trials: 3,
			Seed: 7, SigmaScale: 1, ClaimMu: 0.9, Mu: 0.6, P0: math.NaN(), P1: math.NaN(), Verdict: "pass",
			Released0: []float64{0.1, -0.2, 0.3}, Released1: []float64{1, 0.5, 0.7}},
		{Config: "feducb", Algorithm: "feducb", Pair: "schedule", Trials: 2, ClaimMu: math.NaN(), P0: 0, P1: 1,
			Verdict: "VIOLATION: x", Released0: []float64{0, 0}, Released1: []float64{1, 1}},
	}
	p := filepath.Join(t.TempDir(), AuditFile)
	if err := WriteAudit(p, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadAudit(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Config != "ldp eps=1" || got[0].Seed != 7 || !math.IsNaN(got[0].P0) || !math.IsNaN(got[1].ClaimMu) ||
		!reflect.DeepEqual(got[0].Released1, rows[0].Released1) || got[1].Verdict != "VIOLATION: x" || got[1].P1 != 1 {
		t.Errorf("round trip: got %+v", got)
	}
	// The layout-1 audit table (uint64 seed) is still read.
	old, err := ReadAudit("testdata/audit-layout1.arrow")
	if err != nil || len(old) != 1 || old[0].Trials != 20 {
		t.Errorf("layout-1 audit table: %v %+v", err, old)
	}
}
