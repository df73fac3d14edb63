package figure

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/outputs"
)

// instanceRuns are runs on three instance classes of a MAB sweep:
//
//   - "gap=0.5": instances inst10 and inst3 (without instance hashes, so
//     told apart by their descriptions), FedLinUCB (no eps) and
//     LDP-FedLinUCB at eps 2 and 10;
//   - "gap=0.1": instance inst5 (seen first), LDP at eps 10 only;
//   - "gap=0.9": instance inst7, FedLinUCB and two algorithms the
//     registry does not know (alg9 and alg10; they do not use eps).
//
// FedLinUCB on gap=0.5 has seeds 1 and 3 on inst10 (regrets 1 and 3) and
// one run on inst3 (6): instance means 2 and 6, mean 4, SE 2 (sd
// sqrt(8) over sqrt(2)), 3 runs. A done run without a curve and a failed
// run are left out.
func instanceRuns() ([]outputs.RunRecord, []outputs.CurvePoint) {
	var runs []outputs.RunRecord
	var curves []outputs.CurvePoint
	n := 0
	add := func(alg, inst, class, hash string, seed uint64, eps float64, v float64) {
		n++
		id := "r" + string(rune('a'+n))
		runs = append(runs, outputs.RunRecord{RunID: id, GroupID: "g-" + id, Algorithm: alg, Eps: outputs.Some[float64](eps), Delta: outputs.Some[float64](0.1), Seed: seed,
			Instance: inst, InstanceName: "mab K=10 " + class + " seed=" + inst[4:] + " arms", InstanceHash: hash,
			Status: outputs.StatusDone, M: outputs.Some[int](1), T: 20, Sweep: "mab sweep"})
		for _, round := range []int64{10, 20} {
			curves = append(curves, outputs.Derive(&outputs.RunRecord{RunID: id, M: outputs.Some(1)}, outputs.Point{Round: round, Pseudo: v * float64(round)}))
		}
	}
	add("ldp", "inst5", "gap=0.1", "h5", 1, 10, 7)
	add("fedlinucb", "inst10", "gap=0.5", "", 1, 0, 1)
	add("fedlinucb", "inst10", "gap=0.5", "", 3, 0, 3)
	add("fedlinucb", "inst3", "gap=0.5", "", 1, 0, 6)
	add("ldp", "inst10", "gap=0.5", "", 1, 10, 2)
	add("ldp", "inst3", "gap=0.5", "", 1, 10, 4)
	add("ldp", "inst10", "gap=0.5", "", 1, 2, 5)
	add("ldp", "inst3", "gap=0.5", "", 1, 2, 5)
	add("fedlinucb", "inst7", "gap=0.9", "h7", 1, 0, 8)
	add("alg9", "inst7", "gap=0.9", "h7", 1, 0, 9)
	add("alg10", "inst7", "gap=0.9", "h7", 1, 0, 9)
	runs = append(runs,
		outputs.RunRecord{RunID: "nocurve", GroupID: "g-x", Algorithm: "ldp", Eps: outputs.Some[float64](2), Delta: outputs.Some[float64](0.1), Instance: "inst3",
			InstanceName: "mab K=10 gap=0.5 seed=3 arms", Status: outputs.StatusDone, M: outputs.Some[int](1), T: 20},
		outputs.RunRecord{RunID: "failed", GroupID: "g-y", Algorithm: "ldp", Eps: outputs.Some[float64](2), Delta: outputs.Some[float64](0.1), Instance: "inst3",
			InstanceName: "mab K=10 gap=0.5 seed=3 arms", Status: outputs.StatusFailed, M: outputs.Some[int](1), T: 20})
	curves = append(curves, outputs.Derive(&outputs.RunRecord{RunID: "failed", M: outputs.Some(1)}, outputs.Point{Round: 10, Pseudo: 1e6}))
	return runs, curves
}

// TestBuildOverInstances: one panel per instance class (rows, in the
// natural order of their smallest instance names: inst3 before inst5
// before inst7) and eps (columns, in numeric order: 2 before 10; a class
// without private runs has one panel in column 0; unregistered algorithms
// come last, in byte order of their names: alg10 before alg9); a
// non-private curve is
// in every eps panel of its class; panel titles name what differs between
// classes and the eps; each curve keeps its variant (its dashes) in every panel; a
// curve's mean and SE are over its instances' means over seeds.
func TestBuildOverInstances(t *testing.T) {
	runs, curves := instanceRuns()
	panels, err := BuildOverInstances(runs, curves, Pseudo)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		title    string
		row, col int
		legend   []string
		styles   []int
	}
	fed := "FedLinUCB, 2 instances, n=3"
	wants := []want{
		{"gap=0.5, eps=2", 0, 0, []string{fed, "LDP-FedLinUCB, 2 instances"}, []int{0, 0}},
		{"gap=0.5, eps=10", 0, 1, []string{fed, "LDP-FedLinUCB, 2 instances"}, []int{0, 0}},
		{"gap=0.1, eps=10", 1, 1, []string{"LDP-FedLinUCB, 1 instance"}, []int{0}},
		{"gap=0.9", 2, 0, []string{"FedLinUCB, 1 instance", "alg10, 1 instance", "alg9, 1 instance"}, []int{0, 0, 0}},
	}
	if len(panels) != len(wants) {
		var got []string
		for _, p := range panels {
			got = append(got, p.Title)
		}
		t.Fatalf("panels %q, want %d", got, len(wants))
	}
	for i, w := range wants {
		p := panels[i]
		var legends []string
		var styles []int
		for _, s := range p.Series {
			legends = append(legends, legend(s))
			styles = append(styles, s.Variant)
		}
		if p.Title != w.title || p.Row != w.row || p.Col != w.col || strings.Join(legends, "|") != strings.Join(w.legend, "|") ||
			fmt.Sprint(styles) != fmt.Sprint(w.styles) {
			t.Errorf("panel %d: %q at (%d, %d), series %q, styles %v; want %+v", i, p.Title, p.Row, p.Col, legends, styles, w)
		}
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	fedS := panels[0].Series[0]
	if fedS.N != 3 || fedS.Instances != 2 || len(fedS.Rounds) != 2 || fedS.Rounds[1] != 20 ||
		!near(fedS.Mean[0], 4) || !near(fedS.SE[0], 2) || !near(fedS.Mean[1], 4) {
		t.Errorf("FedLinUCB over instances: %+v", fedS)
	}
	// LDP at eps 2: both instances at 5, SE 0; at eps 10: 2 and 4.
	if s := panels[0].Series[1]; !near(s.Mean[0], 5) || s.SE[0] != 0 {
		t.Errorf("LDP at eps 2: %+v", s)
	}
	if s := panels[1].Series[1]; !near(s.Mean[0], 3) || !near(s.SE[0], 1) {
		t.Errorf("LDP at eps 10: %+v", s)
	}
	if s := panels[2].Series[0]; s.N != 1 || s.Instances != 1 || !near(s.Mean[1], 7) || s.SE[1] != 0 {
		t.Errorf("LDP on gap=0.1: %+v", s)
	}

	// One class: no class words in the titles; an eps written in full.
	var one []outputs.RunRecord
	for _, r := range runs {
		if r.Instance == "inst5" {
			r.Eps = outputs.Some(0.25)
			one = append(one, r)
		}
	}
	panels, err = BuildOverInstances(one, curves, Realised)
	if err != nil || len(panels) != 1 || panels[0].Title != "eps=0.25" {
		t.Errorf("one class: %+v %v", panels, err)
	}
	// Runs of one curve with other checkpoints are an error.
	bad := append(curves[:len(curves):len(curves)], outputs.Derive(&outputs.RunRecord{RunID: "rc", M: outputs.Some(1)}, outputs.Point{Round: 30, Pseudo: 1}))
	if _, err := BuildOverInstances(runs, bad, Pseudo); err == nil {
		t.Error("mismatched checkpoints accepted")
	}
	if _, err := BuildOverInstances(runs, curves, "regret"); err == nil {
		t.Error("unknown metric accepted")
	}
}

// TestClassTitles: a class is titled by its words not common to all
// classes.
func TestClassTitles(t *testing.T) {
	got := classTitles([]string{"mab K=10 gap=0.5", "mab K=10 gap=0.1", "mab K=20 gap=0.1"})
	want := map[string]string{"mab K=10 gap=0.5": "K=10 gap=0.5", "mab K=10 gap=0.1": "K=10 gap=0.1", "mab K=20 gap=0.1": "K=20 gap=0.1"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%q: %q, want %q", k, got[k], v)
		}
	}
	if got := classTitles([]string{"mab K=10"}); got["mab K=10"] != "" {
		t.Errorf("one class titled %q", got["mab K=10"])
	}
}

// TestBuildOverInstancesOrder: the curves of one algorithm in a panel in
// the natural order of their labels (M=30 before M=100); classes whose
// smallest instance names tie (runs without instance names) in order of
// their descriptions.
func TestBuildOverInstancesOrder(t *testing.T) {
	var runs []outputs.RunRecord
	var curves []outputs.CurvePoint
	for i, r := range []outputs.RunRecord{
		{Algorithm: "ldp", M: outputs.Some[int](100), InstanceName: "mab gap=0.5 seed=1"},
		{Algorithm: "ldp", M: outputs.Some[int](30), InstanceName: "mab gap=0.5 seed=1"},
		{Algorithm: "ldp", M: outputs.Some[int](30), InstanceName: "mab gap=0.1 seed=1"}} {
		r.RunID, r.GroupID, r.Status, r.Eps, r.Delta, r.T = fmt.Sprint("r", i), fmt.Sprint("g", i), outputs.StatusDone, outputs.Some(1.0), outputs.Some(0.1), 10
		runs = append(runs, r)
		curves = append(curves, outputs.Derive(&outputs.RunRecord{RunID: r.RunID, M: r.M}, outputs.Point{Round: 10, Pseudo: 1}))
	}
	panels, err := BuildOverInstances(runs, curves, Pseudo)
	if err != nil {
		t.Fatal(err)
	}
	if len(panels) != 2 || panels[0].Title != "gap=0.1, eps=1" || panels[1].Title != "gap=0.5, eps=1" || len(panels[1].Series) != 2 {
		t.Fatalf("panels %+v", panels)
	}
	if a, b := panels[1].Series[0], panels[1].Series[1]; a.Label != "LDP-FedLinUCB (M=30)" || b.Label != "LDP-FedLinUCB (M=100)" || a.Variant != 0 || b.Variant != 1 {
		t.Errorf("curves %q (variant %d), %q (variant %d)", a.Label, a.Variant, b.Label, b.Variant)
	}
}
