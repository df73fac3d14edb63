package figure

import (
	"fmt"
	"io"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/fedbandit/fedbandit/outputs"
)

// AuditPlot draws one panel per audited configuration on c (of the size
// AuditSize gives): histograms of the releases under the two
// neighbouring datasets. For the reward pair the releases are whitened
// projections and the panel also draws the claim: the unit Gaussians
// centred at 0 and at the claimed mu (dashed). A release distribution
// further from 0 than the claim's is a leak the accountant does not
// record. For the schedule pair the releases are the rounds of the first
// synchronisation. A release that is not finite is an error.
func AuditPlot(c vg.CanvasSizer, rows []outputs.AuditRow) error {
	if len(rows) == 0 {
		return fmt.Errorf("figure: no audited configuration")
	}
	cols, nrows := auditGrid(len(rows))
	plots := make([][]*plot.Plot, nrows)
	for i := range plots {
		plots[i] = make([]*plot.Plot, cols)
	}
	for k, r := range rows {
		p, err := auditPanel(r)
		if err != nil {
			return err
		}
		plots[k/cols][k%cols] = p
	}
	tiles := draw.Tiles{Rows: nrows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(plots, tiles, draw.New(c))
	for i := range plots {
		for j, p := range plots[i] {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	return nil
}

// AuditSize is the size of the audit figure of n configurations: panels
// of 12 x 8 cm, two per row.
func AuditSize(n int) (w, h vg.Length) {
	cols, rows := auditGrid(n)
	return vg.Length(cols) * 12 * vg.Centimeter, vg.Length(rows) * 8 * vg.Centimeter
}

func auditGrid(n int) (cols, rows int) {
	cols = 2
	if n == 1 {
		cols = 1
	}
	return cols, (n + cols - 1) / cols
}

func auditPanel(r outputs.AuditRow) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = r.Config
	p.Title.TextStyle.Font.Size = vg.Points(8)
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(7)
	p.Y.Label.Text = "density"
	labels := [2]string{"reward 0", "reward 1"}
	if r.Pair == "schedule" {
		labels = [2]string{"norm 1/2", "norm 1"}
		p.X.Label.Text = "round of the first synchronisation"
	} else {
		p.X.Label.Text = "whitened release (projection)"
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range [][]float64{r.Released0, r.Released1} {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("figure: audit of %s: a release is %v", r.Config, x)
			}
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	for i, v := range [][]float64{r.Released0, r.Released1} {
		if len(v) == 0 {
			continue
		}
		bins := 40
		if hi-lo < 1 {
			bins = 1 // a constant release (a fixed schedule)
		}
		hs, err := plotter.NewHist(plotter.Values(v), bins)
		if err != nil {
			return nil, err
		}
		hs.Normalize(1)
		c := plotutil.Color(i)
		hs.LineStyle.Color = c
		hs.FillColor = nil
		p.Add(hs)
		p.Legend.Add(labels[i], hs)
	}
	if r.Pair != "schedule" && !math.IsNaN(r.ClaimMu) {
		for i, m := range []float64{0, r.ClaimMu} {
			f := plotter.NewFunction(func(x float64) float64 { return math.Exp(-(x-m)*(x-m)/2) / math.Sqrt(2*math.Pi) })
			f.Color = plotutil.Color(i)
			f.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
			f.Samples = 200
			p.Add(f)
			if i == 1 {
				p.Legend.Add(fmt.Sprintf("claim (mu %.2f)", r.ClaimMu), f)
			}
		}
		p.X.Min, p.X.Max = math.Min(lo, -4), math.Max(hi, r.ClaimMu+4)
	}
	return p, nil
}

// SaveAudit writes DIR/audit.png and DIR/audit.svg of rows atomically and
// returns their paths.
func SaveAudit(dir string, rows []outputs.AuditRow) ([]string, error) {
	w, h := AuditSize(len(rows))
	png := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PNGDPI))
	svg := vgsvg.New(w, h)
	var paths []string
	for _, out := range []struct {
		ext string
		c   vg.CanvasSizer
		wt  io.WriterTo
	}{{"png", png, vgimg.PngCanvas{Canvas: png}}, {"svg", svg, svg}} {
		if err := AuditPlot(out.c, rows); err != nil {
			return nil, err
		}
		path := filepath.Join(dir, "audit."+out.ext)
		if err := outputs.WriteFileAtomic(path, func(f io.Writer) error { _, err := out.wt.WriteTo(f); return err }); err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}
