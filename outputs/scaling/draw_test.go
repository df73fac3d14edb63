package scaling

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fedbandit/fedbandit/internal/plottest"
	"github.com/fedbandit/fedbandit/outputs/figure"
)

// drawFits are four fits as DrawOver gets them: A (a fitted exponent 1,
// prefactor 0.1; at M = 100 an SE of twice the mean), B (no exponent;
// one positive mean), C (no positive mean: not drawn) and D (exponent
// 0.5, prefactor 2), in colours 0, 1 and 3.
func drawFits() []Fit {
	nan := math.NaN()
	return []Fit{
		{Label: "A", Points: []Point{{X: 10, Mean: 1, SE: 0.5, Seeds: 3}, {X: 100, Mean: 10, SE: 20, Seeds: 3}, {X: 1000, Mean: 100, Seeds: 1}},
			Exponent: 1, Lo: 0.9, Hi: 1.1, Prefactor: 0.1},
		{Label: "B", Points: []Point{{X: 10, Mean: -1, SE: 1}, {X: 100, Mean: 0, SE: 1}, {X: 1000, Mean: 5, SE: 1}},
			Exponent: nan, Lo: nan, Hi: nan, Prefactor: nan},
		{Label: "C", Points: []Point{{X: 10, Mean: -1}, {X: 100, Mean: 0}},
			Exponent: nan, Lo: nan, Hi: nan, Prefactor: nan},
		{Label: "D", Points: []Point{{X: 20, Mean: 2 * math.Sqrt(20), SE: 1}, {X: 500, Mean: 2 * math.Sqrt(500), SE: 1}},
			Exponent: 0.5, Lo: 0.25, Hi: 0.75, Prefactor: 2},
	}
}

// near says whether two canvas points coincide (to a thousandth of a
// point).
func near(a, b vg.Point) bool {
	return math.Abs(float64(a.X-b.X)) < 1e-3 && math.Abs(float64(a.Y-b.Y)) < 1e-3
}

// TestDrawOver: on log-log axes each fit's positive means are discs in
// its colour (the fit's place in the list) with error bars from mean -
// min(SE, 0.99 mean) to mean + SE; a fitted exponent adds the dashed
// line prefactor x^exponent from the first point to the last and the
// exponent with its interval to the legend entry; the legend, top left,
// lists the fits drawn in order; the axes span the bars.
func TestDrawOver(t *testing.T) {
	fits := drawFits()
	p, err := DrawOver(fits, "scaling test", OverT)
	if err != nil {
		t.Fatal(err)
	}
	if p.Title.Text != "scaling test" || p.X.Label.Text != "rounds T" || p.Y.Label.Text != "pseudo-regret R(T)" {
		t.Errorf("title %q, labels %q, %q", p.Title.Text, p.X.Label.Text, p.Y.Label.Text)
	}
	_, okx := p.X.Scale.(plot.LogScale)
	_, oky := p.Y.Scale.(plot.LogScale)
	if !okx || !oky {
		t.Errorf("scales %T %T", p.X.Scale, p.Y.Scale)
	}
	// The lowest bar: A at 100, 10 - 0.99 * 10; the highest: A at 1000.
	mean := 10.0
	if p.X.Min != 10 || p.X.Max != 1000 || p.Y.Min != mean-0.99*mean || p.Y.Max != 100 {
		t.Errorf("x axis [%v, %v], y axis [%v, %v]", p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
	}
	d, x, y := plottest.Draw(p, 16*vg.Centimeter, 11*vg.Centimeter)
	pt := func(a, b float64) vg.Point { return vg.Point{X: x(a), Y: y(b)} }
	type bar struct{ x, lo, hi float64 }
	for _, c := range []struct {
		fit   int
		discs [][2]float64
		bars  []bar
	}{
		{0, [][2]float64{{10, 1}, {100, 10}, {1000, 100}}, []bar{{10, 0.5, 1.5}, {100, 10 - 9.9, 30}, {1000, 100, 100}}},
		{1, [][2]float64{{1000, 5}}, []bar{{1000, 4, 6}}},
		{3, [][2]float64{{20, 2 * math.Sqrt(20)}, {500, 2 * math.Sqrt(500)}}, []bar{{20, 2*math.Sqrt(20) - 1, 2*math.Sqrt(20) + 1}, {500, 2*math.Sqrt(500) - 1, 2*math.Sqrt(500) + 1}}},
	} {
		col := plotutil.Color(c.fit)
		var discs []vg.Point
		for _, f := range d.Fills {
			if f.Radius > 0 && plottest.SameColor(f.Color, col) {
				discs = append(discs, f.Points[len(f.Points)-1])
			}
		}
		// The legend's thumbnail is a disc too, after the data's.
		if len(discs) != len(c.discs)+1 {
			t.Fatalf("fit %d: %d discs, want %d and a legend thumbnail", c.fit, len(discs), len(c.discs))
		}
		for k, w := range c.discs {
			if !near(discs[k], pt(w[0], w[1])) {
				t.Errorf("fit %d: disc %d at %v, want (%v, %v)", c.fit, k, discs[k], w[0], w[1])
			}
		}
		var bars []plottest.Mark
		for _, s := range d.Strokes {
			if len(s.Points) == 2 && s.Points[0].X == s.Points[1].X && plottest.SameColor(s.Color, col) {
				bars = append(bars, s)
			}
		}
		if len(bars) != len(c.bars) {
			t.Fatalf("fit %d: %d error bars, want %d", c.fit, len(bars), len(c.bars))
		}
		for k, w := range c.bars {
			if !near(bars[k].Points[0], pt(w.x, w.lo)) || !near(bars[k].Points[1], pt(w.x, w.hi)) {
				t.Errorf("fit %d: bar %d from %v to %v, want %v", c.fit, k, bars[k].Points[0], bars[k].Points[1], w)
			}
		}
	}
	// The fitted lines: dashed, from the first point to the last, on the
	// curve prefactor x^exponent.
	for _, c := range []struct {
		fit        int
		a, b, x, X float64
	}{{0, 0.1, 1, 10, 1000}, {3, 2, 0.5, 20, 500}} {
		var lines []plottest.Mark
		for _, s := range d.Strokes {
			if len(s.Points) > 2 && plottest.SameColor(s.Color, plotutil.Color(c.fit)) &&
				plottest.SameDashes(s.Dashes, []vg.Length{vg.Points(3), vg.Points(2)}) {
				lines = append(lines, s)
			}
		}
		if len(lines) != 1 {
			t.Fatalf("fit %d: %d fitted lines", c.fit, len(lines))
		}
		l := lines[0].Points
		if !near(l[0], pt(c.x, c.a*math.Pow(c.x, c.b))) || !near(l[len(l)-1], pt(c.X, c.a*math.Pow(c.X, c.b))) {
			t.Errorf("fit %d: line from %v to %v", c.fit, l[0], l[len(l)-1])
		}
		// Every vertex on the curve: on log-log axes a straight line of
		// slope b through (x, a x^b).
		x0, y0 := l[0].X, l[0].Y
		slope := float64(y(c.a*math.Pow(c.X, c.b))-y0) / float64(x(c.X)-x0)
		for _, v := range l {
			if math.Abs(float64(v.Y-y0)-slope*float64(v.X-x0)) > 1e-3 {
				t.Errorf("fit %d: vertex %v off the fitted line", c.fit, v)
			}
		}
	}
	// Log ticks labelled at the powers of 10 in full: 10, 100 and 1000
	// across, 0.1 to 100 up.
	ticks := map[string]int{}
	for _, tx := range d.Texts {
		ticks[tx.String]++
	}
	if ticks["10"] != 2 || ticks["100"] != 2 || ticks["1000"] != 1 || ticks["0.1"] != 1 || ticks["1"] != 1 {
		t.Errorf("tick labels in %q", d.TextStrings())
	}
	want := []string{"A: T^1.00 [0.90, 1.10]", "B", "D: T^0.50 [0.25, 0.75]"}
	var got []plottest.Text
	for _, tx := range d.Texts {
		for _, w := range append(want, "C") {
			if tx.String == w {
				got = append(got, tx)
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("legend %q, want %q", d.TextStrings(), want)
	}
	mid := (x(p.X.Min) + x(p.X.Max)) / 2
	for i, tx := range got {
		if tx.String != want[i] || tx.Size != vg.Points(7) || tx.Point.X > mid || tx.Point.Y < (y(p.Y.Min)+y(p.Y.Max))/2 {
			t.Errorf("legend entry %d: %q in %v at %v, want %q in 7 pt top left", i, tx.String, tx.Size, tx.Point, want[i])
		}
		if i > 0 && tx.Point.Y >= got[i-1].Point.Y {
			t.Errorf("legend entry %q not under %q", tx.String, got[i-1].String)
		}
	}
}

// TestDrawOverLabels: the axes say what is fitted over; Draw is over M.
func TestDrawOverLabels(t *testing.T) {
	fits := drawFits()[:1]
	for _, c := range []struct {
		over, x, y, legend string
		p                  func() (*plot.Plot, error)
	}{
		{OverM, "silos M", "privacy cost R_M(T) - FedLinUCB's", "A: M^1.00 [0.90, 1.10]", func() (*plot.Plot, error) { return Draw(fits, "") }},
		{OverT, "rounds T", "pseudo-regret R(T)", "A: T^1.00 [0.90, 1.10]", nil},
		{OverEps, "eps", "pseudo-regret R(T)", "A: eps^1.00 [0.90, 1.10]", nil},
	} {
		draw := c.p
		if draw == nil {
			draw = func() (*plot.Plot, error) { return DrawOver(fits, "", c.over) }
		}
		p, err := draw()
		if err != nil {
			t.Fatal(err)
		}
		d, _, _ := plottest.Draw(p, 16*vg.Centimeter, 11*vg.Centimeter)
		if p.X.Label.Text != c.x || p.Y.Label.Text != c.y || !contains(d.TextStrings(), c.legend) {
			t.Errorf("over %s: labels %q, %q, texts %q", c.over, p.X.Label.Text, p.Y.Label.Text, d.TextStrings())
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestSaveOver: scaling.png and .svg over M, scaling-T.* and scaling-eps.*
// otherwise, of 16 x 11 cm (945 x 650 pixels at 150 dpi).
func TestSaveOver(t *testing.T) {
	for over, name := range map[string]string{OverM: "scaling", OverT: "scaling-T", OverEps: "scaling-eps"} {
		dir := t.TempDir()
		paths, err := SaveOver(dir, drawFits(), "t", over)
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) != 2 || paths[0] != filepath.Join(dir, name+".png") || paths[1] != filepath.Join(dir, name+".svg") {
			t.Errorf("over %s: %v", over, paths)
			continue
		}
		f, err := os.Open(paths[0])
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil || img.Bounds().Dx() != 945 || img.Bounds().Dy() != 650 {
			t.Errorf("over %s: %v %v", over, img.Bounds(), err)
		}
	}
}

// TestDrawOverAlgorithmColours: a fit is drawn in its algorithm's colour
// (figure.AlgorithmColor), whatever its place among the fits: two
// configurations of LDP-FedLinUCB share LDP's colour (their fitted lines
// both in it), FedLinUCB has its own, the same when it is drawn alone;
// LDP's second configuration has other markers (boxes, not discs).
//
// Mutation-checked: the colour of the fit's place (plotutil.Color(i))
// fails the line counts.
func TestDrawOverAlgorithmColours(t *testing.T) {
	fit := func(label, alg string, a float64) Fit {
		return Fit{Label: label, Algorithm: alg, Points: []Point{{X: 10, Mean: 10 * a, Seeds: 1}, {X: 1000, Mean: 1000 * a, Seeds: 1}},
			Exponent: 1, Lo: 1, Hi: 1, Prefactor: a}
	}
	ldp, fed := figure.AlgorithmColor("ldp"), figure.AlgorithmColor("fedlinucb")
	for _, fits := range [][]Fit{
		{fit("LDP (eps=1)", "ldp", 3), fit("LDP (eps=4)", "ldp", 2), fit("FedLinUCB", "fedlinucb", 1)},
		{fit("FedLinUCB", "fedlinucb", 1)},
	} {
		p, err := DrawOver(fits, "", OverT)
		if err != nil {
			t.Fatal(err)
		}
		d, _, _ := plottest.Draw(p, 16*vg.Centimeter, 11*vg.Centimeter)
		count := map[string]int{}
		for _, s := range d.Strokes {
			if len(s.Points) > 2 && plottest.SameDashes(s.Dashes, []vg.Length{vg.Points(3), vg.Points(2)}) {
				switch {
				case plottest.SameColor(s.Color, ldp):
					count["ldp"]++
				case plottest.SameColor(s.Color, fed):
					count["fedlinucb"]++
				}
			}
		}
		want := map[string]int{"fedlinucb": 1}
		if len(fits) == 3 {
			want["ldp"] = 2
		}
		if count["ldp"] != want["ldp"] || count["fedlinucb"] != want["fedlinucb"] {
			t.Errorf("%d fits: fitted lines by colour %v, want %v", len(fits), count, want)
		}
	}
	// Markers: LDP's first configuration discs, its second boxes.
	if _, ok := markers[0].(draw.CircleGlyph); !ok {
		t.Errorf("first marker %T, want a disc", markers[0])
	}
	if _, ok := markers[1].(draw.BoxGlyph); !ok {
		t.Errorf("second marker %T, want a box", markers[1])
	}
}
