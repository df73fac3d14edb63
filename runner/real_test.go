package runner

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/fedbandit/fedbandit/outputs"
)

// TestRealSimulatorSweep runs the tiny sweep end to end on the real
// simulator with 1 worker under GOMAXPROCS=1 and 3 workers under
// GOMAXPROCS=4: curves.arrow and every curve must be byte-identical, and
// runs.arrow identical except the wall_seconds column (T14).
func TestRealSimulatorSweep(t *testing.T) {
	plan := mustPlan(t, tinyTOML)
	run := func(workers, procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		dir := t.TempDir()
		s := &Sweep{Plan: plan, Out: dir, Workers: workers, Log: quietLog()}
		if _, err := s.Execute(context.Background()); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	a, b := run(1, 1), run(3, 4)
	ca, _ := os.ReadFile(filepath.Join(a, outputs.CurvesFile))
	cb, _ := os.ReadFile(filepath.Join(b, outputs.CurvesFile))
	if len(ca) == 0 || !bytes.Equal(ca, cb) {
		t.Fatal("curves.arrow differs between 1 and 3 workers")
	}
	ra, err := outputs.ReadRuns(filepath.Join(a, outputs.RunsFile))
	if err != nil {
		t.Fatal(err)
	}
	rb, _ := outputs.ReadRuns(filepath.Join(b, outputs.RunsFile))
	for i := range ra {
		if ra[i].WallSeconds <= 0 {
			t.Errorf("run %s: wall time %v not recorded", ra[i].RunID, ra[i].WallSeconds)
		}
		ra[i].WallSeconds, rb[i].WallSeconds = 0, 0
	}
	if !reflect.DeepEqual(ra, rb) {
		t.Fatal("runs.arrow differs (beyond wall_seconds) between 1 and 3 workers")
	}
	if len(ra) != tinyRuns {
		t.Fatalf("%d runs", len(ra))
	}
	for _, r := range ra {
		if r.Status != outputs.StatusDone || r.Rounds != 100 || r.Linear == nil || len(r.Linear.SiloPseudo) != 5 || r.Syncs != 10 {
			t.Errorf("run %s: %+v", r.RunID, r)
		}
		l := r.Linear
		switch r.Algorithm {
		case "fedlinucb":
			if l.Noise != nil || r.DeliveredEps != nil || r.Certified {
				t.Errorf("fedlinucb noise %v delivered eps %v", l.Noise, r.DeliveredEps)
			}
		default:
			if l.Noise == nil || l.Noise.Sigma <= 0 || r.DeliveredEps == nil || *r.DeliveredEps <= 0 || l.Lambda <= 0 || l.BetaT <= 0 || !r.Certified {
				t.Errorf("%s eps %v: noise %v lambda %v beta %v delivered %v", r.Algorithm, r.Eps, l.Noise, l.Lambda, l.BetaT, r.DeliveredEps)
			}
		}
		sum := 0.0
		for _, x := range l.SiloPseudo {
			sum += x
		}
		if math.Abs(sum-r.PseudoRegret) > 1e-9*math.Max(1, math.Abs(sum)) {
			t.Errorf("run %s: silo totals sum to %v, group regret %v", r.RunID, sum, r.PseudoRegret)
		}
	}
}
