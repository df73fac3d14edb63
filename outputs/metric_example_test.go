package outputs_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/outputs/figure"
)

// twoArms is a stand-in for a mab run: it pulls arm (t mod 3 == 0) of two
// arms with means 1 and 0.5, and counts the pulls of the best arm, the
// curve metric of extension-trial task 4 (best-arm fraction), reported
// through core.Metered.
type twoArms struct{ best int }

func (p *twoArms) Round(t int) (float64, float64) {
	if t%3 == 0 {
		return 0.5, 0.5
	}
	p.best++
	return 0, 0
}

func (p *twoArms) Counters() (int, int64) { return 0, 0 }

func (p *twoArms) Metrics(t int) map[string]float64 {
	return map[string]float64{"best_arm_fraction": float64(p.best) / float64(t)}
}

// TestNewCurveMetric is docs/extending.md's worked example "A curve
// metric": a family reports a metric (core.Metered) and declares it in
// its own package (a core.Metric of its list, here bestArm), which the
// registry registers as the family's at start-up (RegisterMetrics, played
// here as the registry does). With no other change the metric is stored
// in the per-run files and curves.arrow (null for the runs that do not
// produce it, and in a curves.arrow written before it existed), `run
// plot`/`run table` find it by name, it is produced by the family that
// registered it alone, and asking for it on runs that lack it is an
// error naming that family. The layout does not change.
func TestNewCurveMetric(t *testing.T) {
	outputs.FreshMetrics(t) // the table before the registry registers the families
	bestArm := core.Metric{Name: "best-arm", Column: "best_arm_fraction", Unit: "pulls/round",
		Label: "Fraction of pulls of a best arm", Head: "best-arm pulls/t", File: "best-arm",
		Footnote: "fraction of the pulls that chose an arm of the largest mean",
		Doc:      "Pulls of an arm of the largest mean up to t, divided by t.",
		Since:    outputs.FormatVersion}

	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, outputs.RunsDir), 0o755)
	// Before the metric: a curves.arrow without its column.
	write := func(id, family string, withMetric bool) {
		t.Helper()
		rec := outputs.RunRecord{RunID: id, Status: outputs.StatusDone, FormatVersion: outputs.FormatVersion, Family: family, Algorithm: "se",
			Trust: "none", Params: map[string]float64{}, GroupID: family, Group: family, T: 30, Every: 10, Rounds: 30,
			Instance: "two", InstanceKind: "mab", InstanceHash: "h", InstanceName: "two arms"}
		var p core.Problem = &twoArms{}
		res, err := core.Drive(context.Background(), p, 30, 10)
		if err != nil {
			t.Fatal(err)
		}
		pts := make([]outputs.Point, len(res.Curve))
		for i, c := range res.Curve {
			pts[i] = outputs.Point{Round: int64(c.Round), Pseudo: c.Pseudo, Realised: c.Realised}
			if withMetric {
				pts[i].Metrics = map[string]float64{"best_arm_fraction": res.Metrics["best_arm_fraction"][i]}
			}
		}
		rec.PseudoRegret, rec.RealisedRegret = res.Pseudo, res.Realised
		if err := outputs.WriteRun(outputs.RunPath(dir, id), &rec, pts); err != nil {
			t.Fatal(err)
		}
	}
	write(strings.Repeat("a", 64), "linear", false)
	if _, err := outputs.Collect(dir); err != nil {
		t.Fatal(err)
	}

	outputs.RegisterMetrics("mab", []core.Metric{bestArm}) // the family's list, as the registry registers it
	runs, curves, err := outputs.ReadTables(dir)
	if err != nil {
		t.Fatalf("a curves.arrow from before the metric: %v", err)
	}
	m, err := outputs.LookupMetric("best-arm")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Value(&curves[0]); ok {
		t.Error("a run from before the metric has a value")
	}
	if _, err := figure.Build(runs, curves, "best-arm"); err == nil || !strings.Contains(err.Error(), "1 of a family that does not produce it (it is produced by mab)") {
		t.Errorf("the metric on runs without it: %v", err)
	}

	write(strings.Repeat("b", 64), "mab", true)
	sum, err := outputs.Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	runs, curves, err = outputs.ReadTables(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]float64{10: 7.0 / 10, 20: 14.0 / 20, 30: 20.0 / 30}
	for _, c := range curves {
		v, ok := m.Value(&c)
		switch {
		case c.RunID[0] == 'a' && ok:
			t.Errorf("linear run: best-arm fraction %v", v)
		case c.RunID[0] == 'b' && (!ok || v != want[c.Round]):
			t.Errorf("mab run at t = %d: best-arm fraction %v (%v), want %v", c.Round, v, ok, want[c.Round])
		}
	}
	series, err := figure.Build(runs, curves, "best-arm")
	if err != nil || len(series) != 1 || series[0].Mean[2] != 20.0/30 {
		t.Errorf("figure series of the metric: %v %+v", err, series)
	}
	if sum.CurveRows != 6 {
		t.Errorf("%d curve rows", sum.CurveRows)
	}
}
