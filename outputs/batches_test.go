package outputs_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/fedbandit/fedbandit/outputs"
)

// TestCurvesManyBatches round-trips 3 x 65,536 + 17 curve rows: curves.arrow
// splits them into record batches of at most 65,536 rows, and every row
// comes back exactly, in order, whatever batch it sits in. A batch bound
// off by one (one row dropped or repeated per batch) fails here; the
// batches are checked directly too (65,536 rows each but the last).
func TestCurvesManyBatches(t *testing.T) {
	const n = 3*65536 + 17
	pts := make([]outputs.CurvePoint, n)
	for i := range pts {
		id := fmt.Sprintf("%064x", i/1000)
		pts[i] = outputs.Derive(id, 3, outputs.Point{Round: int64(i%1000 + 1), Pseudo: float64(i) / 7, Realised: float64(i) * 1.5, Syncs: int64(i % 13)})
	}
	path := filepath.Join(t.TempDir(), "curves.arrow")
	if err := outputs.WriteCurves(path, pts); err != nil {
		t.Fatal(err)
	}
	got, err := outputs.ReadCurves(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("read %d rows, wrote %d", len(got), n)
	}
	for i := range pts {
		if got[i] != pts[i] {
			t.Fatalf("row %d: read %+v, wrote %+v", i, got[i], pts[i])
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ipc.NewFileReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.NumRecords() != 4 {
		t.Fatalf("%d record batches, want 4", r.NumRecords())
	}
	for i := range r.NumRecords() {
		b, err := r.RecordBatch(i)
		if err != nil {
			t.Fatal(err)
		}
		want := int64(65536)
		if i == 3 {
			want = 17
		}
		if b.NumRows() != want {
			t.Errorf("batch %d has %d rows, want %d", i, b.NumRows(), want)
		}
	}
}

// TestRunsManyBatches: a runs.arrow whose rows are split over several
// record batches (as another Arrow writer may lay them out) reads back
// the same records, in order.
func TestRunsManyBatches(t *testing.T) {
	recs := make([]outputs.RunRecord, 10)
	for i := range recs {
		recs[i] = outputs.RunRecord{RunID: fmt.Sprintf("%064x", i), Status: outputs.StatusDone, FormatVersion: outputs.FormatVersion,
			Algorithm: "ldp", M: i + 1, T: 100, B: 10, Seed: uint64(i), Eps: float64(i) / 3,
			SiloPseudo: make([]float64, i%3), SiloRealised: make([]float64, i%3)}
		for j := range recs[i].SiloPseudo {
			recs[i].SiloPseudo[j] = float64(i*10 + j)
			recs[i].SiloRealised[j] = -float64(i*10 + j)
		}
	}
	data, err := outputs.EncodeRuns(recs)
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
	got, err := outputs.ReadRuns(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(recs) {
		t.Fatalf("read %d records, wrote %d", len(got), len(recs))
	}
	for i := range recs {
		if !reflect.DeepEqual(normalise(got[i]), normalise(recs[i])) {
			t.Errorf("record %d: read %+v\nwrote %+v", i, got[i], recs[i])
		}
	}
}

// normalise makes empty and nil slices compare equal.
func normalise(r outputs.RunRecord) outputs.RunRecord {
	if len(r.SiloPseudo) == 0 {
		r.SiloPseudo = nil
	}
	if len(r.SiloRealised) == 0 {
		r.SiloRealised = nil
	}
	return r
}
