package figure

import (
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/fedbandit/fedbandit/internal/plottest"
	"github.com/fedbandit/fedbandit/outputs"
)

// rewardRow is an audited reward pair: releases under the first dataset
// clustered at 0 (20 of 22 in one bin: histograms much taller than the
// unit Gaussian's 0.4, which is therefore drawn whole), under the second
// spread over [-0.5, 2.5].
func rewardRow(config string, mu float64) outputs.AuditRow {
	r := outputs.AuditRow{Config: config, Pair: "reward", ClaimMu: mu, Released0: []float64{-1, 1}}
	for range 20 {
		r.Released0 = append(r.Released0, 0)
	}
	for i := range 31 {
		r.Released1 = append(r.Released1, -0.5+0.1*float64(i))
	}
	return r
}

// histograms returns the bins a panel draws per colour: the closed
// rectangles (5 vertices) stroked in plotutil.Color(0) and Color(1)
// that stand on the x axis (at bottom; not the legend's thumbnails).
func histograms(d plottest.Drawing, bottom vg.Length) (bins [2][]plottest.Mark) {
	for _, s := range d.Strokes {
		if len(s.Points) != 5 || s.Points[0] != s.Points[4] || s.Points[0].Y != bottom {
			continue
		}
		for i := range bins {
			if plottest.SameColor(s.Color, plotutil.Color(i)) {
				bins[i] = append(bins[i], s)
			}
		}
	}
	return bins
}

// dashed returns the strokes in dashes 3 pt, 2 pt of colour i but the
// legend's thumbnail (a segment): the Gaussian at 0 (i = 0) and at the
// claimed mu (i = 1).
func dashed(d plottest.Drawing, i int) []plottest.Mark {
	var out []plottest.Mark
	for _, s := range d.Strokes {
		if len(s.Points) > 2 && plottest.SameDashes(s.Dashes, []vg.Length{vg.Points(3), vg.Points(2)}) && plottest.SameColor(s.Color, plotutil.Color(i)) {
			out = append(out, s)
		}
	}
	return out
}

// inverse maps canvas coordinates back to data on a panel's linear axes.
func inverse(p *plot.Plot, x, y func(float64) vg.Length) (fx, fy func(vg.Length) float64) {
	fx = func(c vg.Length) float64 {
		return p.X.Min + float64(c-x(p.X.Min))/float64(x(p.X.Max)-x(p.X.Min))*(p.X.Max-p.X.Min)
	}
	fy = func(c vg.Length) float64 {
		return p.Y.Min + float64(c-y(p.Y.Min))/float64(y(p.Y.Max)-y(p.Y.Min))*(p.Y.Max-p.Y.Min)
	}
	return fx, fy
}

// TestAuditPanelReward: a reward pair's panel draws a 40-bin histogram of
// each dataset's releases over its own range, in colours 0 and 1, and the
// claim: unit Gaussian densities at 0 and at the claimed mu (dashed, 200
// samples), on an x axis from min(lowest release, -4) to max(highest
// release, mu + 4).
func TestAuditPanelReward(t *testing.T) {
	r := rewardRow("LDP eps=1", 1.5)
	p, err := auditPanel(r)
	if err != nil {
		t.Fatal(err)
	}
	if p.Title.Text != "LDP eps=1" || p.X.Label.Text != "whitened release (projection)" || p.Y.Label.Text != "density" {
		t.Errorf("title %q, labels %q, %q", p.Title.Text, p.X.Label.Text, p.Y.Label.Text)
	}
	if p.X.Min != -4 || p.X.Max != 5.5 || p.Y.Min != 0 {
		t.Errorf("x axis [%v, %v], y from %v, want [-4, 5.5], 0", p.X.Min, p.X.Max, p.Y.Min)
	}
	d, x, y := plottest.Draw(p, 12*vg.Centimeter, 8*vg.Centimeter)
	fx, fy := inverse(p, x, y)
	bins := histograms(d, y(0))
	for i, v := range [][]float64{r.Released0, r.Released1} {
		if len(bins[i]) != 40 {
			t.Fatalf("dataset %d: %d bins, want 40", i, len(bins[i]))
		}
		// The bins tile [min, max] of the dataset, each of the same width,
		// and their areas (density times width) add up to 1.
		lo, hi := v[0], v[len(v)-1]
		if i == 0 {
			lo, hi = -1, 1
		}
		var area float64
		for k, b := range bins[i] {
			x0, x1 := fx(b.Points[0].X), fx(b.Points[1].X)
			w := (hi - lo) / 40
			if math.Abs(x0-(lo+float64(k)*w)) > 1e-9 || math.Abs(x1-x0-w) > 1e-9 {
				t.Fatalf("dataset %d: bin %d over [%v, %v], want width %v from %v", i, k, x0, x1, w, lo)
			}
			area += fy(b.Points[2].Y) * (x1 - x0)
		}
		if math.Abs(area-1) > 1e-9 {
			t.Errorf("dataset %d: histogram area %v, want 1", i, area)
		}
	}
	for i, m := range []float64{0, 1.5} {
		g := dashed(d, i)
		if len(g) != 1 || len(g[0].Points) != 200 {
			t.Fatalf("Gaussian at %v: %d strokes", m, len(g))
		}
		for k, pt := range g[0].Points {
			xv, yv := fx(pt.X), fy(pt.Y)
			if want := -4 + 9.5*float64(k)/199; math.Abs(xv-want) > 1e-9 {
				t.Fatalf("Gaussian at %v: sample %d at x = %v, want %v", m, k, xv, want)
			}
			if want := math.Exp(-(xv-m)*(xv-m)/2) / math.Sqrt(2*math.Pi); math.Abs(yv-want) > 1e-9 {
				t.Fatalf("Gaussian at %v: density %v at %v, want %v", m, yv, xv, want)
			}
		}
	}
	got := d.TextStrings()
	for _, want := range []string{"reward 0", "reward 1", "claim (mu 1.50)"} {
		if !contains(got, want) {
			t.Errorf("legend %q missing from %q", want, got)
		}
	}
	// The claim's legend entry is the Gaussian at mu's: one dashed
	// thumbnail, in colour 1.
	var thumbs []plottest.Mark
	for _, s := range d.Strokes {
		if len(s.Points) == 2 && plottest.SameDashes(s.Dashes, []vg.Length{vg.Points(3), vg.Points(2)}) {
			thumbs = append(thumbs, s)
		}
	}
	if len(thumbs) != 1 || !plottest.SameColor(thumbs[0].Color, plotutil.Color(1)) {
		t.Errorf("claim legend thumbnails %+v, want one in colour 1", thumbs)
	}

	// Releases beyond the claim's range widen the axis.
	r.Released0 = append(r.Released0, -6)
	r.Released1 = append(r.Released1, 7)
	if p, err = auditPanel(r); err != nil || p.X.Min != -6 || p.X.Max != 7 {
		t.Errorf("wide releases: x axis [%v, %v], %v", p.X.Min, p.X.Max, err)
	}
	// No claim (NaN): no Gaussians; the axis is the histograms'.
	r = rewardRow("x", math.NaN())
	if p, err = auditPanel(r); err != nil || p.X.Min != -1 || p.X.Max != 2.5 {
		t.Errorf("no claim: x axis [%v, %v], %v", p.X.Min, p.X.Max, err)
	}
	if d, _, _ := plottest.Draw(p, 12*vg.Centimeter, 8*vg.Centimeter); len(dashed(d, 0))+len(dashed(d, 1)) != 0 {
		t.Error("a claim drawn without a claimed mu")
	}
}

// TestAuditPanelSchedule: a schedule pair's panel (rounds of the first
// synchronisation) draws no claim; its histograms have one bin when the
// releases of both datasets span less than one round together, otherwise
// 40 over the dataset's own range (one if it is constant); an empty
// dataset draws nothing.
func TestAuditPanelSchedule(t *testing.T) {
	for _, c := range []struct {
		r0, r1 []float64
		bins   [2]int
	}{
		{[]float64{12, 12}, []float64{12, 12, 12}, [2]int{1, 1}},
		{[]float64{12, 12.5}, []float64{12.25}, [2]int{1, 1}},
		{[]float64{12, 12.5}, []float64{13}, [2]int{40, 1}},
		{[]float64{12, 14}, []float64{12, 13}, [2]int{40, 40}},
		{[]float64{12, 13}, nil, [2]int{40, 0}},
		{nil, []float64{12, 14}, [2]int{0, 40}},
	} {
		r := outputs.AuditRow{Config: "sched", Pair: "schedule", ClaimMu: 1, Released0: c.r0, Released1: c.r1}
		p, err := auditPanel(r)
		if err != nil {
			t.Fatal(err)
		}
		if p.X.Label.Text != "round of the first synchronisation" {
			t.Errorf("x label %q", p.X.Label.Text)
		}
		d, _, y := plottest.Draw(p, 12*vg.Centimeter, 8*vg.Centimeter)
		bins := histograms(d, y(0))
		if len(bins[0]) != c.bins[0] || len(bins[1]) != c.bins[1] {
			t.Errorf("releases %v, %v: %d and %d bins, want %v", c.r0, c.r1, len(bins[0]), len(bins[1]), c.bins)
		}
		if len(dashed(d, 0))+len(dashed(d, 1)) != 0 {
			t.Errorf("releases %v, %v: a claim drawn for a schedule pair", c.r0, c.r1)
		}
		got := d.TextStrings()
		for i, l := range []string{"norm 1/2", "norm 1"} {
			if contains(got, l) != (c.bins[i] > 0) {
				t.Errorf("releases %v, %v: legend %q", c.r0, c.r1, got)
			}
		}
	}
}

// TestAuditGrid: panels of 12 x 8 cm, one column for one configuration,
// two otherwise, filled row by row; 2 mm around the figure and 4 mm
// between panels: with identical panels the titles of neighbours lie
// (W - 4 mm + 4 mm) / 2 apart across, (H - 4 mm + 4 mm) / 2 down.
func TestAuditGrid(t *testing.T) {
	for n, want := range map[int][2]vg.Length{1: {12, 8}, 2: {24, 8}, 3: {24, 16}, 4: {24, 16}, 5: {24, 24}} {
		w, h := AuditSize(n)
		if w != want[0]*vg.Centimeter || h != want[1]*vg.Centimeter {
			t.Errorf("AuditSize(%d) = %v x %v, want %v x %v cm", n, w, h, want[0], want[1])
		}
	}
	if err := AuditPlot(plottest.NewCanvas(12*vg.Centimeter, 8*vg.Centimeter), nil); err == nil {
		t.Error("an audit figure of nothing drawn")
	}
	var rows []outputs.AuditRow
	for k := range 3 {
		rows = append(rows, rewardRow(fmt.Sprintf("config %d", k), 1.5))
	}
	w, h := AuditSize(3)
	c := plottest.NewCanvas(w, h)
	if err := AuditPlot(c, rows); err != nil {
		t.Fatal(err)
	}
	d := c.Drawing()
	at := map[string]vg.Point{}
	for _, tx := range d.Texts {
		if strings.HasPrefix(tx.String, "config ") {
			at[tx.String] = tx.Point
		}
	}
	if len(at) != 3 {
		t.Fatalf("panel titles %v", d.TextStrings())
	}
	across, down := (w-4*vg.Millimeter+4*vg.Millimeter)/2, (h-4*vg.Millimeter+4*vg.Millimeter)/2
	p0, p1, p2 := at["config 0"], at["config 1"], at["config 2"]
	if math.Abs(float64(p1.X-p0.X-across)) > 1e-9 || p1.Y != p0.Y {
		t.Errorf("config 1 at %v, config 0 at %v: want %v to the right", p1, p0, across)
	}
	if math.Abs(float64(p0.Y-p2.Y-down)) > 1e-9 || p2.X != p0.X {
		t.Errorf("config 2 at %v, config 0 at %v: want %v below", p2, p0, down)
	}
	// A release that is not a number is an error, not a figure.
	rows[1].Released1 = append(rows[1].Released1, math.NaN())
	if err := AuditPlot(plottest.NewCanvas(w, h), rows); err == nil {
		t.Error("a NaN release drawn")
	}
}

// TestSaveAudit: audit.png (at PNGDPI) and audit.svg of AuditSize.
func TestSaveAudit(t *testing.T) {
	dir := t.TempDir()
	rows := []outputs.AuditRow{rewardRow("config a", 1), rewardRow("config b", 2), rewardRow("config c", 3)}
	paths, err := SaveAudit(dir, rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 || paths[0] != filepath.Join(dir, "audit.png") || paths[1] != filepath.Join(dir, "audit.svg") {
		t.Fatalf("paths %v", paths)
	}
	f, err := os.Open(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	// 24 x 16 cm at 150 dpi.
	if err != nil || img.Bounds().Dx() != 1417 || img.Bounds().Dy() != 945 {
		t.Errorf("audit.png: %v %v", img.Bounds(), err)
	}
	svg, _ := os.ReadFile(paths[1])
	for _, want := range []string{"config a", "config b", "config c", "claim (mu 3.00)"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("audit.svg without %q", want)
		}
	}
	rows[2].Released0 = []float64{math.Inf(1)}
	if _, err := SaveAudit(t.TempDir(), rows); err == nil {
		t.Error("an infinite release drawn")
	}
}
