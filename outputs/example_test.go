package outputs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fedbandit/fedbandit/outputs"
)

// Publish two runs, collect the tables and read them back.
func Example() {
	dir, _ := os.MkdirTemp("", "outputs")
	defer os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, outputs.RunsDir), 0o755)
	for i, id := range []string{strings.Repeat("b", 64), strings.Repeat("a", 64)} {
		rec := outputs.RunRecord{
			RunID: id, Status: outputs.StatusDone, FormatVersion: outputs.FormatVersion, Group: "fedlinucb", GroupID: "g",
			Instance: "syn", InstanceKind: "synthetic", InstanceHash: "h", InstanceName: "synthetic d=2",
			Family: outputs.FamilyLinear, Algorithm: "fedlinucb", Trust: "none", Params: map[string]float64{},
			M: outputs.Some(2), T: 20, B: outputs.Some(10), Every: 10, Seed: uint64(i + 1), Rounds: 20, PseudoRegret: 4,
			Linear: &outputs.LinearSettings{SiloPseudo: []float64{1, 3}, SiloRealised: []float64{1, 2}},
		}
		pts := []outputs.Point{{Round: 10, Pseudo: 3, Realised: 2, Syncs: 1}, {Round: 20, Pseudo: 4, Realised: 3, Syncs: 2}}
		if err := outputs.WriteRun(outputs.RunPath(dir, id), &rec, pts); err != nil {
			fmt.Println(err)
			return
		}
	}
	sum, err := outputs.Collect(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum.Runs, "runs,", sum.CurveRows, "curve rows")
	curves, _ := outputs.ReadCurves(sum.CurvesPath)
	c := curves[1]
	fmt.Printf("run %.4s... round %d: R/t = %g, R/(tM) = %g\n", c.RunID, c.Round, c.TimeAvgPseudo, *c.PerSiloPseudo)
	// Output:
	// 2 runs, 4 curve rows
	// run aaaa... round 20: R/t = 0.2, R/(tM) = 0.1
}
