package outputs

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

const layout1Dir = "testdata/layout1"

// TestLayout1BytesReproduced: the codec table writes the columns of
// layout 1 byte for byte as the layout-1 release did (testdata/layout1
// and testdata/audit-layout1.arrow, written by fedbandit 5cab670 with the
// four type switches the codec table replaced): every per-run file,
// runs.arrow, curves.arrow and audit.arrow, re-encoded in layout 1 from
// what this build reads, is the same file.
// (Mutation controls, run: a float formatted with 'e' instead of 'g', or
// the int codec appending v+1, fails it.)
func TestLayout1BytesReproduced(t *testing.T) {
	scan, err := ScanRuns(layout1Dir)
	if err != nil || len(scan.Invalid) != 0 || len(scan.Runs) != 5 {
		t.Fatalf("scan: %v %+v", err, scan)
	}
	for _, f := range scan.Runs {
		want := mustRead(t, RunPath(layout1Dir, f.Record.RunID))
		got, err := encodeRun(&f.Record, f.Points, 1)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("run %s: layout-1 encoding differs (%d vs %d bytes, %v)", f.Record.RunID, len(got), len(want), err)
		}
	}
	recs, err := ReadRuns(filepath.Join(layout1Dir, RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	got, err := encodeRows(runCols(1), recs, layoutMetadata(1), math.MaxInt)
	if err != nil || !bytes.Equal(got, mustRead(t, filepath.Join(layout1Dir, RunsFile))) {
		t.Errorf("runs.arrow: layout-1 encoding differs (%v)", err)
	}
	curves, err := ReadCurves(filepath.Join(layout1Dir, CurvesFile))
	if err != nil {
		t.Fatal(err)
	}
	got, err = encodeCurves(curves, 1)
	if err != nil || !bytes.Equal(got, mustRead(t, filepath.Join(layout1Dir, CurvesFile))) {
		t.Errorf("curves.arrow: layout-1 encoding differs (%v)", err)
	}
	audit := "testdata/audit-layout1.arrow"
	rows, err := ReadAudit(audit)
	if err != nil || len(rows) != 1 {
		t.Fatalf("audit table: %d rows, %v", len(rows), err)
	}
	got, err = encodeRows(auditCols(), rows, layoutMetadata(1), math.MaxInt)
	if err != nil || !bytes.Equal(got, mustRead(t, audit)) {
		t.Errorf("audit.arrow: layout-1 encoding differs (%v)", err)
	}
	// The layout-1 tables and the layout-1 run files say the same once
	// upgraded.
	wantRecs, wantCurves := Tables(scan.Runs)
	if !reflect.DeepEqual(recs, wantRecs) || !reflect.DeepEqual(curves, wantCurves) {
		t.Error("layout-1 tables differ from the layout-1 run files")
	}
}

// TestLayout1Upgraded: reading layout-1 files derives the columns layout 2
// added, and collecting them writes a layout-2 runs.arrow with those
// values; the rows keep format_version 1.
func TestLayout1Upgraded(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(layout1Dir)); err != nil {
		t.Fatal(err)
	}
	sum, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := ReadRuns(sum.RunsPath)
	if err != nil {
		t.Fatal(err)
	}
	trust := map[string]string{"fedlinucb": "none", "ldp": "local", "super-agent": "central", "feducb": "local"}
	for _, r := range recs {
		if r.FormatVersion != 1 || r.Family != FamilyLinear || r.Trust != trust[r.Algorithm] {
			t.Errorf("%s: format_version %d family %q trust %q", r.Algorithm, r.FormatVersion, r.Family, r.Trust)
		}
		// feducb's sync_threshold was not recorded: unknown, not empty.
		if (r.Params == nil) != (r.Algorithm == "feducb") || len(r.Params) != 0 {
			t.Errorf("%s: params %v (nil %v)", r.Algorithm, r.Params, r.Params == nil)
		}
	}
	if v := layoutOf(t, sum.RunsPath); v != "2" {
		t.Errorf("collected runs.arrow has layout %s", v)
	}
}

// TestParamsColumn: params round-trip through runs.arrow and the per-run
// files exactly, 0 included (an explicit value, never "absent"), nil (not
// recorded) distinct from empty (no parameters); the column is a struct
// with one nullable float64 field per key of the table, in key order.
func TestParamsColumn(t *testing.T) {
	params := []map[string]float64{
		{"sync_threshold": 2.5},
		{},
		{"explore": 0, "sync_threshold": math.Inf(1)},
		nil,
		{"explore": 0.125},
	}
	var recs []RunRecord
	for i, p := range params {
		r := sampleRecord(strings.Repeat(string(rune('a'+i)), 64), uint64(i))
		r.Params = p
		if p == nil {
			r.FormatVersion = 1 // only a layout-1 record may lack its params
		}
		recs = append(recs, r)
	}
	data, err := EncodeRuns(recs)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), RunsFile)
	os.WriteFile(p, data, 0o644)
	got, err := ReadRuns(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, recs) {
		for i := range got {
			t.Errorf("row %d: params %#v, want %#v", i, got[i].Params, recs[i].Params)
		}
	}
	f := fieldOf(t, data, "params")
	want := arrow.StructOf(arrow.Field{Name: "explore", Type: tFloat, Nullable: true}, arrow.Field{Name: "sync_threshold", Type: tFloat, Nullable: true})
	if !arrow.TypeEqual(f.Type, want) || !f.Nullable {
		t.Errorf("params column %v", f)
	}
	// A table whose algorithms have no parameters: an empty struct.
	if f := fieldOf(t, mustEncode(t, recs[1:2]), "params"); !arrow.TypeEqual(f.Type, arrow.StructOf()) {
		t.Errorf("params column without parameters %v", f)
	}
	// Per-run files.
	for _, r := range recs {
		if r.Params == nil {
			if _, err := EncodeRun(&r, samplePoints); err == nil {
				t.Error("a layout-2 run file without params was written")
			}
			continue
		}
		b, err := EncodeRun(&r, samplePoints)
		if err != nil {
			t.Fatal(err)
		}
		back, _, err := DecodeRun(b)
		if err != nil || !reflect.DeepEqual(back.Params, r.Params) {
			t.Errorf("run file params %v, want %v (%v)", back, r.Params, err)
		}
	}
	bad := recs[0]
	bad.Params = map[string]float64{"a=b": 1}
	if _, err := EncodeRun(&bad, samplePoints); err == nil {
		t.Error("a parameter key with '=' was written")
	}
}

// TestNewerLayoutRefused: files of a layout newer than this build are
// refused with a message saying so (never "corrupted"), and a directory
// holding one is neither scanned nor collected; its files stay in place.
func TestNewerLayoutRefused(t *testing.T) {
	rec := sampleRecord(strings.Repeat("a", 64), 3)
	future := FormatVersion + 1
	data, err := encodeRun(&rec, samplePoints, future)
	if err != nil {
		t.Fatal(err)
	}
	const msg = "written by a newer fedbandit (layout 3); this build reads up to 2: upgrade"
	_, _, err = DecodeRun(data)
	if _, ok := errors.AsType[*NewerLayoutError](err); !ok || !strings.Contains(err.Error(), msg) {
		t.Errorf("decode of a layout-%d file: %v", future, err)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, RunsDir), 0o755)
	ok := sampleRecord(strings.Repeat("b", 64), 4)
	if err := WriteRun(RunPath(dir, ok.RunID), &ok, samplePoints); err != nil {
		t.Fatal(err)
	}
	path := RunPath(dir, rec.RunID)
	os.WriteFile(path, data, 0o644)
	if _, err := ScanRuns(dir); err == nil || !strings.Contains(err.Error(), path+": "+msg) {
		t.Errorf("scan: %v", err)
	}
	if _, err := Collect(dir); err == nil || !strings.Contains(err.Error(), msg) {
		t.Errorf("collect: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Error(err)
	}
	// Tables.
	tables := map[string]func(p string) error{
		RunsFile:   func(p string) error { _, err := ReadRuns(p); return err },
		CurvesFile: func(p string) error { _, err := ReadCurves(p); return err },
		AuditFile:  func(p string) error { _, err := ReadAudit(p); return err },
	}
	for name, read := range tables {
		b, err := encodeRows([]col[Point]{pointCols[0]}, samplePoints, layoutMetadata(future), math.MaxInt)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		if err := read(p); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Not a layout at all: a damaged or foreign file (invalid, not newer).
	for _, v := range []string{"", "0", "x"} {
		if _, err := CheckLayout(v); err == nil {
			t.Errorf("layout %q accepted", v)
		} else if _, newer := errors.AsType[*NewerLayoutError](err); newer {
			t.Errorf("layout %q called newer", v)
		}
	}
}

func mustEncode(t *testing.T, recs []RunRecord) []byte {
	t.Helper()
	b, err := EncodeRuns(recs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func fieldOf(t *testing.T, data []byte, name string) arrow.Field {
	t.Helper()
	r, err := ipc.NewFileReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fs := r.Schema().FieldIndices(name)
	if len(fs) != 1 {
		t.Fatalf("no column %s", name)
	}
	return r.Schema().Field(fs[0])
}

func layoutOf(t *testing.T, path string) string {
	t.Helper()
	r, err := ipc.NewFileReader(bytes.NewReader(mustRead(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	v, _ := r.Schema().Metadata().GetValue(metaFormat)
	return v
}
