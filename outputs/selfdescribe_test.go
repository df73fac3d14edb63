package outputs

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/parquet-go/parquet-go"

	"github.com/fedbandit/fedbandit/internal/buildinfo"
	"github.com/fedbandit/fedbandit/internal/nodetool"
)

// readSchema is the Arrow schema of the IPC file at path.
func readSchema(t *testing.T, path string) *arrow.Schema {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ipc.NewFileReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return r.Schema()
}

// checkDescribed checks a table's schema against its columns: the build
// and the layout in the schema metadata, each field's unit, applies-to
// and meaning in its field metadata, and non-nullable exactly the columns
// no row leaves null.
func checkDescribed[R any](t *testing.T, what string, sc *arrow.Schema, cols []Column[R]) {
	t.Helper()
	in := buildinfo.Read()
	md := sc.Metadata()
	_, sem := registered()
	for k, want := range map[string]string{metaFormat: "4", metaVersion: in.Version, metaRevision: in.Revision, metaSemantics: sem} {
		if got, ok := md.GetValue(k); !ok || got != want {
			t.Errorf("%s: schema metadata %s = %q (present %v), want %q", what, k, got, ok, want)
		}
	}
	if got, _ := md.GetValue(metaModified); (in.Revision == buildinfo.Unknown) != (got == buildinfo.Unknown) {
		t.Errorf("%s: %s = %q with revision %q", what, metaModified, got, in.Revision)
	}
	if len(sc.Fields()) != len(cols) {
		t.Fatalf("%s: %d fields, want %d", what, len(sc.Fields()), len(cols))
	}
	required := 0
	for j, f := range sc.Fields() {
		c := cols[j]
		if f.Nullable == c.required() {
			t.Errorf("%s: column %s nullable %v", what, f.Name, f.Nullable)
		}
		if !f.Nullable {
			required++
		}
		for k, want := range map[string]string{fieldUnit: c.Unit, fieldApplies: c.Applies, fieldMeaning: c.Doc} {
			if got, ok := f.Metadata.GetValue(k); !ok || got != want {
				t.Errorf("%s: column %s: field metadata %s = %q, want %q", what, f.Name, k, got, want)
			}
		}
	}
	if required == 0 {
		t.Errorf("%s: no non-nullable column", what)
	}
}

// TestTablesDescribeThemselves (issue 39 item 4): runs.arrow,
// curves.arrow and audit.arrow record the build (module version, VCS
// revision or "unknown", semantics version as registered: this test
// binary links the registry through the package's external tests) and
// the layout; every field its unit,
// applies-to and meaning from the column table; the columns no row
// leaves null are non-nullable. The Parquet copies keep the same
// schema metadata as key-value metadata, the same nullability (REQUIRED
// columns) and the Arrow schema itself under ARROW:schema, equal to the
// Arrow file's (field metadata included); hyparquet, which shares no code
// with the writer, reads the REQUIRED columns and the keys back.
//
// Mutation controls (run once): every field nullable in tableSchema
// fails the nullability checks here and in arrow-check; leaving out the
// field metadata fails the metadata checks; not writing ARROW:schema
// fails the Parquet check.
func TestTablesDescribeThemselves(t *testing.T) {
	dir, runs, _ := mixedParquetDir(t)
	runsSchema := readSchema(t, filepath.Join(dir, RunsFile))
	checkDescribed(t, RunsFile, runsSchema, runColumns(releaseKeys(runs)))
	curvesSchema := readSchema(t, filepath.Join(dir, CurvesFile))
	checkDescribed(t, CurvesFile, curvesSchema, curveColumnsOf0(t, curvesSchema))
	audit := filepath.Join(t.TempDir(), AuditFile)
	if err := WriteAudit(audit, []AuditRow{{Config: "c", Algorithm: "ldp", Verdict: "pass", Released0: []float64{1}, Released1: []float64{2}}}); err != nil {
		t.Fatal(err)
	}
	checkDescribed(t, AuditFile, readSchema(t, audit), AuditColumns)

	for name, sc := range map[string]*arrow.Schema{RunsParquetFile: runsSchema, CurvesParquetFile: curvesSchema} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		pf, err := parquet.OpenFile(f, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range sc.Metadata().Keys() {
			want, _ := sc.Metadata().GetValue(k)
			if got, ok := pf.Lookup(k); !ok || got != want {
				t.Errorf("%s: key-value metadata %s = %q, want %q", name, k, got, want)
			}
		}
		enc, ok := pf.Lookup(ArrowSchemaKey)
		raw, err := base64.StdEncoding.DecodeString(enc)
		if !ok || err != nil {
			t.Fatalf("%s: %s: present %v, %v", name, ArrowSchemaKey, ok, err)
		}
		r, err := ipc.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: %s: %v", name, ArrowSchemaKey, err)
		}
		if !r.Schema().Equal(sc) || !slices.EqualFunc(r.Schema().Fields(), sc.Fields(), func(a, b arrow.Field) bool { return a.Metadata.Equal(b.Metadata) }) {
			t.Errorf("%s: %s holds\n%v\nwant\n%v", name, ArrowSchemaKey, r.Schema(), sc)
		}
		r.Release()
		pfs := pf.Schema().Fields()
		if len(pfs) != len(sc.Fields()) {
			t.Fatalf("%s: %d columns, %d in the Arrow table", name, len(pfs), len(sc.Fields()))
		}
		for j, fld := range sc.Fields() {
			if pfs[j].Name() != fld.Name || pfs[j].Optional() != fld.Nullable {
				t.Errorf("%s: column %d %s optional %v; the Arrow table's %s nullable %v", name, j, pfs[j].Name(), pfs[j].Optional(), fld.Name, fld.Nullable)
			}
		}
		f.Close()
	}

	node, script, ok := nodetool.Find(t, "..", "parquet-check", "hyparquet")
	if !ok {
		t.Skip("hyparquet not installed (cd tools/parquet-check && npm ci)")
	}
	out, err := exec.Command(node, filepath.Join(filepath.Dir(script), "tables.mjs"), dir).Output()
	if err != nil {
		t.Fatalf("tables.mjs: %v\n%s", err, out)
	}
	var got struct {
		RunsRequired   []string          `json:"runs_required"`
		CurvesRequired []string          `json:"curves_required"`
		RunsKV         map[string]string `json:"runs_kv"`
		CurvesKV       map[string]string `json:"curves_kv"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	requiredOf := func(sc *arrow.Schema) []string {
		var names []string
		for _, f := range sc.Fields() {
			if !f.Nullable {
				names = append(names, f.Name)
			}
		}
		return names
	}
	if !slices.Equal(got.RunsRequired, requiredOf(runsSchema)) || !slices.Equal(got.CurvesRequired, requiredOf(curvesSchema)) {
		t.Errorf("hyparquet: REQUIRED columns %v and %v, want %v and %v", got.RunsRequired, got.CurvesRequired, requiredOf(runsSchema), requiredOf(curvesSchema))
	}
	for _, kv := range []map[string]string{got.RunsKV, got.CurvesKV} {
		for _, k := range []string{metaFormat, metaVersion, metaRevision, metaModified, metaSemantics, ArrowSchemaKey} {
			if kv[k] == "" {
				t.Errorf("hyparquet: no key-value metadata %s in %v", k, slices.Sorted(func(yield func(string) bool) {
					for k := range kv {
						if !yield(k) {
							return
						}
					}
				}))
			}
		}
	}
}

// curveColumnsOf0 is curveColumnsOf of a schema this build wrote.
func curveColumnsOf0(t *testing.T, sc *arrow.Schema) []Column[CurvePoint] {
	t.Helper()
	cols, err := curveColumnsOf(sc.Fields())
	if err != nil {
		t.Fatal(err)
	}
	// A metric column this build declares carries its Metric's words.
	for i, c := range cols {
		for _, m := range Metrics() {
			if m.Column == c.Name && m.derive == nil {
				cols[i] = m.column()
			}
		}
	}
	return cols
}

// TestRequiredColumnRefusesNull: a table is never written with a null in
// a column every row has (here a run without its instance kind, or a
// curve row without its run id): the writer names the column.
//
// Mutation control (run once): checkCell without its notNull case makes
// both cases fail.
func TestRequiredColumnRefusesNull(t *testing.T) {
	rec := sampleRecord(strings.Repeat("a", 64), 1)
	rec.InstanceKind = ""
	if err := WriteTables(t.TempDir(), []RunRecord{rec}, nil); err == nil || !strings.Contains(err.Error(), "column instance_kind") {
		t.Errorf("run without instance_kind: %v", err)
	}
	rec = sampleRecord(strings.Repeat("a", 64), 1)
	c := Derive(&rec, samplePoints[0])
	c.RunID = ""
	if err := WriteTables(t.TempDir(), []RunRecord{rec}, []CurvePoint{c}); err == nil || !strings.Contains(err.Error(), "column run_id") {
		t.Errorf("curve row without run_id: %v", err)
	}
}
