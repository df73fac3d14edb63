package outputs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// TestCurveBatchesHoldConfigurations: curves.arrow's record batches hold
// at most 65,536 rows and end at a configuration's end unless one
// configuration alone is larger (then at a run's end); tables.json lists each batch's
// configurations and rows, so that a reader loads one configuration from
// its batches alone; every row comes back exactly, in order. A batch
// bound off by one, or a batch cut inside a configuration that fits, fails
// here. The sizes: configurations of 30,000 rows (two fit a batch, not
// three), then one of 140,000 rows (split at its runs' ends into batches
// of 65 runs).
func TestCurveBatchesHoldConfigurations(t *testing.T) {
	var rows []CurvePoint
	var recs []RunRecord
	add := func(group string, runs, points int) {
		for r := 0; r < runs; r++ {
			rec := RunRecord{RunID: fmt.Sprintf("%s%060d", group, r), GroupID: group, M: Some(3)}
			for p := 1; p <= points; p++ {
				rows = append(rows, Derive(&rec, Point{Round: int64(p), Pseudo: float64(len(rows)) / 7, Realised: 1.5, Syncs: int64(p % 13)}))
			}
			recs = append(recs, rec)
		}
	}
	add("g001", 30, 1000)
	add("g002", 30, 1000)
	add("g003", 30, 1000)
	add("g004", 140, 1000)
	dir := t.TempDir()
	full := make([]RunRecord, len(recs))
	for i, r := range recs {
		full[i] = sampleRecord(r.RunID, uint64(i))
		full[i].GroupID = r.GroupID
	}
	if err := WriteTables(dir, full, rows); err != nil {
		t.Fatal(err)
	}
	_, got, err := ReadTables(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rows) {
		t.Fatal("curves.arrow rows (group_id from runs.arrow) differ from those written")
	}
	var tj tablesRecord
	if err := json.Unmarshal(mustRead(t, filepath.Join(dir, TablesFile)), &tj); err != nil {
		t.Fatal(err)
	}
	want := []CurveBatch{{"g001", "g002", 60000}, {"g003", "g003", 30000}, {"g004", "g004", 65000}, {"g004", "g004", 65000}, {"g004", "g004", 10000}}
	if !reflect.DeepEqual(tj.CurveBatches, want) {
		t.Errorf("batches %+v\nwant %+v", tj.CurveBatches, want)
	}
	r, err := ipc.NewFileReader(bytes.NewReader(mustRead(t, filepath.Join(dir, CurvesFile))))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.NumRecords() != len(want) {
		t.Fatalf("%d record batches, tables.json lists %d", r.NumRecords(), len(want))
	}
	for i := range r.NumRecords() {
		b, err := r.RecordBatch(i)
		if err != nil {
			t.Fatal(err)
		}
		if int(b.NumRows()) != want[i].Rows {
			t.Errorf("batch %d has %d rows, tables.json %d", i, b.NumRows(), want[i].Rows)
		}
	}
	// No rows: one empty batch.
	empty := t.TempDir()
	if err := WriteTables(empty, full[:1], nil); err != nil {
		t.Fatal(err)
	}
	if c, err := ReadCurves(filepath.Join(empty, CurvesFile)); err != nil || len(c) != 0 {
		t.Errorf("empty curves: %v %v", c, err)
	}
	os.RemoveAll(empty)
}

// TestRunsManyBatches: a runs.arrow whose rows are split over several
// record batches (as another Arrow writer may lay them out) reads back
// the same records, in order.
func TestRunsManyBatches(t *testing.T) {
	recs := make([]RunRecord, 10)
	for i := range recs {
		recs[i] = sampleRecord(fmt.Sprintf("%064x", i), uint64(i))
		recs[i].M = Some(i + 1)
		if i%2 == 1 {
			recs[i] = mabRecord(recs[i].RunID, uint64(i))
		}
	}
	data, err := EncodeRuns(recs)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ipc.NewFileReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	one, err := r.RecordBatch(0)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(r.Schema()))
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range [][2]int64{{0, 3}, {3, 4}, {4, 10}} {
		s := one.NewSlice(cut[0], cut[1])
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
		s.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	path := filepath.Join(t.TempDir(), "runs.arrow")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRuns(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, recs) {
		t.Errorf("read %+v\nwrote %+v", got, recs)
	}
}

// TestRunsRecordBatch: the record batch another writer converts holds
// what runs.arrow holds: the same schema, and the same records once
// written and read back.
func TestRunsRecordBatch(t *testing.T) {
	recs := []RunRecord{sampleRecord(fmt.Sprintf("%064x", 1), 1), mabRecord(fmt.Sprintf("%064x", 2), 2)}
	b, err := RunsRecordBatch(recs)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	if !b.Schema().Equal(RunsSchema(recs)) || b.NumRows() != 2 {
		t.Fatalf("schema %v, %d rows", b.Schema(), b.NumRows())
	}
	var buf bytes.Buffer
	w, _ := ipc.NewFileWriter(&buf, ipc.WithSchema(b.Schema()))
	if err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	w.Close()
	path := filepath.Join(t.TempDir(), RunsFile)
	os.WriteFile(path, buf.Bytes(), 0o644)
	got, err := ReadRuns(path)
	if err != nil || !reflect.DeepEqual(got, recs) {
		t.Errorf("read back %v:\n%+v\nwant\n%+v", err, got, recs)
	}
}
