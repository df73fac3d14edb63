package outputs

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// The tests in this file were written against the mutants gremlins left
// alive in the tables (docs/testing.md): each names the fault it kills.

// TestValidateParamsFromLayout2: a record of layout 2 or later must carry
// its params (an empty map for an algorithm without any); only a layout-1
// record may lack them. Kills `FormatVersion >= 2` -> `> 2` in validate,
// which would let a current-layout file without params through.
func TestValidateParamsFromLayout2(t *testing.T) {
	for _, tc := range []struct {
		layout int
		params map[string]float64
		ok     bool
	}{
		{1, nil, true},
		{2, nil, false},
		{2, map[string]float64{}, true},
		{FormatVersion, nil, false},
	} {
		r := sampleRecord("ab", 1)
		r.FormatVersion, r.Params = tc.layout, tc.params
		r.Rounds = int(samplePoints[len(samplePoints)-1].Round)
		err := r.validate(samplePoints)
		if (err == nil) != tc.ok {
			t.Errorf("layout %d, params %v: validate = %v, want ok %v", tc.layout, tc.params, err, tc.ok)
		}
	}
}

// TestBatchCountAtExactMultiple: rows that fill their batches exactly make
// exactly that many batches (no trailing empty one), and no rows make one
// empty batch. Kills `lo < len(rows)` -> `lo <= len(rows)` in encodeRows.
func TestBatchCountAtExactMultiple(t *testing.T) {
	pts := []Point{{1, 1, 1, 0}, {2, 2, 2, 0}, {3, 3, 3, 1}, {4, 4, 4, 1}}
	for _, tc := range []struct {
		rows, batchRows, batches int
	}{
		{4, 2, 2}, {4, 4, 1}, {3, 2, 2}, {4, 1, 4}, {0, 2, 1},
	} {
		data, err := encodeRows(pointCols, pts[:tc.rows], layoutMetadata(FormatVersion), tc.batchRows)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ipc.NewFileReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.NumRecords(); got != tc.batches {
			t.Errorf("%d rows in batches of %d: %d record batches, want %d", tc.rows, tc.batchRows, got, tc.batches)
		}
		r.Close()
	}
}

// TestParamsCodecFitsStrictOrder: the params column is a struct of float64
// fields in strictly increasing key order; a struct with a repeated key (or
// out of order, or not float64) is not the params layout. Kills
// `Name >= f.Name` -> `Name > f.Name` in paramsCodec.fits.
func TestParamsCodecFitsStrictOrder(t *testing.T) {
	f := func(name string, typ arrow.DataType) arrow.Field {
		return arrow.Field{Name: name, Type: typ, Nullable: true}
	}
	for _, tc := range []struct {
		name string
		typ  arrow.DataType
		fits bool
	}{
		{"sorted", arrow.StructOf(f("a", tFloat), f("b", tFloat)), true},
		{"empty", arrow.StructOf(), true},
		{"repeated key", arrow.StructOf(f("a", tFloat), f("a", tFloat)), false},
		{"unsorted", arrow.StructOf(f("b", tFloat), f("a", tFloat)), false},
		{"not float64", arrow.StructOf(f("a", arrow.PrimitiveTypes.Int64)), false},
		{"not a struct", tFloat, false},
	} {
		if got := paramsCodec.fits(tc.typ); got != tc.fits {
			t.Errorf("%s: fits = %v, want %v", tc.name, got, tc.fits)
		}
	}
}
