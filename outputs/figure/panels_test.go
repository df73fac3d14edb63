package figure

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fedbandit/fedbandit/internal/plottest"
	"github.com/fedbandit/fedbandit/registry"
)

// TestLogTicksShortAxis: a log axis over one or two decades labels 2 and
// 5 times its powers of ten as well (never one labelled power alone),
// from the first power below its minimum (0.1 on [0.1, 8], which gonum's
// ticks start at 1); over three decades or more, the powers alone.
//
// Mutation-checked: without the 2-and-5 labels (powers < 0) the
// one-decade axis falls back to linear ticks and the two-decade one has
// three labels: fails.
func TestLogTicksShortAxis(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{1e4, 1e5, "[10000 20000 50000 100000]"},
		{10, 1000, "[10 20 50 100 200 500 1000]"},
		{0.1, 8, "[0.1 0.2 0.5 1 2 5]"},
		{0.1, 100, "[0.1 1 10 100]"},
		{0.15, 3, "[0.2 0.5 1 2]"},
		{1, 1e6, "[1 10 100 1000 10000 100000 1000000]"},
	} {
		var labels []string
		for _, tk := range (LogTicks{}).Ticks(c.lo, c.hi) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if got := fmt.Sprint(labels); got != c.want {
			t.Errorf("[%v, %v]: labels %s, want %s", c.lo, c.hi, got, c.want)
		}
	}
}

// TestSavePlotsLegendBeside: a plot whose legend sits over its axes
// (top left, as the fits' figures draw it) is placed by SavePlots with
// its legend in the strip right of its axes: the entry starts right of
// every data point, and it ends a legendGap before the figure's right
// edge (notebook review: legend text touching the image's edge).
//
// Mutation-checked: placing the plot as it is (legend kept in the plot)
// draws the entry over the line: fails; the strip running to the edge
// (no right gap): fails.
func TestSavePlotsLegendBeside(t *testing.T) {
	p := plot.New()
	l, err := plotter.NewLine(plotter.XYs{{X: 1, Y: 1}, {X: 50, Y: 20}, {X: 100, Y: 100}})
	if err != nil {
		t.Fatal(err)
	}
	l.Width = vg.Points(1.5)
	p.Add(l)
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.Add("fit: T^0.75", l)
	sty := p.Legend.TextStyle
	grid, err := placePlots([]PlacedPlot{{Plot: p}}, figW, figH)
	if err != nil {
		t.Fatal(err)
	}
	c := plottest.NewCanvas(figW, figH)
	grid[0][0].Draw(draw.New(c))
	d := c.Drawing()
	var dataMaxX vg.Length
	for _, s := range d.Strokes {
		if s.Width == vg.Points(1.5) && len(s.Points) > 2 {
			for _, pt := range s.Points {
				dataMaxX = max(dataMaxX, pt.X)
			}
		}
	}
	found := false
	for _, tx := range d.Texts {
		if tx.String == "fit: T^0.75" {
			found = true
			if tx.Point.X <= dataMaxX {
				t.Errorf("legend entry at x %v, over the data (up to %v)", tx.Point.X, dataMaxX)
			}
			sty.Font.Size = tx.Size
			if end := tx.Point.X + sty.Width(tx.String); end > figW-legendGap+vg.Points(0.01) {
				t.Errorf("legend entry ends at x %v, within %v of the figure's right edge %v", end, legendGap, figW)
			}
		}
	}
	if !found || dataMaxX == 0 {
		t.Fatalf("no legend entry or no line in %q", d.TextStrings())
	}
	if _, err := placePlots([]PlacedPlot{{Plot: plot.New()}, {Plot: plot.New()}}, figW, figH); err == nil || !strings.Contains(err.Error(), "two plots at row 0, column 0") {
		t.Errorf("two plots in one cell: %v", err)
	}
}

// TestPanelsBy: panels by eps hold one eps each, in numeric order
// (0.0001 before 0.001 before 0.2 before 5 before 10), titled "eps=...", in rows of at most cols,
// and the non-private runs (no eps) in every panel; panels by algorithm
// are titled by its display name; a field no run has is an error naming
// the fields they have.
//
// Mutation-checked: leaving the runs without the field out of the
// panels fails the FedLinUCB count; sorting the values as strings puts
// eps=10 before eps=5, in natural order 0.001 before 0.0001: fails.
func TestPanelsBy(t *testing.T) {
	runs, curves := makeRuns([]runSpec{
		{family: "linear", alg: "ldp", inst: "a", T: 100, eps: 5},
		{family: "linear", alg: "ldp", inst: "a", T: 100, eps: 10},
		{family: "linear", alg: "ldp", inst: "a", T: 100, eps: 0.2},
		{family: "linear", alg: "ldp", inst: "a", T: 100, eps: 0.001},
		{family: "linear", alg: "ldp", inst: "a", T: 100, eps: 0.0001},
		{family: "linear", alg: "sdp-amp", inst: "a", T: 100, eps: 5},
		{family: "linear", alg: "fedlinucb", inst: "a", T: 100},
	})
	panels, err := PanelsBy(runs, curves, "pseudo", "eps", 2)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	fed := 0
	for _, p := range panels {
		var labels []string
		for _, s := range p.Series {
			labels = append(labels, s.Label)
			if s.Algorithm == "fedlinucb" {
				fed++
			}
		}
		got = append(got, fmt.Sprintf("%s@%d,%d:%d", p.Title, p.Row, p.Col, len(p.Series)))
	}
	if want := "[eps=0.0001@0,0:2 eps=0.001@0,1:2 eps=0.2@1,0:2 eps=5@1,1:3 eps=10@2,0:2]"; fmt.Sprint(got) != want {
		t.Errorf("panels %s, want %s", got, want)
	}
	if fed != 5 {
		t.Errorf("FedLinUCB in %d panels, want every one (5)", fed)
	}
	panels, err = PanelsBy(runs, curves, "pseudo", "algorithm", 0)
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, p := range panels {
		got = append(got, fmt.Sprintf("%s@%d,%d", p.Title, p.Row, p.Col))
	}
	want := fmt.Sprintf("[%s@0,0 %s@0,1 %s@0,2]", registry.Display("fedlinucb"), registry.Display("ldp"), registry.Display("sdp-amp"))
	if fmt.Sprint(got) != want {
		t.Errorf("panels %s, want %s", got, want)
	}
	if _, err := PanelsBy(runs, curves, "pseudo", "regime", 0); err == nil || !strings.Contains(err.Error(), `panels by "regime"`) || !strings.Contains(err.Error(), "eps") {
		t.Errorf("unknown field: %v", err)
	}
}

// TestLinearTickLabels: a linear axis labels its ticks without trailing
// zeros ("250", not gonum's "250.00").
//
// Mutation-checked: gonum's labels kept fail.
func TestLinearTickLabels(t *testing.T) {
	var labels []string
	for _, tk := range (LinearTicks{}).Ticks(0, 500) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := fmt.Sprint(labels); got != "[0 250 500]" {
		t.Errorf("labels %s, want [0 250 500]", got)
	}
}

// TestGridPositionsRefused: SavePanels and placePlots share one check of
// the items' cells (emptyGrid): a negative row or column, and two items
// in one cell, are errors naming the item or the cell; nothing is
// written.
func TestGridPositionsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		panels []Panel
		want   string
	}{
		{[]Panel{{Title: "a", Row: -1}}, `figure: panel "a" at row -1, column 0`},
		{[]Panel{{Title: "a", Col: 1}, {Title: "b", Col: 1}}, "figure: two panels at row 0, column 1"},
	} {
		if _, err := SavePanels(dir, "f", "", c.panels, Options{}); err == nil || err.Error() != c.want {
			t.Errorf("%v: error %v, want %q", c.panels, err, c.want)
		}
	}
	if _, err := placePlots([]PlacedPlot{{Plot: plot.New(), Col: -2}}, figW, figH); err == nil || !strings.Contains(err.Error(), `plot "" at row 0, column -2`) {
		t.Errorf("plot at column -2: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files written: %v", entries)
	}
}
