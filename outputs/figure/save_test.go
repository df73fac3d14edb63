package figure

import (
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fedbandit/fedbandit/internal/plottest"
	"github.com/fedbandit/fedbandit/outputs"
)

// svgFile is what a test reads of an SVG figure: its size in points, its
// texts with their baseline points on the canvas (y up, as vg draws),
// and its first path.
type svgFile struct {
	w, h      float64
	texts     []svgText
	firstPath string
}

type svgText struct {
	x, y float64
	s    string
}

var (
	svgSizeRE = regexp.MustCompile(`<svg width="([0-9.]+)pt" height="([0-9.]+)pt"`)
	svgTextRE = regexp.MustCompile(`(?s)<text x="([-0-9.e+]+)" y="([-0-9.e+]+)"[^>]*>([^<]*)</text>`)
	svgPathRE = regexp.MustCompile(`<path d="([^"]*)"`)
)

func readSVG(t *testing.T, path string) svgFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f svgFile
	m := svgSizeRE.FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s: no svg size", path)
	}
	f.w, _ = strconv.ParseFloat(string(m[1]), 64)
	f.h, _ = strconv.ParseFloat(string(m[2]), 64)
	for _, m := range svgTextRE.FindAllSubmatch(b, -1) {
		x, _ := strconv.ParseFloat(string(m[1]), 64)
		y, _ := strconv.ParseFloat(string(m[2]), 64)
		f.texts = append(f.texts, svgText{x, -y, string(m[3])}) // written flipped: y is -(canvas y)
	}
	if m := svgPathRE.FindSubmatch(b); m != nil {
		f.firstPath = string(m[1])
	}
	return f
}

func (f svgFile) count(s string) int {
	n := 0
	for _, t := range f.texts {
		if t.s == s {
			n++
		}
	}
	return n
}

func (f svgFile) text(s string) (svgText, bool) {
	for _, t := range f.texts {
		if t.s == s {
			return t, true
		}
	}
	return svgText{}, false
}

// pngSize decodes a PNG's size in pixels.
func pngSize(t *testing.T, path string) (w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img.Bounds().Dx(), img.Bounds().Dy()
}

// pixels is a length in pixels at PNGDPI, rounded to the nearest.
func pixels(l vg.Length) int { return int(math.Round(l.Dots(PNGDPI))) }

// TestSaveDirFiles: the seed figure is regret.* (regret-realised.* for
// the realised metric) of 16 x 10 cm by default, the PNG at PNGDPI;
// its one plot fills the canvas (the background is the whole figure) and
// is titled by the sweep unless a title is given; a directory without a
// done run is an error.
func TestSaveDirFiles(t *testing.T) {
	runs, curves := runsAndCurves()
	dir := t.TempDir()
	if err := writeTables(dir, runs, curves); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o           Options
		base, title string
		w, h        vg.Length
	}{
		{Options{}, "regret", "test sweep", 16 * vg.Centimeter, 10 * vg.Centimeter},
		{Options{Metric: Realised, Title: "mine", Width: 8 * vg.Centimeter}, "regret-realised", "mine", 8 * vg.Centimeter, 10 * vg.Centimeter},
		{Options{Height: 5 * vg.Centimeter}, "regret", "test sweep", 16 * vg.Centimeter, 5 * vg.Centimeter},
	} {
		paths, err := SaveDir(dir, c.o)
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) != 2 || paths[0] != filepath.Join(dir, c.base+".png") || paths[1] != filepath.Join(dir, c.base+".svg") {
			t.Fatalf("%+v: paths %v", c.o, paths)
		}
		if w, h := pngSize(t, paths[0]); w != pixels(c.w) || h != pixels(c.h) {
			t.Errorf("%+v: PNG %d x %d, want %d x %d", c.o, w, h, pixels(c.w), pixels(c.h))
		}
		f := readSVG(t, paths[1])
		if math.Abs(f.w-c.w.Points()) > 0.01 || math.Abs(f.h-c.h.Points()) > 0.01 {
			t.Errorf("%+v: SVG %v x %v pt, want %v x %v", c.o, f.w, f.h, c.w.Points(), c.h.Points())
		}
		if f.count(c.title) != 1 || (c.title != "test sweep" && f.count("test sweep") != 0) {
			t.Errorf("%+v: titles in %v", c.o, f.texts)
		}
		if want := "M0,0L" + svgNum(f.w) + ",0L" + svgNum(f.w) + "," + svgNum(f.h) + "L0," + svgNum(f.h) + "Z"; f.firstPath != want {
			t.Errorf("%+v: background %q, want the whole figure %q", c.o, f.firstPath, want)
		}
	}
	empty := t.TempDir()
	if err := writeTables(empty, nil, nil); err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{}, {Over: OverInstance}} {
		if _, err := SaveDir(empty, o); err == nil || !strings.Contains(err.Error(), "no done run") {
			t.Errorf("%+v: no runs: %v", o, err)
		}
	}
}

// svgNum writes a number as the SVG does (5 significant digits).
func svgNum(x float64) string { return strconv.FormatFloat(x, 'g', 5, 64) }

// TestSaveDirInstanceGrid: the instance figure is a grid of panels of
// Width x Height (a row per class, a column per eps, empty cells left
// blank) under the sweep's title, centred 3 pt below the top of a band
// of 20 pt; every panel keeps its own title.
func TestSaveDirInstanceGrid(t *testing.T) {
	runs, curves := instanceRuns()
	dir := t.TempDir()
	if err := writeTables(dir, runs, curves); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o    Options
		base string
		w, h vg.Length
	}{
		{Options{Over: OverInstance}, "regret-instances", 16 * vg.Centimeter, 10 * vg.Centimeter},
		{Options{Over: OverInstance, Metric: Realised, Width: 8 * vg.Centimeter, Height: 6 * vg.Centimeter}, "regret-realised-instances", 8 * vg.Centimeter, 6 * vg.Centimeter},
	} {
		paths, err := SaveDir(dir, c.o)
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) != 2 || paths[0] != filepath.Join(dir, c.base+".png") || paths[1] != filepath.Join(dir, c.base+".svg") {
			t.Fatalf("%+v: paths %v", c.o, paths)
		}
		// 3 rows, 2 columns, a title band of 20 pt.
		W, H := 2*c.w, 3*c.h+vg.Points(20)
		if w, h := pngSize(t, paths[0]); w != pixels(W) || h != pixels(H) {
			t.Errorf("%+v: PNG %d x %d, want %d x %d", c.o, w, h, pixels(W), pixels(H))
		}
		f := readSVG(t, paths[1])
		if math.Abs(f.w-W.Points()) > 0.01 || math.Abs(f.h-H.Points()) > 0.01 {
			t.Errorf("%+v: SVG %v x %v pt, want %v x %v", c.o, f.w, f.h, W.Points(), H.Points())
		}
		for _, title := range []string{"gap=0.5, eps=2", "gap=0.5, eps=10", "gap=0.1, eps=10", "gap=0.9", "mab sweep"} {
			if f.count(title) != 1 {
				t.Errorf("%+v: %d titles %q", c.o, f.count(title), title)
			}
		}
		// The figure's title: 13 pt, centred, its top 3 pt below the top.
		sty := draw.TextStyle{Color: color.Black, Font: plot.DefaultFont, Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YTop}
		sty.Font.Size = vg.Points(13)
		rc := plottest.NewCanvas(W, H)
		dc := draw.New(rc)
		dc.FillText(sty, vg.Point{X: W / 2, Y: H - vg.Points(3)}, "mab sweep")
		want := rc.Drawing().Texts[0].Point
		if got, _ := f.text("mab sweep"); math.Abs(got.x-want.X.Points()) > 0.01 || math.Abs(got.y-want.Y.Points()) > 0.01 {
			t.Errorf("%+v: title at (%v, %v), want (%v, %v)", c.o, got.x, got.y, want.X.Points(), want.Y.Points())
		}
		// The panels lie below the band: their titles' baselines lower
		// than its bottom.
		if got, _ := f.text("gap=0.5, eps=2"); got.y > (H - vg.Points(20)).Points() {
			t.Errorf("%+v: first panel's title at %v, in the title band", c.o, got.y)
		}
	}

	// One class, two eps: one row of two panels.
	var one []outputs.RunRecord
	kept := map[string]bool{}
	for _, r := range runs {
		if strings.Contains(r.InstanceName, "gap=0.5") {
			one, kept[r.RunID] = append(one, r), true
		}
	}
	var oneCurves []outputs.CurvePoint
	for _, c := range curves {
		if kept[c.RunID] {
			oneCurves = append(oneCurves, c)
		}
	}
	if err := writeTables(dir, one, oneCurves); err != nil {
		t.Fatal(err)
	}
	paths, err := SaveDir(dir, Options{Over: OverInstance})
	if err != nil {
		t.Fatal(err)
	}
	f := readSVG(t, paths[1])
	if f.count("eps=2") != 1 || f.count("eps=10") != 1 || math.Abs(f.w-(32*vg.Centimeter).Points()) > 0.01 {
		t.Errorf("one row: %v pt wide, texts %v", f.w, f.texts)
	}
}

// TestCheckGridSize: a grid may be MaxSide wide and high, not more.
func TestCheckGridSize(t *testing.T) {
	for _, c := range []struct {
		rows, cols int
		w, h       vg.Length
		ok         bool
	}{
		{1, 1, MaxSide, MaxSide, true},
		{1, 2, MaxSide / 2, MaxSide, true},
		{1, 2, MaxSide/2 + 1, 1, false},
		{2, 1, 1, MaxSide/2 + 1, false},
		{1, 1, MaxSide + 1, 1, false},
		{1, 1, 1, MaxSide + 1, false},
	} {
		err := checkGridSize(c.rows, c.cols, c.w, c.h)
		if (err == nil) != c.ok {
			t.Errorf("%d x %d panels of %v x %v: %v", c.rows, c.cols, c.w, c.h, err)
		}
	}
	err := checkGridSize(2, 3, 40*vg.Centimeter, 10*vg.Centimeter)
	if want := "figure: 2 x 3 panels of 40 x 10 cm exceed 100 cm: give a smaller panel size"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}
