package outputs

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchCurves is a curves.arrow of 1,000 runs x 200 checkpoints.
func benchCurves() []CurvePoint {
	var pts []CurvePoint
	for r := 0; r < 1000; r++ {
		rec := RunRecord{RunID: fmt.Sprintf("%064x", r), GroupID: fmt.Sprintf("%016x", r/10), M: Some(10)}
		for t := 1; t <= 200; t++ {
			pts = append(pts, Derive(&rec, Point{Round: int64(t * 50), Pseudo: float64(t) * 1.5, Realised: float64(t) * 1.25, Syncs: int64(t)}))
		}
	}
	return pts
}

// BenchmarkReadCurves times reading curves.arrow (200,000 rows).
func BenchmarkReadCurves(b *testing.B) {
	dir := b.TempDir()
	pts := benchCurves()
	if err := WriteTables(dir, []RunRecord{sampleRecord(pts[0].RunID, 1)}, pts); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := ReadCurves(filepath.Join(dir, CurvesFile)); err != nil {
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

// BenchmarkCollect collects FEDBANDIT_BENCH_RUNS runs (default 1,000) of
// 1,000 checkpoints each, written once into a temporary directory
// (GenerateRuns), and reports the peak heap in use (B/peak-heap); run
// with -benchtime=1x. At 30,000 runs: outputs/README.md, "Collect at scale".
func BenchmarkCollect(b *testing.B) {
	runs := 1000
	if v := os.Getenv("FEDBANDIT_BENCH_RUNS"); v != "" {
		fmt.Sscan(v, &runs)
	}
	dir := b.TempDir()
	if err := GenerateRuns(dir, runs, 1000); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		peak := watchHeap()
		if _, err := Collect(dir); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(peak()), "B/peak-heap")
	}
	b.ReportMetric(float64(CollectMemory(runs, 1000)), "B/estimate")
}
