package plottest

import (
	"image/color"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TestDrawing: a mark carries the colour, width and dashes in force when
// it is drawn (Pop restores them), its vertices and an arc's radius;
// texts keep their size and point.
func TestDrawing(t *testing.T) {
	c := NewCanvas(100, 50)
	red, blue := color.RGBA{R: 255, A: 255}, color.RGBA{B: 255, A: 255}
	c.SetColor(red)
	c.SetLineWidth(2)
	c.Push()
	c.SetColor(blue)
	c.SetLineDash([]vg.Length{3, 1}, 0)
	var line vg.Path
	line.Move(vg.Point{X: 1, Y: 2})
	line.Line(vg.Point{X: 3, Y: 4})
	line.Close()
	c.Stroke(line)
	c.Pop()
	var disc vg.Path
	disc.Move(vg.Point{X: 12, Y: 10})
	disc.Arc(vg.Point{X: 10, Y: 10}, 2, 0, 6.3)
	c.Fill(disc)
	sty := draw.TextStyle{Color: red, Font: plot.DefaultFont, Handler: plot.DefaultTextHandler}
	sty.Font.Size = 9
	dc := draw.New(c)
	dc.FillText(sty, vg.Point{X: 5, Y: 6}, "label")

	d := c.Drawing()
	if len(d.Strokes) != 1 || len(d.Fills) != 1 || len(d.Texts) != 1 {
		t.Fatalf("%+v", d)
	}
	s := d.Strokes[0]
	if !SameColor(s.Color, blue) || s.Width != 2 || !SameDashes(s.Dashes, []vg.Length{3, 1}) ||
		len(s.Points) != 2 || s.Points[1] != (vg.Point{X: 3, Y: 4}) || s.Radius != 0 {
		t.Errorf("stroke %+v", s)
	}
	f := d.Fills[0]
	if !SameColor(f.Color, red) || len(f.Dashes) != 0 || f.Points[len(f.Points)-1] != (vg.Point{X: 10, Y: 10}) || f.Radius != 2 {
		t.Errorf("fill %+v", f)
	}
	// Left and bottom aligned: drawn from the point, its baseline raised
	// by the font's descent.
	if tx := d.Texts[0]; tx.String != "label" || tx.Size != 9 || tx.Point.X != 5 || tx.Point.Y <= 6 || tx.Point.Y > 6+9 {
		t.Errorf("text %+v", tx)
	}
	if w, h := c.Size(); w != 100 || h != 50 {
		t.Errorf("size %v x %v", w, h)
	}
	if SameColor(red, blue) || !SameColor(nil, nil) || SameColor(red, nil) || SameDashes(nil, []vg.Length{1}) || !SameDashes(nil, []vg.Length{}) {
		t.Error("SameColor or SameDashes")
	}
}

// TestDraw: Draw's transforms place a data point where the plot draws it.
func TestDraw(t *testing.T) {
	p := plot.New()
	s, err := plotter.NewScatter(plotter.XYs{{X: 1, Y: 1}, {X: 3, Y: 9}})
	if err != nil {
		t.Fatal(err)
	}
	s.GlyphStyle.Shape = draw.CircleGlyph{}
	p.Add(s)
	d, x, y := Draw(p, 200, 100)
	if len(d.Fills) < 2 {
		t.Fatalf("fills %+v", d.Fills)
	}
	last := d.Fills[len(d.Fills)-1]
	if c := last.Points[len(last.Points)-1]; c.X != x(3) || c.Y != y(9) || x(1) >= x(3) || y(1) >= y(9) {
		t.Errorf("disc at %v, transforms give (%v, %v)", c, x(3), y(9))
	}
}
