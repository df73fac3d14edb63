package outputs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/fedbandit/fedbandit/internal/nodetool"
)

// mixedRecords are runs of three families with different params (so
// the param_<key> columns are null in some rows), one without silo lists
// (mab), each its own configuration.
func mixedRecords() []RunRecord {
	a := sampleRecord(strings.Repeat("a", 64), 1)
	a.GroupID = "aaaaaaaaaaaaaaaa"
	b := mabRecord(strings.Repeat("b", 64), 2)
	b.GroupID = "bbbbbbbbbbbbbbbb"
	c := sampleRecord(strings.Repeat("c", 64), 3)
	c.GroupID = "cccccccccccccccc"
	c.Family, c.Algorithm, c.Params, c.InstanceKind = "bco", "ldp-bco", map[string]float64{"c": 2, "eta": 0.125}, "bco"
	c.Linear, c.NoiseVar, c.Arms, c.FixedBasis, c.SharedContexts, c.ContextGen = nil, nil, nil, nil, nil, ""
	c.Mechanism, c.Relation, c.RelationNote = "gaussian-report", "replace-one", "one user"
	return []RunRecord{a, b, c}
}

// encodeCurves is curves.arrow's bytes for rows (a run's rows
// consecutive), as a collect writes them.
func encodeCurves(t *testing.T, rows []CurvePoint) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := writeCurves(&buf, func(emit func([]CurvePoint) error) error { return emitRows(rows, emit) }); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestParquetSameTable: runs.parquet and curves.parquet, read by an
// independent reader (arrow-go's pqarrow, which shares no code with the
// parquet-go writer), hold the columns of the Arrow tables in order, with
// the same nullability, and every row's values equal (compared as JSON:
// structs by field, lists element by element, nulls as null), for a mixed
// directory (params fields null where a family has none, a run without
// silo lists) and in several record batches. Mutation controls: the list
// shredder starting every element at repetition level 0 (each element
// then a row of its own: the lists read back cut short) and a nullable field
// written required (null params read as 0) each made it fail.
func TestParquetSameTable(t *testing.T) {
	recs := mixedRecords()
	rb, err := EncodeRuns(recs)
	if err != nil {
		t.Fatal(err)
	}
	var curves []CurvePoint
	for r := range recs { // several record batches: one per configuration
		for i := 0; i < curveBatchRows/2+1; i++ {
			curves = append(curves, Derive(&recs[r], Point{Round: int64(i + 1), Pseudo: float64(i) / 3, Realised: float64(i)}))
		}
	}
	cb := encodeCurves(t, curves)
	for _, c := range []struct {
		name  string
		arrow []byte
	}{{"runs", rb}, {"curves", cb}} {
		t.Run(c.name, func(t *testing.T) {
			pq, err := ParquetOf(c.arrow)
			if err != nil {
				t.Fatal(err)
			}
			sameTable(t, c.arrow, pq)
		})
	}
}

// sameTable compares the Arrow IPC file a with the Parquet file p, read
// by pqarrow.
func sameTable(t *testing.T, a, p []byte) {
	t.Helper()
	ar, err := ipc.NewFileReader(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	defer ar.Close()
	pr, err := file.NewParquetReader(bytes.NewReader(p))
	if err != nil {
		t.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	// The Arrow columns, but a struct without fields (no Parquet form).
	var keep []int
	for j, f := range ar.Schema().Fields() {
		if st, ok := f.Type.(*arrow.StructType); !ok || st.NumFields() > 0 {
			keep = append(keep, j)
		}
	}
	if int(tbl.NumCols()) != len(keep) {
		t.Fatalf("%d columns, the Arrow table %d", tbl.NumCols(), len(keep))
	}
	var want [][]string // per kept column, per row: JSON
	for _, j := range keep {
		var col []string
		for b := 0; b < ar.NumRecords(); b++ {
			rec, err := ar.RecordBatch(b)
			if err != nil {
				t.Fatal(err)
			}
			col = append(col, rowJSON(t, rec.Column(j))...)
		}
		want = append(want, col)
	}
	for j, aj := range keep {
		f := ar.Schema().Field(aj)
		pf := tbl.Schema().Field(j)
		if pf.Name != f.Name || pf.Nullable != f.Nullable || kindOf(pf.Type) != kindOf(f.Type) {
			t.Errorf("column %d: %s %s nullable %v, the Arrow table's %s %s nullable %v", j, pf.Name, pf.Type, pf.Nullable, f.Name, f.Type, f.Nullable)
		}
		var got []string
		for _, ch := range tbl.Column(j).Data().Chunks() {
			got = append(got, rowJSON(t, ch)...)
		}
		if len(got) != len(want[j]) {
			t.Fatalf("column %s: %d rows, the Arrow table %d", f.Name, len(got), len(want[j]))
		}
		for i := range got {
			if got[i] != want[j][i] {
				t.Fatalf("column %s row %d: %s, the Arrow table %s", f.Name, i, got[i], want[j][i])
			}
		}
	}
}

// kindOf names a type's shape: its ID, recursively for struct fields and
// list elements (names and nullability of list elements aside, which
// Parquet's LIST names "element").
func kindOf(t arrow.DataType) string {
	switch t := t.(type) {
	case *arrow.StructType:
		var fs []string
		for _, f := range t.Fields() {
			fs = append(fs, f.Name+":"+kindOf(f.Type))
		}
		return "struct<" + strings.Join(fs, ",") + ">"
	case arrow.ListLikeType:
		return "list<" + kindOf(t.Elem()) + ">"
	}
	return t.ID().String()
}

// rowJSON returns each row of arr as JSON.
func rowJSON(t *testing.T, arr arrow.Array) []string {
	out := make([]string, arr.Len())
	for i := range out {
		b, err := json.Marshal(arr.GetOneForMarshal(i))
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return out
}

// TestParquetWrittenWithTables: a collect writes runs.parquet and
// curves.parquet with the Arrow tables, the same rows (its runs have no
// params: the empty params struct is the one column left out).
func TestParquetWrittenWithTables(t *testing.T) {
	dir := t.TempDir()
	collectSample(t, dir, 3)
	for _, pair := range [][2]string{{RunsFile, RunsParquetFile}, {CurvesFile, CurvesParquetFile}} {
		a, err := os.ReadFile(filepath.Join(dir, pair[0]))
		if err != nil {
			t.Fatal(err)
		}
		p, err := os.ReadFile(filepath.Join(dir, pair[1]))
		if err != nil {
			t.Fatal(err)
		}
		sameTable(t, a, p)
	}
}

// mixedParquetDir collects the runs of three families (linear, mab, bco; with
// different params) into a results directory.
func mixedParquetDir(t *testing.T) (string, []RunRecord, []CurvePoint) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, RunsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, rec := range mixedRecords() {
		if err := WriteRun(RunPath(dir, rec.RunID), &rec, samplePoints); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Collect(dir); err != nil {
		t.Fatal(err)
	}
	runs, curves, err := ReadTables(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, runs, curves
}

// readerOutput is what tools/duckdb-check/check.mjs and
// tools/parquet-check/tables.mjs print.
type readerOutput struct {
	RunsColumns   json.RawMessage `json:"runs_columns"`
	CurvesColumns json.RawMessage `json:"curves_columns"`
	Runs          []struct {
		RunID     string              `json:"run_id"`
		Family    string              `json:"family"`
		Algorithm string              `json:"algorithm"`
		Params    map[string]*float64 `json:"params"`
		Silo      []float64           `json:"silo_pseudo_regret"`
	} `json:"runs"`
	Params map[string][]*float64 `json:"params"` // DuckDB: param_<key> selected alone, per run
	Curves struct {
		Rows   int64   `json:"rows"`
		Pseudo float64 `json:"pseudo"`
		Rounds int64   `json:"rounds"`
	} `json:"curves"`
	// DuckDB: curves JOIN runs USING (run_id), naming group_id and
	// pseudo_regret without a table prefix.
	Joined *struct {
		Rows   int64   `json:"rows"`
		Groups int64   `json:"groups"`
		Pseudo float64 `json:"pseudo"`
	} `json:"joined"`
}

// TestParquetIndependentReaders: DuckDB (tools/duckdb-check, no extension)
// and hyparquet (tools/parquet-check/tables.mjs) read runs.parquet and
// curves.parquet of a mixed directory (linear, mab and bco runs): every
// run with its family, algorithm, parameters (the param_<key> columns,
// null where the algorithm has no such parameter; DuckDB also selects
// each alone) and silo list (null for mab and bco), and the curves' rows,
// as the Go tables hold them. polars
// (tools/polars-check) loads both files in one call each and finds them
// equal to the Arrow tables. Skipped when node or a reader is not
// installed, unless FEDBANDIT_REQUIRE_READERS=1 (CI). Mutation control:
// ParquetOf writing every DOUBLE plus 1 made the DuckDB and hyparquet
// cases fail (silo lists, params, curve sums).
func TestParquetIndependentReaders(t *testing.T) {
	dir, runs, curves := mixedParquetDir(t)
	var pseudo float64
	var rounds int64
	for _, c := range curves {
		pseudo += c.Pseudo
		rounds += c.Round
	}
	for _, r := range []struct{ tool, pkg, script string }{
		{"duckdb-check", "@duckdb/node-api", "check.mjs"},
		{"parquet-check", "hyparquet", "tables.mjs"},
	} {
		t.Run(r.tool, func(t *testing.T) {
			node, script, ok := nodetool.Find(t, "..", r.tool, r.pkg)
			if !ok {
				t.Skipf("%s not installed (cd tools/%s && npm ci)", r.pkg, r.tool)
			}
			out, err := exec.Command(node, filepath.Join(filepath.Dir(script), r.script), dir).Output()
			if err != nil {
				t.Fatalf("%s: %v\n%s", r.script, err, out)
			}
			var got readerOutput
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s: %v\n%s", r.script, err, out)
			}
			if len(got.Runs) != len(runs) {
				t.Fatalf("%d runs, want %d", len(got.Runs), len(runs))
			}
			// The table's parameter columns: every registered key and
			// every key a run uses.
			keys := map[string]bool{}
			for _, k := range releaseKeys(runs) {
				keys[k] = true
			}
			for i, g := range got.Runs {
				w := runs[i]
				var silo []float64 // null where the family has no silos
				if w.Linear != nil {
					silo = w.Linear.SiloPseudo
				}
				if g.RunID != w.RunID || g.Family != w.Family || g.Algorithm != w.Algorithm || (g.Silo == nil) != (silo == nil) || fmt.Sprint(g.Silo) != fmt.Sprint(silo) {
					t.Errorf("run %d: %s %s %s silo %v; want %s %s %s %v", i, g.RunID[:4], g.Family, g.Algorithm, g.Silo, w.RunID[:4], w.Family, w.Algorithm, silo)
				}
				if len(g.Params) != len(keys) {
					t.Errorf("run %d: params %v, want the fields %v", i, g.Params, keys)
				}
				for k := range keys {
					v, has := w.Params[k]
					if p := g.Params[k]; (p != nil) != has || has && *p != v {
						t.Errorf("run %d: param_%s = %s, want %v (set %v)", i, k, show(p), v, has)
					}
					if col, ok := got.Params[k]; r.tool == "duckdb-check" && (!ok || (col[i] != nil) != has || has && *col[i] != v) {
						t.Errorf("run %d: param_%s selected alone: %s, want %v (set %v)", i, k, show(col[i]), v, has)
					}
				}
			}
			if got.Curves.Rows != int64(len(curves)) || got.Curves.Pseudo != pseudo || got.Curves.Rounds != rounds {
				t.Errorf("curves: %+v, want %d rows, sums %v, %d", got.Curves, len(curves), pseudo, rounds)
			}
			if r.tool == "duckdb-check" {
				groups := map[string]bool{}
				for _, c := range curves {
					groups[c.GroupID] = true
				}
				if j := got.Joined; j == nil || j.Rows != int64(len(curves)) || j.Groups != int64(len(groups)) || math.Abs(j.Pseudo-pseudo) > 1e-9*math.Max(1, math.Abs(pseudo)) {
					t.Errorf("curves JOIN runs USING (run_id): %+v, want %d rows, %d groups, sum %v", j, len(curves), len(groups), pseudo)
				}
			}
		})
	}
	t.Run("polars-check", func(t *testing.T) {
		node, script, ok := nodetool.Find(t, "..", "polars-check", "nodejs-polars")
		if !ok {
			t.Skip("nodejs-polars not installed (cd tools/polars-check && npm ci)")
		}
		out, err := exec.Command(node, script, "sweep", dir, "--runs", fmt.Sprint(len(runs)), "--curve-rows", fmt.Sprint(len(curves))).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "runs.parquet") {
			t.Fatalf("polars-check: %v\n%s", err, out)
		}
	})
}

// show prints a nullable number.
func show(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}
