package outputs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestR4_CollectNothingDropped: a collect of configurations larger than one
// record batch of curves.arrow and one row group of curves.parquet (one of
// 66,000 rows; a batch holds at most 65,536, so it is split at a run's end) publishes exactly the rows of
// the per-run files in all four tables: curves.arrow equals the rows
// derived from the run files, in order, and the Parquet copies hold as
// many rows. The fault of attack round 4 (one row dropped at a batch
// boundary: collect exited 0 with 99,999 of 100,000 rows) is mutation O1
// of .ci/mutations, under which this test fails: the collect refuses to
// publish.
func TestR4_CollectNothingDropped(t *testing.T) {
	dir := t.TempDir()
	const runs, points = 10, 6600
	if err := GenerateRuns(dir, runs, points); err != nil {
		t.Fatal(err)
	}
	sum, err := Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	if sum.CurveRows != runs*points {
		t.Errorf("collect summary: %d curve rows, want %d", sum.CurveRows, runs*points)
	}
	recs, curves, err := ReadTables(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []CurvePoint
	for _, i := range curveOrder(recs) {
		rec, pts, err := readRunAs(RunPath(dir, recs[i].RunID), recs[i].RunID)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pts {
			want = append(want, Derive(rec, p))
		}
	}
	if len(recs) != runs || len(curves) != len(want) || !reflect.DeepEqual(curves, want) {
		t.Fatalf("tables: %d runs, %d curve rows; the run files: %d runs, %d rows (or other values)", len(recs), len(curves), runs, len(want))
	}
	staged := []string{filepath.Join(dir, RunsFile), filepath.Join(dir, CurvesFile), filepath.Join(dir, RunsParquetFile), filepath.Join(dir, CurvesParquetFile)}
	var tj tablesRecord
	if err := json.Unmarshal(mustRead(t, filepath.Join(dir, TablesFile)), &tj); err != nil {
		t.Fatal(err)
	}
	batches := tj.CurveBatches
	if len(batches) != 2 || batches[0].Rows != 9*points {
		t.Fatalf("curve batches %+v, want the configuration split after its 9th run", batches)
	}
	if err := checkStagedRows(staged, runs, runs*points, batches); err != nil {
		t.Errorf("the published tables: %v", err)
	}
	// The check refuses a table that lost a row, naming it.
	for _, c := range []struct {
		runs, rows int64
		batches    []CurveBatch
		says       string
	}{
		{runs, runs*points + 1, batches, "curves.arrow holds 66000 rows, the run files read 66001"},
		{runs + 1, runs * points, batches, "runs.arrow holds 10 rows for the 11 run files read"},
		{runs, runs * points, []CurveBatch{{Rows: 59401}, {Rows: 6599}}, "record batch 0 holds 59400 rows, tables.json would say 59401"},
	} {
		if err := checkStagedRows(staged, c.runs, c.rows, c.batches); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("check with %d runs, %d rows: %v, want %q", c.runs, c.rows, err, c.says)
		}
	}
}

// TestR4_16StagedLeftoversRemoved: the staged tables a killed collect left
// (curves.arrow.N.tmp, ...) are removed by the next collect; other files,
// and temp files of other names, are left alone.
func TestR4_16StagedLeftoversRemoved(t *testing.T) {
	dir := t.TempDir()
	if err := GenerateRuns(dir, 3, 5); err != nil {
		t.Fatal(err)
	}
	stale := []string{"curves.arrow.123.tmp", "runs.arrow.9.tmp", "runs.parquet.77.tmp", "curves.parquet.5.tmp", "tables.json.1.tmp"}
	keep := []string{"notes.tmp", "curves.arrow.bak", "mine.arrow.3.tmp"}
	for _, n := range append(append([]string(nil), stale...), keep...) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Collect(dir); err != nil {
		t.Fatal(err)
	}
	for _, n := range stale {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			t.Errorf("%s left behind", n)
		}
	}
	for _, n := range keep {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s removed: %v", n, err)
		}
	}
}
