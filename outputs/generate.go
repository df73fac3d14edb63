package outputs

import (
	"fmt"
	"os"
	"path/filepath"
)

// GenerateRuns writes runs synthetic per-run files of points checkpoints
// each into dir/runs: a results directory of a given size for measuring
// Collect (BenchmarkCollect; outputs/README.md, "Collect at scale"). The
// runs are mab-like (no silos), ten seeds per configuration, their
// values a deterministic function of the run's index.
func GenerateRuns(dir string, runs, points int) error {
	if err := os.MkdirAll(filepath.Join(dir, RunsDir), 0o755); err != nil {
		return err
	}
	pts := make([]Point, points)
	for i := 0; i < runs; i++ {
		rec := RunRecord{
			RunID: fmt.Sprintf("%064x", i*2654435761%(1<<40)), Status: StatusDone, FormatVersion: FormatVersion, Sweep: "generated",
			Group: fmt.Sprintf("se T=%d config=%d", points*100, i/10), GroupID: fmt.Sprintf("%016x", i/10),
			Instance: "easy", InstanceKind: "mab", InstanceHash: "generated", InstanceName: "mab K=10 generated",
			Arms: Some(10), InstanceSeed: Some(uint64(i % 20)),
			Family: "mab", Algorithm: "se", Trust: "none", Params: map[string]float64{"conf": 0.1, "crs": 1, "growth": 4},
			T: points * 100, Every: 100, Seed: uint64(i % 10), Rounds: points * 100,
		}
		for k := range pts {
			t := int64(k+1) * 100
			pts[k] = Point{Round: t, Pseudo: float64(t) * 0.01 * float64(i%7+1), Realised: float64(t) * 0.011, Syncs: int64(k / 10)}
		}
		rec.PseudoRegret, rec.RealisedRegret, rec.Syncs = pts[points-1].Pseudo, pts[points-1].Realised, pts[points-1].Syncs
		if err := WriteRun(RunPath(dir, rec.RunID), &rec, pts); err != nil {
			return err
		}
	}
	return nil
}
