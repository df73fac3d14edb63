package outputs

import (
	"fmt"
	"path/filepath"
	"testing"
)

// benchCurves is a curves.arrow of 1,000 runs x 200 checkpoints.
func benchCurves() []CurvePoint {
	var pts []CurvePoint
	for r := 0; r < 1000; r++ {
		id := fmt.Sprintf("%064x", r)
		for t := 1; t <= 200; t++ {
			pts = append(pts, Derive(id, 10, Point{int64(t * 50), float64(t) * 1.5, float64(t) * 1.25, int64(t)}))
		}
	}
	return pts
}

// BenchmarkEncodeCurves and BenchmarkReadCurves time the collect's
// curves.arrow (200,000 rows, 4 record batches) through the codec table.
func BenchmarkEncodeCurves(b *testing.B) {
	pts := benchCurves()
	b.ResetTimer()
	for b.Loop() {
		if _, err := EncodeCurves(pts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadCurves(b *testing.B) {
	p := filepath.Join(b.TempDir(), CurvesFile)
	if err := WriteCurves(p, benchCurves()); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := ReadCurves(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeRuns times runs.arrow of 10,000 runs.
func BenchmarkEncodeRuns(b *testing.B) {
	recs := make([]RunRecord, 10000)
	for i := range recs {
		recs[i] = sampleRecord(fmt.Sprintf("%064x", i), uint64(i))
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := EncodeRuns(recs); err != nil {
			b.Fatal(err)
		}
	}
}
