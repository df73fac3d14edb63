package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/fedbandit/fedbandit/internal/nodetool"
	"github.com/fedbandit/fedbandit/outputs"
)

// TestResultsConcatenate (issue 39 item 4): two results directories of
// other families (bco runs; linear runs) have the same runs-table columns,
// every registered param_<key> null where absent, so they concatenate
// without union_by_name: DuckDB reads both runs.parquet as one (each
// file's columns the first's) and polars concatenates both runs.arrow and
// both runs.parquet vertically; arrow-check finds every field described
// (a parameter's meaning from the registry) with the registered semantics.
//
// Mutation control (run once): the runs table's parameter columns those
// its rows use only (releaseKeys returning paramKeys(recs)) fails the
// schema comparison and both readers.
func TestResultsConcatenate(t *testing.T) {
	bco, linear := t.TempDir(), t.TempDir()
	if _, err := (&Sweep{Plan: mustPlan(t, genericBCO), Out: bco, Workers: 2, Log: quietLog()}).Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := sweepInto(t, mustPlan(t, tinyTOML), linear, 2, fakeSim{}, nil); err != nil {
		t.Fatal(err)
	}
	fields := func(dir string) []string {
		data, err := os.ReadFile(filepath.Join(dir, outputs.RunsFile))
		if err != nil {
			t.Fatal(err)
		}
		r, err := ipc.NewFileReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		var out []string
		for _, f := range r.Schema().Fields() {
			out = append(out, f.Name+" "+f.Type.String()+map[bool]string{true: " null", false: ""}[f.Nullable])
		}
		if v, _ := r.Schema().Metadata().GetValue("fedbandit.semantics_version"); v != "1" {
			t.Errorf("%s: semantics version %q, want %d", dir, v, SemanticsVersion)
		}
		return out
	}
	if a, b := fields(bco), fields(linear); !reflect.DeepEqual(a, b) {
		t.Errorf("runs.arrow columns differ:\nbco    %v\nlinear %v", a, b)
	}
	requireArrowCheck(t, bco, "--runs", "6")
	requireArrowCheck(t, linear, "--runs", "12")

	families := map[string]int{"bco": 6, "linear": 12}
	for _, tool := range []struct{ name, pkg string }{{"duckdb-check", "@duckdb/node-api"}, {"polars-check", "nodejs-polars"}} {
		node, script, ok := nodetool.Find(t, "..", tool.name, tool.pkg)
		if !ok {
			t.Skipf("independent reader not installed (cd tools/%s && npm ci)", tool.name)
		}
		out, err := exec.Command(node, filepath.Join(filepath.Dir(script), "concat.mjs"), bco, linear).CombinedOutput()
		if err != nil {
			t.Errorf("%s concat.mjs: %v\n%s", tool.name, err, out)
			continue
		}
		type concat struct {
			Rows     int            `json:"rows"`
			Families map[string]int `json:"families"`
		}
		var got map[string]concat
		if tool.name == "duckdb-check" {
			var c concat
			err = json.Unmarshal(out, &c)
			got = map[string]concat{"parquet": c}
		} else {
			err = json.Unmarshal(out, &got)
		}
		if err != nil || len(got) == 0 {
			t.Fatalf("%s: %v\n%s", tool.name, err, out)
		}
		for what, c := range got {
			if c.Rows != 18 || !reflect.DeepEqual(c.Families, families) {
				t.Errorf("%s, %s: %d rows %v, want 18 %v", tool.name, what, c.Rows, c.Families, families)
			}
		}
	}
}
