// Package plottest records what a gonum plot draws, so that a test can
// check a figure as its reader sees it (the lines, the filled areas, the
// text, and where they fall on the axes) without comparing images.
//
// A Canvas records the drawing calls; Drawing replays them as marks with
// the colour, width and dashes they are drawn with, in drawing order.
package plottest

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// Canvas is a recording canvas of a given size (a vg.CanvasSizer).
type Canvas struct {
	recorder.Canvas
	W, H vg.Length
}

// NewCanvas returns an empty recording canvas of size w x h.
func NewCanvas(w, h vg.Length) *Canvas { return &Canvas{W: w, H: h} }

// Size returns the canvas's size.
func (c *Canvas) Size() (w, h vg.Length) { return c.W, c.H }

// Mark is one stroked or filled path.
type Mark struct {
	Color  color.Color
	Width  vg.Length
	Dashes []vg.Length
	// Points are the path's vertices: the ends of its moves and lines
	// (a closing segment adds none), an arc's centre.
	Points []vg.Point
	// Radius is the radius of the path's last arc (a glyph), 0 without.
	Radius vg.Length
}

// Text is one string drawn.
type Text struct {
	String string
	Size   vg.Length
	// Point is where it is drawn, in the canvas's coordinates at the time
	// (rotated text, as a y axis label, is drawn in rotated ones).
	Point vg.Point
}

// Drawing is what was drawn, in drawing order.
type Drawing struct {
	Strokes, Fills []Mark
	Texts          []Text
}

// Drawing replays the recorded calls.
func (c *Canvas) Drawing() Drawing {
	type state struct {
		color  color.Color
		width  vg.Length
		dashes []vg.Length
	}
	var d Drawing
	cur := state{color: color.Black, width: 1}
	var stack []state
	mark := func(p vg.Path) Mark {
		m := Mark{Color: cur.color, Width: cur.width, Dashes: cur.dashes}
		for _, comp := range p {
			switch comp.Type {
			case vg.MoveComp, vg.LineComp:
				m.Points = append(m.Points, comp.Pos)
			case vg.ArcComp:
				m.Points = append(m.Points, comp.Pos)
				m.Radius = comp.Radius
			}
		}
		return m
	}
	for _, a := range c.Actions {
		switch a := a.(type) {
		case *recorder.SetColor:
			cur.color = a.Color
		case *recorder.SetLineWidth:
			cur.width = a.Width
		case *recorder.SetLineDash:
			cur.dashes = a.Dashes
		case *recorder.Push:
			stack = append(stack, cur)
		case *recorder.Pop:
			cur, stack = stack[len(stack)-1], stack[:len(stack)-1]
		case *recorder.Stroke:
			d.Strokes = append(d.Strokes, mark(a.Path))
		case *recorder.Fill:
			d.Fills = append(d.Fills, mark(a.Path))
		case *recorder.FillString:
			d.Texts = append(d.Texts, Text{String: a.String, Size: a.Size, Point: a.Point})
		}
	}
	return d
}

// Draw draws p on a recording canvas of size w x h and returns what it
// drew and p's data-to-canvas transforms on it: where a point (x, y) of
// the data falls in the drawing.
func Draw(p *plot.Plot, w, h vg.Length) (d Drawing, x, y func(float64) vg.Length) {
	c := NewCanvas(w, h)
	dc := draw.New(c)
	p.Draw(dc)
	da := p.DataCanvas(dc)
	x, y = p.Transforms(&da)
	return c.Drawing(), x, y
}

// SameColor says whether a and b are the same colour (alpha-premultiplied).
func SameColor(a, b color.Color) bool {
	if a == nil || b == nil {
		return a == b
	}
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}

// SameDashes says whether two dash patterns are the same (nil and empty
// are both a solid line).
func SameDashes(a, b []vg.Length) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TextStrings returns the strings drawn, in order.
func (d Drawing) TextStrings() []string {
	var out []string
	for _, t := range d.Texts {
		out = append(out, t.String)
	}
	return out
}
