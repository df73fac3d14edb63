package figure

import (
	"image/png"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/outputs"
)

// runsAndCurves returns a FedLinUCB group of one run and an LDP group
// (eps = 1) of three seeds, whose time-average regrets at round 10 are 1,
// 2 and 6 (mean 3, sample sd sqrt(7), SE sqrt(7/3)).
func runsAndCurves() ([]outputs.RunRecord, []outputs.CurvePoint) {
	var runs []outputs.RunRecord
	var curves []outputs.CurvePoint
	add := func(id, gid, alg string, eps float64, vals ...float64) {
		runs = append(runs, outputs.RunRecord{RunID: id, GroupID: gid, Algorithm: alg, Eps: outputs.Some[float64](eps), Status: outputs.StatusDone, M: outputs.Some[int](2), T: 20, Sweep: "test sweep"})
		for i, v := range vals {
			round := int64(10 * (i + 1))
			curves = append(curves, outputs.Derive(&outputs.RunRecord{RunID: id, M: outputs.Some(2)}, outputs.Point{Round: round, Pseudo: v * float64(round), Realised: 2 * v * float64(round)}))
		}
	}
	add("r1", "g-ldp", "ldp", 1, 1, 0.5)
	add("r2", "g-ldp", "ldp", 1, 2, 0.5)
	add("r3", "g-ldp", "ldp", 1, 6, 0.5)
	add("r4", "g-fed", "fedlinucb", 0, 0.25, 0.125)
	runs = append(runs, outputs.RunRecord{RunID: "r5", GroupID: "g-ldp", Algorithm: "ldp", Eps: outputs.Some[float64](1), Status: outputs.StatusFailed})
	return runs, curves
}

func TestBuild(t *testing.T) {
	runs, curves := runsAndCurves()
	series, err := Build(runs, curves, Pseudo)
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 2 || series[0].Label != "FedLinUCB" || series[1].Label != "LDP-FedLinUCB" {
		t.Fatalf("series %+v", series)
	}
	ldp := series[1]
	if ldp.N != 3 || ldp.Rounds[0] != 10 || ldp.Rounds[1] != 20 {
		t.Fatalf("ldp %+v", ldp)
	}
	if math.Abs(ldp.Mean[0]-3) > 1e-15 || math.Abs(ldp.SE[0]-math.Sqrt(7.0/3)) > 1e-12 || ldp.SE[1] != 0 {
		t.Errorf("mean %v se %v", ldp.Mean, ldp.SE)
	}
	if series[0].SE[0] != 0 || series[0].Mean[1] != 0.125 {
		t.Errorf("single run %+v", series[0])
	}
	re, _ := Build(runs, curves, Realised)
	if math.Abs(re[1].Mean[0]-6) > 1e-12 {
		t.Errorf("realised mean %v", re[1].Mean)
	}
	if _, err := Build(runs, curves, "regret"); err == nil {
		t.Error("unknown metric accepted")
	}
	// A run of a group with other checkpoints is an error.
	bad := append(curves[:len(curves):len(curves)], outputs.Derive(&outputs.RunRecord{RunID: "r2", M: outputs.Some(2)}, outputs.Point{Round: 30, Pseudo: 1}))
	if _, err := Build(runs, bad, Pseudo); err == nil {
		t.Error("mismatched checkpoints accepted")
	}
}

func TestLabels(t *testing.T) {
	runs := []outputs.RunRecord{
		{GroupID: "a", Algorithm: "fedlinucb", M: outputs.Some[int](10)},
		{GroupID: "b", Algorithm: "ldp", Eps: outputs.Some[float64](0.2), Delta: outputs.Some[float64](0.1), M: outputs.Some[int](10)},
		{GroupID: "c", Algorithm: "ldp", Eps: outputs.Some[float64](1), Delta: outputs.Some[float64](0.1), M: outputs.Some[int](10)},
		{GroupID: "d", Algorithm: "sdp-amp", Eps: outputs.Some[float64](1), Delta: outputs.Some[float64](0.1), M: outputs.Some[int](10)},
		{GroupID: "e", Algorithm: "sdp-amp", Eps: outputs.Some[float64](1), Delta: outputs.Some[float64](0.1), M: outputs.Some[int](10), Linear: &outputs.LinearSettings{R: 2}}, // differs in a field not shown
	}
	l := Labels(runs)
	want := map[string]string{"a": "FedLinUCB", "b": "LDP-FedLinUCB (eps=0.2)", "c": "LDP-FedLinUCB (eps=1)"}
	for k, v := range want {
		if l[k] != v {
			t.Errorf("%s: %q, want %q", k, l[k], v)
		}
	}
	if l["d"] == l["e"] || !strings.HasPrefix(l["d"], "SDP-FedLinUCB (eps=1) [") {
		t.Errorf("indistinguishable groups: %q %q", l["d"], l["e"])
	}
	// A key an algorithm ignores neither varies nor shows: the random
	// policy has no learner, so its (default) preset is not a difference.
	mixed := []outputs.RunRecord{
		{GroupID: "r", Algorithm: "random", Linear: &outputs.LinearSettings{Preset: "exact"}},
		{GroupID: "f", Algorithm: "fedlinucb", Linear: &outputs.LinearSettings{Preset: "reference-code"}},
		{GroupID: "p", Algorithm: "ldp", Eps: outputs.Some[float64](1), Delta: outputs.Some[float64](0.1), Linear: &outputs.LinearSettings{Preset: "reference-code"}}}
	l = Labels(mixed)
	if l["r"] != "Uniform random" || l["f"] != "FedLinUCB" || l["p"] != "LDP-FedLinUCB" {
		t.Errorf("labels with an ignored key: %q", l)
	}
}

func TestSaveDir(t *testing.T) {
	runs, curves := runsAndCurves()
	dir := t.TempDir()
	if err := writeTables(dir, runs, curves); err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{}, {Metric: Realised, LogX: true, LogY: true}} {
		paths, err := SaveDir(dir, o)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(paths[0])
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil || img.Bounds().Dx() != 945 {
			t.Errorf("%s: %v %v", paths[0], err, img.Bounds())
		}
		svg, _ := os.ReadFile(paths[1])
		if !strings.Contains(string(svg), "<svg") || !strings.Contains(string(svg), "LDP-FedLinUCB") {
			t.Errorf("%s is not the figure", paths[1])
		}
	}
}

func TestNaturalCompare(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int // sign
	}{
		{"LDP (M=30)", "LDP (M=100)", -1}, {"LDP (M=1000)", "LDP (M=300)", 1}, {"eps=0.2", "eps=1", -1},
		{"a", "a", 0}, {"a", "ab", -1}, {"x=007", "x=7", 0}, {"B", "A", 1}, {"A", "B", -1},
		// A digit sorts before a letter (byte order); 9 is a digit; a run
		// of equal numbers is followed by the rest.
		{"x", "1", 1}, {"1", "x", -1}, {"M=9", "M=10", -1}, {"M=7a", "M=7b", -1}, {"M=0", "M=00", 0},
		// After a decimal point, the digits of a fraction: 0.0001 < 0.001
		// < 0.01 < 0.25 < 0.5 = 0.50; a dot after a letter is not one.
		{"eps=0.001", "eps=0.0001", 1}, {"delta=0.01", "delta=0.001", 1}, {"0.25", "0.5", -1}, {"0.5", "0.50", 0},
		{"1.10", "1.9", -1}, {"v.10", "v.9", 1},
	} {
		got := naturalCompare(c.a, c.b)
		if (got < 0) != (c.want < 0) || (got > 0) != (c.want > 0) {
			t.Errorf("naturalCompare(%q, %q) = %d, want sign %d", c.a, c.b, got, c.want)
		}
	}
}

// TestSaveDirOverInstances: the instance figure of runs without instance
// descriptions is one panel under the sweep's title; an unknown
// aggregation and a grid larger than MaxSide are errors.
func TestSaveDirOverInstances(t *testing.T) {
	runs, curves := runsAndCurves()
	dir := t.TempDir()
	if err := writeTables(dir, runs, curves); err != nil {
		t.Fatal(err)
	}
	paths, err := SaveDir(dir, Options{Over: OverInstance})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(paths[0], "regret-instances.png") {
		t.Errorf("paths %v", paths)
	}
	svg, _ := os.ReadFile(paths[1])
	if !strings.Contains(string(svg), "test sweep") || !strings.Contains(string(svg), "LDP-FedLinUCB, 1 instance, n=3") {
		t.Errorf("%s is not the instance figure", paths[1])
	}
	if _, err := SaveDir(dir, Options{Over: "silo"}); err == nil || !strings.Contains(err.Error(), `"silo"`) {
		t.Errorf("unknown aggregation: %v", err)
	}
	if _, err := SaveDir(dir, Options{Over: OverInstance, Width: MaxSide + 1}); err == nil {
		t.Error("a figure wider than MaxSide accepted")
	}
}

// TestBuildOrder: series in the registry's order of their algorithms
// (super-agent before random, though not alphabetically), unregistered
// algorithms last in byte order of their names (alg10 before alg9), one
// algorithm's series in the natural order of their labels (eps=2 before
// eps=10), and equal labels by group id; an algorithm's variants (dashes)
// follow that order. A done
// run without a curve is left out.
func TestBuildOrder(t *testing.T) {
	var runs []outputs.RunRecord
	var curves []outputs.CurvePoint
	for _, r := range []outputs.RunRecord{
		{GroupID: "alg9", Algorithm: "alg9"},
		{GroupID: "random", Algorithm: "random"},
		{GroupID: "super", Algorithm: "super-agent", Eps: outputs.Some[float64](1), Delta: outputs.Some[float64](0.1)},
		{GroupID: "collide-2x", Algorithm: "sdp-amp", Eps: outputs.Some[float64](1), Delta: outputs.Some[float64](0.1), Linear: &outputs.LinearSettings{R: 2}},
		{GroupID: "ldp10", Algorithm: "ldp", Eps: outputs.Some[float64](10), Delta: outputs.Some[float64](0.1)},
		{GroupID: "alg10", Algorithm: "alg10"},
		{GroupID: "collide-1x", Algorithm: "sdp-amp", Eps: outputs.Some[float64](1), Delta: outputs.Some[float64](0.1)},
		{GroupID: "ldp2", Algorithm: "ldp", Eps: outputs.Some[float64](2), Delta: outputs.Some[float64](0.1)}} {
		r.RunID, r.Status, r.M, r.T = "run-"+r.GroupID, outputs.StatusDone, outputs.Some(1), 10
		runs = append(runs, r)
		curves = append(curves, outputs.Derive(&outputs.RunRecord{RunID: r.RunID, M: outputs.Some(1)}, outputs.Point{Round: 10, Pseudo: 1}))
	}
	// Done, but no curve (yet): no series, and no panic.
	runs = append(runs, outputs.RunRecord{RunID: "run-none", GroupID: "ldp2", Algorithm: "ldp", Eps: outputs.Some[float64](2), Delta: outputs.Some[float64](0.1), Status: outputs.StatusDone, M: outputs.Some[int](1), T: 10})
	series, err := Build(runs, curves, Pseudo)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ldp2", "ldp10", "collide-1x", "collide-2x", "super", "random", "alg10", "alg9"}
	variants := []int{0, 1, 0, 0, 0, 0, 0, 0}
	var got []string
	for i, s := range series {
		got = append(got, s.GroupID)
		if s.Variant != variants[i] || s.N != 1 || s.Algorithm != runs[slices.IndexFunc(runs, func(r outputs.RunRecord) bool { return r.GroupID == s.GroupID })].Algorithm {
			t.Errorf("%s: variant %d, n=%d, algorithm %q, want %d, 1", s.GroupID, s.Variant, s.N, s.Algorithm, variants[i])
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("order %q, want %q", got, want)
	}
	if series[2].Label != series[3].Label {
		t.Errorf("labels %q and %q: not the tie the test needs", series[2].Label, series[3].Label)
	}
}

// TestMeanSE: the mean and the standard error of the mean, sample sd over
// sqrt(n), from two values on; 0 for one.
func TestMeanSE(t *testing.T) {
	for _, c := range []struct {
		v        []float64
		mean, se float64
	}{
		{[]float64{5}, 5, 0},
		{[]float64{1, 3}, 2, 1},
		{[]float64{1, 2, 6}, 3, math.Sqrt(7.0 / 3)},
		{[]float64{-2, -4}, -3, 1},
		// Far from 0 with an inexact mean: the squares of the deviations
		// (2/3 in all), not a difference of squares, whose rounding is
		// 2 mean times the mean's error (about 1).
		{[]float64{1e8, 1e8, 1e8 + 1}, 1e8 + 1.0/3, 1.0 / 3},
	} {
		m, se := meanSE(c.v)
		if math.Abs(m-c.mean) > 1e-15*math.Abs(c.mean) || math.Abs(se-c.se) > 1e-15 {
			t.Errorf("meanSE(%v) = %v, %v, want %v, %v", c.v, m, se, c.mean, c.se)
		}
	}
}

// TestLabelsOwnParams: an algorithm's own parameter shows when it varies
// among that algorithm's runs, not when two algorithms have different
// defaults (SE's growth 4, DP-SE's 2).
func TestLabelsOwnParams(t *testing.T) {
	l := Labels([]outputs.RunRecord{
		{GroupID: "a", Algorithm: "se", Params: map[string]float64{"growth": 4}},
		{GroupID: "b", Algorithm: "dp-se", Eps: outputs.Some[float64](1), Params: map[string]float64{"growth": 2}}})
	if l["a"] != "SE" || l["b"] != "DP-SE" {
		t.Errorf("defaults of two algorithms: %q", l)
	}
	l = Labels([]outputs.RunRecord{
		{GroupID: "a", Algorithm: "se", Params: map[string]float64{"growth": 4}},
		{GroupID: "b", Algorithm: "se", Params: map[string]float64{"growth": 8}},
		{GroupID: "c", Algorithm: "dp-se", Eps: outputs.Some[float64](1), Params: map[string]float64{"growth": 2}}})
	if l["a"] != "SE (growth=4)" || l["b"] != "SE (growth=8)" || l["c"] != "DP-SE" {
		t.Errorf("growth varying among SE's runs: %q", l)
	}
	// A key that is not an algorithm's own (eps) varies across algorithms.
	l = Labels([]outputs.RunRecord{
		{GroupID: "a", Algorithm: "dp-se", Eps: outputs.Some[float64](1), Params: map[string]float64{"growth": 2}},
		{GroupID: "b", Algorithm: "ldp-se", Eps: outputs.Some[float64](2), Params: map[string]float64{"growth": 2}}})
	if l["a"] != "DP-SE (eps=1)" || l["b"] != "LDP-SE (eps=2)" {
		t.Errorf("eps varying across two algorithms: %q", l)
	}
}
