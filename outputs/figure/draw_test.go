package figure

import (
	"fmt"
	"image/color"
	"math"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/fedbandit/fedbandit/internal/plottest"
)

// drawSeries are three series as Draw gets them: A (3 runs, a band), B
// (one run: no band; a first round 0 and a last mean 0, which log axes
// leave out) and
// C (2 runs, A's algorithm in its second variant: A's colour with the
// second dashes; its band touches 0 at rounds 10 and 30). Over them the
// highest band edge (mean + SE) is 5 and the lowest positive one 0.25.
func drawSeries() []Series {
	return []Series{
		{Label: "A", N: 3, Algorithm: "ldp", Rounds: []float64{10, 20, 30}, Mean: []float64{4, 2, 1}, SE: []float64{1, 0.5, 0.25}},
		{Label: "B", N: 1, Algorithm: "fedlinucb", Rounds: []float64{0, 10, 20, 30}, Mean: []float64{3, 3, 3, 0}, SE: []float64{0, 0, 0, 0}},
		{Label: "C", N: 2, Algorithm: "ldp", Variant: 1, Rounds: []float64{10, 20, 30}, Mean: []float64{1, 0.5, 0.5}, SE: []float64{1, 0.25, 0.5}},
	}
}

// figW and figH are the size the tests draw a figure at.
const figW, figH = 16 * vg.Centimeter, 10 * vg.Centimeter

// seriesMarks splits a drawing of Draw into its curves (the strokes of
// the series' width, drawn before the legend's thumbnails), bands (the
// translucent fills) and the legend's thumbnails.
func seriesMarks(d plottest.Drawing, nLines int) (lines, thumbs, bands []plottest.Mark) {
	for _, s := range d.Strokes {
		if s.Width == vg.Points(1.5) {
			if len(lines) < nLines {
				lines = append(lines, s)
			} else {
				thumbs = append(thumbs, s)
			}
		}
	}
	for _, f := range d.Fills {
		if _, _, _, a := f.Color.RGBA(); a != 0xffff {
			bands = append(bands, f)
		}
	}
	return lines, thumbs, bands
}

// near says whether two canvas points coincide (to a thousandth of a
// point).
func near(a, b vg.Point) bool {
	return math.Abs(float64(a.X-b.X)) < 1e-3 && math.Abs(float64(a.Y-b.Y)) < 1e-3
}

// checkPath compares a mark's vertices with data points mapped by x, y.
func checkPath(t *testing.T, what string, m plottest.Mark, x, y func(float64) vg.Length, want [][2]float64) {
	t.Helper()
	if len(m.Points) != len(want) {
		t.Errorf("%s: %d vertices, want %d (%v)", what, len(m.Points), len(want), want)
		return
	}
	for i, w := range want {
		if p := (vg.Point{X: x(w[0]), Y: y(w[1])}); !near(m.Points[i], p) {
			t.Errorf("%s: vertex %d at %v, want (%v, %v) at %v", what, i, m.Points[i], w[0], w[1], p)
		}
	}
}

// wantBand is the translucent fill of a band of a line of colour c: a
// third of its opacity (0x59 of 0xff), so that it shows.
func wantBand(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0x59}
}

// TestDrawLinear: on linear axes the y axis runs from 0 to the highest
// band edge (no head room: the legend goes beside the axes), and the x
// axis from 0; each series is a line through its means in its
// algorithm's colour and its variant's dashes (C: A's colour, other
// dashes), with a band from
// mean - SE to mean + SE (upper edge left to right, lower right to left)
// when it averages more than one run; the legend lists the series in
// order, top right, with the number of runs.
func TestDrawLinear(t *testing.T) {
	series := drawSeries()
	p, err := Draw(series, Options{Title: "sweep"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Title.Text != "sweep" || p.X.Label.Text != "Round" || p.Y.Label.Text != "Time-average regret" {
		t.Errorf("title %q, labels %q, %q", p.Title.Text, p.X.Label.Text, p.Y.Label.Text)
	}
	if _, ok := p.Y.Scale.(plot.LinearScale); !ok {
		t.Errorf("y scale %T", p.Y.Scale)
	}
	wantMax := 5.0
	if p.Y.Min != 0 || math.Abs(p.Y.Max-wantMax) > 1e-12 || p.X.Min != 0 || p.X.Max != 30 {
		t.Errorf("x axis [%v, %v], y axis [%v, %v], want [0, 30], [0, %v]", p.X.Min, p.X.Max, p.Y.Min, p.Y.Max, wantMax)
	}
	d, x, y := plottest.Draw(p, figW, figH)
	lines, thumbs, bands := seriesMarks(d, 3)
	if len(lines) != 3 || len(thumbs) != 3 || len(bands) != 2 {
		t.Fatalf("%d lines, %d legend thumbnails, %d bands, want 3, 3, 2", len(lines), len(thumbs), len(bands))
	}
	for i, s := range series {
		l := lines[i]
		var want [][2]float64
		for k := range s.Rounds {
			want = append(want, [2]float64{s.Rounds[k], s.Mean[k]})
		}
		checkPath(t, s.Label+" line", l, x, y, want)
		if c, dash := variantStyle(s.Algorithm, s.Variant); !plottest.SameColor(l.Color, AlgorithmColor(s.Algorithm)) || !plottest.SameColor(l.Color, c) || !plottest.SameDashes(l.Dashes, dash) {
			t.Errorf("%s: colour %v dashes %v", s.Label, l.Color, l.Dashes)
		}
		if th := thumbs[i]; !plottest.SameColor(th.Color, l.Color) || !plottest.SameDashes(th.Dashes, l.Dashes) {
			t.Errorf("%s: legend thumbnail %v %v, line %v %v", s.Label, th.Color, th.Dashes, l.Color, l.Dashes)
		}
	}
	if plottest.SameDashes(lines[0].Dashes, lines[2].Dashes) || !plottest.SameColor(lines[0].Color, lines[2].Color) {
		t.Error("variant 1 is not variant 0's colour with other dashes")
	}
	for i, k := range []int{0, 2} { // the series of more than one run
		s := series[k]
		var want [][2]float64
		for j := range s.Rounds {
			want = append(want, [2]float64{s.Rounds[j], s.Mean[j] + s.SE[j]})
		}
		for j := len(s.Rounds) - 1; j >= 0; j-- {
			want = append(want, [2]float64{s.Rounds[j], s.Mean[j] - s.SE[j]})
		}
		checkPath(t, s.Label+" band", bands[i], x, y, want)
		if want := wantBand(AlgorithmColor(s.Algorithm)); !plottest.SameColor(bands[i].Color, want) {
			t.Errorf("%s: band colour %v, want %v", s.Label, bands[i].Color, want)
		}
	}
	checkLegend(t, d, []string{"A, n=3", "B, n=1", "C, n=2"}, x, y, p)
}

// checkLegend: the legend's entries are drawn in order, one under the
// other, in 8 pt, in the upper right quarter of the data area.
func checkLegend(t *testing.T, d plottest.Drawing, want []string, x, y func(float64) vg.Length, p *plot.Plot) {
	t.Helper()
	var got []plottest.Text
	for _, tx := range d.Texts {
		for _, w := range want {
			if tx.String == w {
				got = append(got, tx)
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("legend %v, want %v", d.TextStrings(), want)
	}
	midX, midY := (x(p.X.Min)+x(p.X.Max))/2, (y(p.Y.Min)+y(p.Y.Max))/2
	for i, tx := range got {
		if tx.String != want[i] || tx.Size != vg.Points(8) {
			t.Errorf("legend entry %d: %q in %v, want %q in 8 pt", i, tx.String, tx.Size, want[i])
		}
		if tx.Point.X < midX || tx.Point.Y < midY {
			t.Errorf("legend entry %q at %v, not in the upper right quarter (from %v, %v)", tx.String, tx.Point, midX, midY)
		}
		if i > 0 && tx.Point.Y >= got[i-1].Point.Y {
			t.Errorf("legend entry %q not under %q", tx.String, got[i-1].String)
		}
	}
}

// TestDrawLog: on log axes the points at round 0 (log x) and of mean 0
// (log y) are left out; a band's lower edge at or below 0 is drawn at a
// tenth of the mean; the y axis reaches from the lowest point drawn to
// the highest band edge, 5; the x axis starts at the first round drawn.
func TestDrawLog(t *testing.T) {
	series := drawSeries()
	p, err := Draw(series, Options{Metric: Realised, LogX: true, LogY: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Label.Text != "Time-average regret (realised)" {
		t.Errorf("y label %q", p.Y.Label.Text)
	}
	_, okx := p.X.Scale.(plot.LogScale)
	_, oky := p.Y.Scale.(plot.LogScale)
	if !okx || !oky {
		t.Errorf("scales %T %T", p.X.Scale, p.Y.Scale)
	}
	wantMax := 5.0
	// The lowest point: C's band at round 30, mean 0.5 - SE 0.5 = 0,
	// drawn at 0.05.
	if math.Abs(p.Y.Max-wantMax) > 1e-12 || p.Y.Min != 0.05 || p.X.Min != 10 || p.X.Max != 30 {
		t.Errorf("x axis [%v, %v], y axis [%v, %v], want [10, 30], [0.05, %v]", p.X.Min, p.X.Max, p.Y.Min, p.Y.Max, wantMax)
	}
	d, x, y := plottest.Draw(p, figW, figH)
	lines, _, bands := seriesMarks(d, 3)
	if len(lines) != 3 || len(bands) != 2 {
		t.Fatalf("%d lines, %d bands", len(lines), len(bands))
	}
	checkPath(t, "A line", lines[0], x, y, [][2]float64{{10, 4}, {20, 2}, {30, 1}})
	checkPath(t, "B line", lines[1], x, y, [][2]float64{{10, 3}, {20, 3}})
	checkPath(t, "C line", lines[2], x, y, [][2]float64{{10, 1}, {20, 0.5}, {30, 0.5}})
	checkPath(t, "C band", bands[1], x, y, [][2]float64{{10, 2}, {20, 0.75}, {30, 1}, {30, 0.05}, {20, 0.25}, {10, 0.1}})
}

// TestLegend: a legend entry says how many runs, and over instances how
// many instances, a curve averages.
func TestLegend(t *testing.T) {
	for _, c := range []struct {
		s    Series
		want string
	}{
		{Series{Label: "L", N: 4}, "L, n=4"},
		{Series{Label: "L", N: 1, Instances: 1}, "L, 1 instance"},
		{Series{Label: "L", N: 3, Instances: 1}, "L, 1 instance, n=3"},
		{Series{Label: "L", N: 2, Instances: 2}, "L, 2 instances"},
		{Series{Label: "L", N: 6, Instances: 2}, "L, 2 instances, n=6"},
	} {
		if got := legend(c.s); got != c.want {
			t.Errorf("legend(%+v) = %q, want %q", c.s, got, c.want)
		}
	}
}

// TestDrawLogTicks: log axes label the powers of 10 in full ("10", not
// "1e+01"), and over two decades 2 and 5 times them ("50" once on the
// log axis, once on the linear one); linear axes start at 0; a log axis over less than a decade
// (fewer than two powers of 10) is labelled at linear ticks, never at
// one value only.
func TestDrawLogTicks(t *testing.T) {
	series := []Series{{Label: "A", N: 1, Rounds: []float64{1, 10, 100}, Mean: []float64{1, 10, 100}, SE: []float64{0, 0, 0}}}
	for _, c := range []struct {
		o    Options
		want map[string]int
	}{
		{Options{LogX: true, LogY: true}, map[string]int{"1": 2, "10": 2, "100": 2}},
		{Options{LogX: true}, map[string]int{"1": 1, "2": 1, "10": 1, "100": 2, "0": 1, "50": 2}},
		{Options{LogY: true}, map[string]int{"1": 1, "2": 1, "10": 1, "100": 2, "0": 1, "50": 2}},
	} {
		p, err := Draw(series, c.o)
		if err != nil {
			t.Fatal(err)
		}
		d, _, _ := plottest.Draw(p, figW, figH)
		got := map[string]int{}
		for _, tx := range d.Texts {
			got[tx.String]++
		}
		for s, n := range c.want {
			if got[s] != n {
				t.Errorf("%+v: %d tick labels %q, want %d, in %q", c.o, got[s], s, n, d.TextStrings())
			}
		}
	}
}

// TestLogTicksWithinDecade: over [250, 1000] or [2, 8] (one power of 10
// or none) a log axis has at least three labelled ticks, all in range;
// over [1, 1000] the powers of 10 alone.
func TestLogTicksWithinDecade(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []string // nil: at least 3 labels
	}{
		{250, 1000, nil}, {2, 8, nil}, {1, 1000, []string{"1", "10", "100", "1000"}},
	} {
		var labels []string
		for _, tk := range (LogTicks{}).Ticks(c.lo, c.hi) {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
				if tk.Value < c.lo || tk.Value > c.hi {
					t.Errorf("[%v, %v]: tick %v out of range", c.lo, c.hi, tk.Value)
				}
			}
		}
		if (c.want == nil && len(labels) < 3) || (c.want != nil && fmt.Sprint(labels) != fmt.Sprint(c.want)) {
			t.Errorf("[%v, %v]: labels %q, want %q", c.lo, c.hi, labels, c.want)
		}
	}
}

// TestDrawOnePoint: a curve of one checkpoint (T equal to the checkpoint
// spacing) is a dot in its algorithm's colour with an error bar from
// mean - SE to mean + SE, not an invisible line.
//
// Mutation-checked: without the dots (minLinePoints 0) nothing is drawn
// at the point: fails.
func TestDrawOnePoint(t *testing.T) {
	s := Series{Label: "A", N: 3, Algorithm: "ldp", Rounds: []float64{1000}, Mean: []float64{2}, SE: []float64{0.5}}
	p, err := Draw([]Series{s}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, x, y := plottest.Draw(p, figW, figH)
	dots := 0
	for _, f := range d.Fills {
		if f.Radius > 0 && plottest.SameColor(f.Color, AlgorithmColor("ldp")) && len(f.Points) > 0 && near(f.Points[len(f.Points)-1], vg.Point{X: x(1000), Y: y(2)}) {
			dots++
		}
	}
	bars := 0
	for _, st := range d.Strokes {
		if st.Width == vg.Points(4) && plottest.SameColor(st.Color, wantBand(AlgorithmColor("ldp"))) {
			checkPath(t, "error bar", st, x, y, [][2]float64{{1000, 1.5}, {1000, 2.5}})
			bars++
		}
	}
	if dots != 1 || bars != 1 {
		t.Errorf("%d dots, %d error bars, want 1, 1", dots, bars)
	}
}
