package registry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/fedbandit/fedbandit/internal/nodetool"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
	"github.com/fedbandit/fedbandit/runner"
)

// TestNewKindColumnsReachTables: a kind's new columns (the test kind
// test-tagged: test_tag, a string, and test_dim, an int64) reach
// runs.arrow and runs.parquet of a sweep through the runner with no
// edit outside the kind: each holds the kind's value in its runs' rows
// and null in a synthetic instance's, with its type, its meaning and its
// kinds as applies_to in the field metadata (the Parquet copy's Arrow
// schema too), between outputs.Columns and the param_<key> columns; the
// per-run files keep them (a resumed sweep reads them back) and
// outputs.ReadRuns reads them into RunRecord.KindValues.
// Mutation control (run 2026-12-02): runColumns leaving out the new kind
// columns fails it (no column test_tag in runs.arrow).
func TestNewKindColumnsReachTables(t *testing.T) {
	if err := registry.WithKind(t, registry.TaggedKind); err != nil {
		t.Fatal(err)
	}
	const sweep = `name = "tagged"
seeds = 2

[[instance]]
name = "tagged"
kind = "test-tagged"
tag = "blue"
d = 3
k = 5

[[instance]]
name = "plain"
kind = "synthetic"
d = 3
k = 6

[[algorithm]]
name = "fedlinucb"

[grid]
M = [2]
B = [5]
T = [20]
`
	cfg, err := runner.ParseConfig([]byte(sweep), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p, err := runner.NewPlan(cfg, registry.Env{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	for range 2 { // the second sweep reads every run back from its file
		if _, err := (&runner.Sweep{Plan: p, Out: out, Workers: 1}).Execute(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := outputs.ReadRuns(filepath.Join(out, outputs.RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]any{} // run id: test_tag, test_dim (nil: null)
	for _, r := range recs {
		w := map[string]any{"test_tag": nil, "test_dim": nil}
		if r.InstanceKind == "test-tagged" {
			w = map[string]any{"test_tag": "blue", "test_dim": int64(3)}
		}
		want[r.RunID] = w
		for name, v := range w {
			if got, ok := r.KindValues[name]; ok != (v != nil) || ok && got != v {
				t.Errorf("runs.arrow: run %s (%s): %s = %v (%T), want %v", r.RunID[:8], r.InstanceKind, name, got, got, v)
			}
		}
	}
	if len(recs) != 4 || len(want) != 4 {
		t.Fatalf("%d runs", len(recs))
	}
	b, err := os.ReadFile(filepath.Join(out, outputs.RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	ar, err := ipc.NewFileReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer ar.Close()
	rec, err := ar.RecordBatch(0)
	if err != nil || ar.NumRecords() != 1 {
		t.Fatalf("runs.arrow: %d record batches, %v", ar.NumRecords(), err)
	}
	checkTagged(t, outputs.RunsFile, ar.Schema(), func(name string) arrow.Array {
		return rec.Column(ar.Schema().FieldIndices(name)[0])
	}, want)

	f, err := os.Open(filepath.Join(out, outputs.RunsParquetFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, err := file.NewParquetReader(f)
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
	checkTagged(t, outputs.RunsParquetFile, tbl.Schema(), func(name string) arrow.Array {
		c := tbl.Column(tbl.Schema().FieldIndices(name)[0]).Data()
		if len(c.Chunks()) != 1 {
			t.Fatalf("runs.parquet: column %s in %d chunks", name, len(c.Chunks()))
		}
		return c.Chunk(0)
	}, want)

	// The independent readers: arrow-check (the Arrow JavaScript
	// implementation) holds runs.arrow to its schema, the kind columns'
	// place and types, and their nulls in the rows of the kinds their
	// applies_to does not name; DuckDB reads runs.parquet's columns.
	t.Run("arrow-check", func(t *testing.T) {
		node, script, ok := nodetool.Find(t, "..", "arrow-check", "apache-arrow")
		if !ok {
			t.Skip("apache-arrow not installed (cd tools/arrow-check && npm ci)")
		}
		if b, err := exec.Command(node, script, out, "--runs", "4", "--done", "4").CombinedOutput(); err != nil {
			t.Errorf("arrow-check: %v\n%s", err, b)
		}
	})
	t.Run("duckdb-check", func(t *testing.T) {
		node, script, ok := nodetool.Find(t, "..", "duckdb-check", "@duckdb/node-api")
		if !ok {
			t.Skip("@duckdb/node-api not installed (cd tools/duckdb-check && npm ci)")
		}
		b, err := exec.Command(node, script, out).Output()
		if err != nil {
			t.Fatalf("duckdb-check: %v\n%s", err, b)
		}
		var got struct {
			Cols [][2]string `json:"runs_columns"`
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		n := len(outputs.Columns)
		if len(got.Cols) < n+2 || got.Cols[n] != [2]string{"test_dim", "BIGINT"} || got.Cols[n+1] != [2]string{"test_tag", "VARCHAR"} {
			t.Errorf("DuckDB: runs.parquet columns after outputs.Columns: %v", got.Cols[n:])
		}
	})
}

// checkTagged checks the test kind's columns in a runs table (schema sc,
// column by name): their place, type, field metadata and cells.
func checkTagged(t *testing.T, what string, sc *arrow.Schema, col func(name string) arrow.Array, want map[string]map[string]any) {
	t.Helper()
	n := len(outputs.Columns)
	fs := sc.Fields()
	if len(fs) < n+3 || fs[n].Name != "test_dim" || fs[n+1].Name != "test_tag" || fs[n+2].Name[:6] != "param_" {
		t.Fatalf("%s: fields after outputs.Columns: %v", what, fs[n:])
	}
	for _, f := range fs[n : n+2] {
		typ := map[string]arrow.DataType{"test_dim": arrow.PrimitiveTypes.Int64, "test_tag": arrow.BinaryTypes.String}[f.Name]
		applies, _ := f.Metadata.GetValue("fedbandit.applies_to")
		meaning, _ := f.Metadata.GetValue("fedbandit.meaning")
		if !arrow.TypeEqual(f.Type, typ) || !f.Nullable || applies != "instance kinds test-tagged" || meaning == "" {
			t.Errorf("%s: field %s: type %s nullable %v applies_to %q meaning %q", what, f.Name, f.Type, f.Nullable, applies, meaning)
		}
	}
	ids := col("run_id").(*array.String)
	tags := col("test_tag").(*array.String)
	dims := col("test_dim").(*array.Int64)
	for i := 0; i < ids.Len(); i++ {
		w := want[ids.Value(i)]
		var tag, dim any
		if tags.IsValid(i) {
			tag = tags.Value(i)
		}
		if dims.IsValid(i) {
			dim = dims.Value(i)
		}
		if tag != w["test_tag"] || dim != w["test_dim"] {
			t.Errorf("%s: run %s: test_tag %v test_dim %v, want %v %v", what, ids.Value(i)[:8], tag, dim, w["test_tag"], w["test_dim"])
		}
	}
}
