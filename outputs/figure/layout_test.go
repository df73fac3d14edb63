package figure

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fedbandit/fedbandit/internal/plottest"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
)

// sweepRuns are done runs of one seed with a curve each: for every
// (family, instance, T, algorithm, eps) given, run ids and group ids are
// made unique.
type runSpec struct {
	family, alg, inst, desc string
	T                       int
	eps                     float64 // 0: none
	sweep                   string
}

func makeRuns(specs []runSpec) ([]outputs.RunRecord, []outputs.CurvePoint) {
	var runs []outputs.RunRecord
	var curves []outputs.CurvePoint
	for i, s := range specs {
		r := outputs.RunRecord{RunID: fmt.Sprint("run", i), GroupID: fmt.Sprint("g", i), Family: s.family, Algorithm: s.alg,
			Instance: s.inst, InstanceName: s.desc, T: s.T, Status: outputs.StatusDone, M: outputs.Some(1), Sweep: s.sweep}
		if s.eps != 0 {
			r.Eps, r.Delta = outputs.Some(s.eps), outputs.Some(0.1)
		}
		runs = append(runs, r)
		for _, round := range []int64{int64(s.T / 2), int64(s.T)} {
			curves = append(curves, outputs.Derive(&outputs.RunRecord{RunID: r.RunID, M: outputs.Some(1)}, outputs.Point{Round: round, Pseudo: float64(round) / float64(i+1)}))
		}
	}
	return runs, curves
}

// TestFacetPanelsLegendBound: 25 configurations of one facet (LDP at 24
// eps and FedLinUCB) are split in legend order over three panels of 9,
// 8 and 8 curves, titled "(1 of 3)" .. "(3 of 3)", none left out and
// none drawn twice; a panel never holds more than MaxLegend curves.
//
// Mutation-checked: splitting into parts of MaxLegend+1 fails the bound;
// dropping the last part loses curves.
func TestFacetPanelsLegendBound(t *testing.T) {
	specs := []runSpec{{family: "linear", alg: "fedlinucb", inst: "a", desc: "synthetic d=5", T: 100}}
	for k := range 24 {
		specs = append(specs, runSpec{family: "linear", alg: "ldp", inst: "a", desc: "synthetic d=5", T: 100, eps: float64(k + 1)})
	}
	runs, curves := makeRuns(specs)
	panels, err := FacetPanels(runs, curves, Pseudo, OverSeed, 6)
	if err != nil {
		t.Fatal(err)
	}
	if len(panels) != 3 {
		t.Fatalf("%d panels, want 3", len(panels))
	}
	seen := map[string]bool{}
	var order []string
	for i, p := range panels {
		if len(p.Series) > MaxLegend {
			t.Errorf("panel %d: %d curves", i, len(p.Series))
		}
		if want := fmt.Sprintf("(%d of 3)", i+1); p.Title != want || p.Row != 0 || p.Col != i {
			t.Errorf("panel %d: %q at (%d, %d), want %q at (0, %d)", i, p.Title, p.Row, p.Col, want, i)
		}
		for _, s := range p.Series {
			if seen[s.GroupID] {
				t.Errorf("%s drawn twice", s.GroupID)
			}
			seen[s.GroupID] = true
			order = append(order, s.Label)
		}
	}
	if sizes := []int{len(panels[0].Series), len(panels[1].Series), len(panels[2].Series)}; fmt.Sprint(sizes) != "[8 8 9]" && fmt.Sprint(sizes) != "[9 8 8]" {
		t.Errorf("sizes %v", sizes)
	}
	if len(seen) != 25 || order[0] != "FedLinUCB" || order[1] != "LDP-FedLinUCB (eps=1)" || order[24] != "LDP-FedLinUCB (eps=24)" {
		t.Errorf("%d curves in order %q", len(seen), order)
	}
	// Bound for every size from 1 to 40.
	for n := 1; n <= 40; n++ {
		parts := splitSeries(make([]Series, n), MaxLegend)
		total := 0
		for _, p := range parts {
			total += len(p)
			if len(p) > MaxLegend || len(p) == 0 {
				t.Errorf("n=%d: part of %d", n, len(p))
			}
		}
		if total != n || len(parts) != (n+MaxLegend-1)/MaxLegend {
			t.Errorf("n=%d: %d curves in %d parts", n, total, len(parts))
		}
	}
}

// TestFacetPanelsFacets: a panel per family, instance class and horizon
// (a row per family and class, its horizons side by side in ascending
// order), titled by what differs: the family, the instance's name, T;
// each panel's labels name only what varies in it (no "T=" when T is the
// panel's).
func TestFacetPanelsFacets(t *testing.T) {
	runs, curves := makeRuns([]runSpec{
		{family: "bco", alg: "ldp-one-point", inst: "convex", desc: "bco loss=absolute", T: 1000, eps: 1},
		{family: "bco", alg: "ldp-one-point", inst: "convex", desc: "bco loss=absolute", T: 100000, eps: 1},
		{family: "bco", alg: "ldp-one-point", inst: "convex", desc: "bco loss=absolute", T: 100000, eps: 2},
		{family: "bco", alg: "one-point", inst: "smooth", desc: "bco loss=squared", T: 1000},
		{family: "mab", alg: "se", inst: "easy0", desc: "mab gap=0.5 seed=0", T: 1000},
		{family: "linear", alg: "fedlinucb", inst: "syn", desc: "synthetic d=5", T: 1000},
	})
	panels, err := FacetPanels(runs, curves, Pseudo, OverSeed, 6)
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		title    string
		row, col int
		labels   string
	}
	wants := []want{
		{"linear, syn, T=1000", 0, 0, "FedLinUCB"},
		{"mab, easy0, T=1000", 1, 0, "SE"},
		{"bco, convex, T=1000", 2, 0, "LDP one-point BCO"},
		{"bco, convex, T=100000", 2, 1, "LDP one-point BCO (eps=1)|LDP one-point BCO (eps=2)"},
		{"bco, smooth, T=1000", 3, 0, "One-point BCO"},
	}
	if len(panels) != len(wants) {
		t.Fatalf("%d panels: %+v", len(panels), panels)
	}
	for i, w := range wants {
		p := panels[i]
		var labels []string
		for _, s := range p.Series {
			labels = append(labels, s.Label)
		}
		if p.Title != w.title || p.Row != w.row || p.Col != w.col || strings.Join(labels, "|") != w.labels {
			t.Errorf("panel %d: %q at (%d, %d) with %q, want %+v", i, p.Title, p.Row, p.Col, labels, w)
		}
	}
	// A row wraps after maxCols panels.
	panels, err = FacetPanels(runs, curves, Pseudo, OverSeed, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p := panels[3]; p.Row != 3 || p.Col != 0 || panels[4].Row != 4 {
		t.Errorf("wrapped: %+v", panels)
	}
}

// TestAlgorithmColor: an algorithm's colour is the same in every figure,
// whatever other algorithms it is drawn with and in which order (Build
// sees the runs in two orders, with and without other algorithms); the
// registered algorithms of one family have distinct colours.
//
// Mutation-checked: colouring by place in the legend (as before) fails
// the first part; a palette of seven colours (gonum's default) fails the
// second (linear has ten algorithms).
func TestAlgorithmColor(t *testing.T) {
	a, c1 := makeRuns([]runSpec{
		{family: "linear", alg: "ldp", T: 10, eps: 1},
		{family: "linear", alg: "fedlinucb", T: 10},
		{family: "linear", alg: "sdp-amp", T: 10, eps: 1},
	})
	b, c2 := makeRuns([]runSpec{
		{family: "linear", alg: "sdp-amp", T: 10, eps: 1},
		{family: "linear", alg: "ldp", T: 10, eps: 1},
	})
	colour := map[string]string{}
	for _, in := range []struct {
		runs   []outputs.RunRecord
		curves []outputs.CurvePoint
	}{{a, c1}, {b, c2}} {
		series, err := Build(in.runs, in.curves, Pseudo)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Draw(series, Options{})
		if err != nil {
			t.Fatal(err)
		}
		d, _, _ := plottest.Draw(p, figW, figH)
		lines, _, _ := seriesMarks(d, len(series))
		for i, s := range series {
			got := fmt.Sprint(lines[i].Color)
			if prev, ok := colour[s.Algorithm]; ok && prev != got {
				t.Errorf("%s: colour %s in one figure, %s in another", s.Algorithm, prev, got)
			}
			colour[s.Algorithm] = got
		}
	}
	byFamily := map[string]map[string]string{}
	for _, alg := range registry.Algorithms() {
		c := fmt.Sprint(AlgorithmColor(alg.Name))
		if byFamily[alg.Family] == nil {
			byFamily[alg.Family] = map[string]string{}
		}
		if other, ok := byFamily[alg.Family][c]; ok {
			t.Errorf("%s and %s (%s) share colour %s", other, alg.Name, alg.Family, c)
		}
		byFamily[alg.Family][c] = alg.Name
	}
	if fmt.Sprint(AlgorithmColor("mine")) != fmt.Sprint(AlgorithmColor("mine")) {
		t.Error("an unregistered algorithm's colour changes")
	}
}

// TestHorizonsSpan: two decades of horizons (T = 1000 and 100000) make
// the round axis logarithmic, less than two (1000 and 99999) do not;
// failed runs do not count.
//
// Mutation-checked: a span of one decade (10x) fails.
func TestHorizonsSpan(t *testing.T) {
	for _, c := range []struct {
		T    []int
		want bool
	}{{[]int{1000}, false}, {[]int{1000, 99999}, false}, {[]int{1000, 100000}, true}, {[]int{100000, 50, 1000}, true}} {
		var runs []outputs.RunRecord
		for _, T := range c.T {
			runs = append(runs, outputs.RunRecord{T: T, Status: outputs.StatusDone})
		}
		runs = append(runs, outputs.RunRecord{T: 10_000_000, Status: outputs.StatusFailed})
		if got := HorizonsSpan(runs); got != c.want {
			t.Errorf("T %v: %v, want %v", c.T, got, c.want)
		}
	}
}

// TestAutoOver: instances that differ only in their seed (one class, two
// instances) are averaged over instances; distinct classes, or one
// instance of a class, over seeds.
//
// Mutation-checked: keying classes by the full description (seed
// included) never chooses instance: fails.
func TestAutoOver(t *testing.T) {
	mk := func(descs ...string) []outputs.RunRecord {
		var runs []outputs.RunRecord
		for _, d := range descs {
			runs = append(runs, outputs.RunRecord{Family: "mab", InstanceName: d, Status: outputs.StatusDone})
		}
		return runs
	}
	for _, c := range []struct {
		runs []outputs.RunRecord
		want string
	}{
		{mk("mab gap=0.5 seed=0", "mab gap=0.5 seed=1"), OverInstance},
		{mk("mab gap=0.5 seed=0", "mab gap=0.5 seed=0"), OverSeed},
		{mk("mab gap=0.5 seed=0", "mab gap=0.1 seed=1"), OverSeed},
		{mk("bco loss=absolute", "bco loss=squared"), OverSeed},
	} {
		if got := AutoOver(c.runs); got != c.want {
			t.Errorf("%v: %q, want %q", c.runs, got, c.want)
		}
	}
}

// TestSweepTitle: a directory of two sweeps is titled by both, one a
// line, in every file; SaveDir draws each line once.
//
// Mutation-checked: titling by the first run's sweep (as before) fails.
func TestSweepTitle(t *testing.T) {
	runs, curves := makeRuns([]runSpec{
		{family: "mab", alg: "se", inst: "q", desc: "mab-ltr q", T: 100, sweep: "MAB sweep"},
		{family: "bco", alg: "one-point", inst: "c", desc: "bco c", T: 100, sweep: "BCO sweep"},
		{family: "bco", alg: "one-point", inst: "c", desc: "bco c", T: 100, sweep: "BCO sweep"},
	})
	if got := SweepTitle(runs); got != "BCO sweep\nMAB sweep" {
		t.Errorf("title %q", got)
	}
	dir := t.TempDir()
	if err := writeTables(dir, runs, curves); err != nil {
		t.Fatal(err)
	}
	paths, err := SaveDir(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := readSVG(t, paths[1])
	if f.count("BCO sweep") != 1 || f.count("MAB sweep") != 1 {
		t.Errorf("texts %v", f.texts)
	}
}

// TestSaveDirSplitsFiles: a grid taller than MaxSide goes on in further
// files (regret-2.*), each under the title, no panel lost.
func TestSaveDirSplitsFiles(t *testing.T) {
	var specs []runSpec
	for k := range 3 {
		specs = append(specs, runSpec{family: "bco", alg: "one-point", inst: fmt.Sprint("i", k), desc: fmt.Sprint("bco loss=", k), T: 100, sweep: "S"})
	}
	runs, curves := makeRuns(specs)
	dir := t.TempDir()
	if err := writeTables(dir, runs, curves); err != nil {
		t.Fatal(err)
	}
	paths, err := SaveDir(dir, Options{Height: 40 * vg.Centimeter})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"regret.png", "regret.svg", "regret-2.png", "regret-2.svg"}
	var got []string
	for _, p := range paths {
		got = append(got, filepath.Base(p))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("files %q, want %q", got, want)
	}
	n := 0
	for _, p := range []string{paths[1], paths[3]} {
		f := readSVG(t, p)
		for k := range 3 {
			n += f.count(fmt.Sprint("i", k))
		}
		if f.count("S") != 1 {
			t.Errorf("%s: title %d times", p, f.count("S"))
		}
	}
	if n != 3 {
		t.Errorf("%d panel titles over the files, want 3", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "regret-3.png")); err == nil {
		t.Error("a third file")
	}
}

// TestLegendBesideAxes: a panel's legend is drawn right of its axes,
// never over the data: every legend text starts right of every data
// point, and its first entry is level with the top of the axes; a label
// too long for half the panel is drawn smaller, whole, inside the panel.
//
// Mutation-checked: leaving the legend in the plot (p.Legend kept) puts
// the entries over the data: fails.
func TestLegendBesideAxes(t *testing.T) {
	for _, label := range []string{"A", strings.Repeat("a very long legend label ", 4)} {
		series := drawSeries()
		series[0].Label = label
		p, err := Draw(series, Options{Title: "t"})
		if err != nil {
			t.Fatal(err)
		}
		pp := newPanelPlot(p)
		c := plottest.NewCanvas(figW, figH)
		dc := draw.New(c)
		pp.Draw(dc)
		d := c.Drawing()
		var dataMaxX vg.Length
		for _, s := range d.Strokes {
			if s.Width == vg.Points(1.5) && len(s.Points) > 2 {
				for _, pt := range s.Points {
					dataMaxX = max(dataMaxX, pt.X)
				}
			}
		}
		var entries []plottest.Text
		for _, tx := range d.Texts {
			if strings.HasPrefix(tx.String, label+",") || tx.String == "B, n=1" || tx.String == "C, n=2" {
				entries = append(entries, tx)
			}
		}
		if len(entries) != 3 {
			t.Fatalf("legend %q", d.TextStrings())
		}
		for _, e := range entries {
			if e.Point.X <= dataMaxX {
				t.Errorf("%q at x %v, over the data (up to %v)", e.String, e.Point.X, dataMaxX)
			}
			if e.Size < vg.Points(4) {
				t.Errorf("%q in %v", e.String, e.Size)
			}
		}
		if long := len(label) > 10; long != (entries[0].Size < vg.Points(8)) {
			t.Errorf("%q in %v", label, entries[0].Size)
		}
		// The longest entry ends inside the panel.
		sty := pp.legend.TextStyle
		if end := entries[0].Point.X + sty.Rectangle(entries[0].String).Max.X; end > figW+vg.Points(0.5) {
			t.Errorf("%q ends at %v, past the panel's %v", entries[0].String, end, figW)
		}
	}
}
