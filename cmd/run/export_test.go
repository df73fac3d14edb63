package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/fedbandit/fedbandit/internal/cliconv"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/runner"
)

// readCSV reads a whole CSV file.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// TestExportCSV (issue 39 item 5): run export DIR --csv writes runs.csv
// and curves.csv with the tables' columns and every row, values that read
// back exactly (floats, nulls as empty cells, booleans, the per-silo list
// as a JSON array); a collect removes the copies; a damaged table is one
// error that leaves the previous copies byte for byte; a directory run
// did not write is refused (exit 2) with nothing written; no --csv is a
// usage error. Mutation-checked: formatting floats with %.6g fails it
// (values no longer exact); not removing the copies in writeTables fails
// it; exporting without ReadTables' check first fails the damaged-table
// case (the error no longer says to run collect).
func TestExportCSV(t *testing.T) {
	dir := smallResults(t, 2)
	if _, err := runCLI(t, "export", dir, "--csv"); err != nil {
		t.Fatal(err)
	}
	runs, curves, err := outputs.ReadTables(dir)
	if err != nil {
		t.Fatal(err)
	}
	rr := readCSV(t, filepath.Join(dir, outputs.RunsCSVFile))
	col := map[string]int{}
	for i, c := range rr[0] {
		col[c] = i
	}
	if len(rr) != 1+len(runs) || len(col) != len(rr[0]) {
		t.Fatalf("runs.csv: %d lines, %d distinct of %d columns; want %d lines", len(rr), len(col), len(rr[0]), 1+len(runs))
	}
	for _, name := range []string{"run_id", "eps", "delta", "certified", "delivered_eps", "silo_pseudo_regret", "horizon"} {
		if _, ok := col[name]; !ok {
			t.Fatalf("runs.csv has no column %s: %q", name, rr[0])
		}
	}
	num := func(s string) *float64 {
		if s == "" {
			return nil
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("cell %q: %v", s, err)
		}
		return &v
	}
	for i, r := range runs {
		row := rr[1+i]
		if row[col["run_id"]] != r.RunID || row[col["certified"]] != strconv.FormatBool(r.Certified) || row[col["horizon"]] != strconv.Itoa(r.T) {
			t.Errorf("runs.csv row %d: %q, want run %s certified %v horizon %d", i, row, r.RunID, r.Certified, r.T)
		}
		for name, want := range map[string]*float64{"eps": r.Eps, "delta": r.Delta, "delivered_eps": r.DeliveredEps} {
			if got := num(row[col[name]]); !reflect.DeepEqual(got, want) {
				t.Errorf("runs.csv row %d: %s = %q, want %v", i, name, row[col[name]], want)
			}
		}
		var silo []float64
		if err := json.Unmarshal([]byte(row[col["silo_pseudo_regret"]]), &silo); err != nil || !reflect.DeepEqual(silo, r.Linear.SiloPseudo) {
			t.Errorf("runs.csv row %d: silo_pseudo_regret %q (%v), want %v", i, row[col["silo_pseudo_regret"]], err, r.Linear.SiloPseudo)
		}
	}
	cr := readCSV(t, filepath.Join(dir, outputs.CurvesCSVFile))
	ccol := map[string]int{}
	for i, c := range cr[0] {
		ccol[c] = i
	}
	if len(cr) != 1+len(curves) {
		t.Fatalf("curves.csv: %d lines, want %d", len(cr), 1+len(curves))
	}
	for i, c := range curves {
		row := cr[1+i]
		if row[ccol["run_id"]] != c.RunID || row[ccol["t"]] != strconv.FormatInt(c.Round, 10) || *num(row[ccol["pseudo_regret"]]) != c.Pseudo {
			t.Errorf("curves.csv row %d: %q, want run %s t %d pseudo %v", i, row, c.RunID, c.Round, c.Pseudo)
		}
	}

	// A damaged curves.arrow: one error, the previous copies unchanged.
	before := map[string][]byte{}
	for _, f := range []string{outputs.RunsCSVFile, outputs.CurvesCSVFile} {
		before[f], _ = os.ReadFile(filepath.Join(dir, f))
	}
	cp := filepath.Join(dir, outputs.CurvesFile)
	good, _ := os.ReadFile(cp)
	bad := bytes.Clone(good)
	bad[len(bad)/2] ^= 0xff
	os.WriteFile(cp, bad, 0o644)
	if _, err := runCLI(t, "export", dir, "--csv"); err == nil || !bytes.Contains([]byte(err.Error()), []byte("run collect")) {
		t.Errorf("damaged curves.arrow: %v, want an error saying to run collect", err)
	}
	for f, b := range before {
		if now, _ := os.ReadFile(filepath.Join(dir, f)); !bytes.Equal(now, b) {
			t.Errorf("damaged table: %s changed", f)
		}
	}
	os.WriteFile(cp, good, 0o644)

	// A collect rewrites the tables and removes the copies.
	if _, err := runner.Collect(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{outputs.RunsCSVFile, outputs.CurvesCSVFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("after collect: %s: %v, want it removed", f, err)
		}
	}

	// Not a results directory: refused, nothing written.
	other := t.TempDir()
	writeFile(t, filepath.Join(other, "notes.txt"), "mine")
	for _, f := range []string{outputs.RunsFile, outputs.CurvesFile} {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		os.WriteFile(filepath.Join(other, f), b, 0o644)
	}
	_, err = runCLI(t, "export", other, "--csv")
	if !cliconv.IsUsage(err) || !bytes.Contains([]byte(err.Error()), []byte("not a results directory")) {
		t.Errorf("export into a directory run did not write: %v", err)
	}
	if names, _ := os.ReadDir(other); len(names) != 3 {
		t.Errorf("export wrote into a directory it does not own: %v", names)
	}
	if _, err := runCLI(t, "export", dir); err == nil || !bytes.Contains([]byte(err.Error()), []byte("--csv")) {
		t.Errorf("export without --csv: %v", err)
	}
}

// TestLoadHint: the main job's closing lines give the polars, DuckDB and
// pandas one-liners and the CSV route, with the directory quoted for
// Python, SQL and the shell (a quote in the name included).
func TestLoadHint(t *testing.T) {
	h := loadHint("my results/it's")
	for _, want := range []string{
		`pl.read_ipc("my results/it's/runs.arrow")`,
		`FROM 'my results/it''s/curves.parquet' JOIN 'my results/it''s/runs.parquet' USING (run_id)`,
		`pd.read_feather("my results/it's/runs.arrow")`,
		`go run ./cmd/run export 'my results/it'\''s' --csv`,
		`pd.read_csv("my results/it's/runs.csv")`,
		"examples/regret.ipynb",
	} {
		if !bytes.Contains([]byte(h), []byte(want)) {
			t.Errorf("closing lines lack %s:\n%s", want, h)
		}
	}
}
