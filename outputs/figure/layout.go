package figure

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"image/color"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
)

// MaxLegend is the most legend entries (curves) a panel of SaveDir
// holds: a facet with more configurations is split over several panels,
// none left out.
const MaxLegend = 10

// LogXDecades is how many decades the horizons of a figure must span
// (the largest T over the smallest) for SaveDir to draw a logarithmic
// round axis by itself.
const LogXDecades = 2

// palette gives an algorithm its colour (AlgorithmColor): Tableau 10's
// colours, told apart in print and by most colour-blind readers, then two
// dark ones for the eleventh and twelfth algorithm of a family (the
// linear family has eleven since DisLinUCB).
var palette = []color.Color{
	color.NRGBA{0x1f, 0x77, 0xb4, 0xff}, // blue
	color.NRGBA{0xd6, 0x27, 0x28, 0xff}, // red
	color.NRGBA{0x2c, 0xa0, 0x2c, 0xff}, // green
	color.NRGBA{0xff, 0x7f, 0x0e, 0xff}, // orange
	color.NRGBA{0x94, 0x67, 0xbd, 0xff}, // purple
	color.NRGBA{0x8c, 0x56, 0x4b, 0xff}, // brown
	color.NRGBA{0xe3, 0x77, 0xc2, 0xff}, // pink
	color.NRGBA{0x7f, 0x7f, 0x7f, 0xff}, // grey
	color.NRGBA{0xbc, 0xbd, 0x22, 0xff}, // olive
	color.NRGBA{0x17, 0xbe, 0xcf, 0xff}, // cyan
	color.NRGBA{0x1b, 0x1b, 0x1b, 0xff}, // black
	color.NRGBA{0x39, 0x3b, 0x79, 0xff}, // navy
}

// AlgorithmColor is the colour of an algorithm's curves in every panel
// and every figure: a registered algorithm's place among the algorithms
// of its family (registry order) picks a palette colour, so that no two
// algorithms of one family share one (families have at most twelve); an
// unregistered name is hashed onto the palette.
func AlgorithmColor(alg string) color.Color {
	if a, err := registry.Lookup(alg); err == nil {
		i := 0
		for _, b := range registry.Algorithms() {
			if b == a {
				break
			}
			if b.Family == a.Family {
				i++
			}
		}
		return palette[i%len(palette)]
	}
	h := fnv.New32a()
	h.Write([]byte(alg))
	return palette[h.Sum32()%uint32(len(palette))]
}

// variantStyle is the line of an algorithm's variant-th configuration in
// a figure: the algorithm's colour with a dash pattern, then, once the
// dash patterns are used up, lighter.
func variantStyle(alg string, variant int) (color.Color, []vg.Length) {
	c := AlgorithmColor(alg)
	dash := dashes[variant%len(dashes)]
	if k := variant / len(dashes); k > 0 {
		c = lighten(c, min(0.6, 0.3*float64(k)))
	}
	return c, dash
}

// dashes are the line patterns of an algorithm's configurations, solid
// first.
var dashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(2)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(6), vg.Points(2), vg.Points(1), vg.Points(2)},
	{vg.Points(10), vg.Points(3)},
	{vg.Points(1), vg.Points(1.5)},
}

// lighten blends c with white by the fraction f.
func lighten(c color.Color, f float64) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8(float64(v>>8) + float64(f*(255-float64(v>>8)))) }
	return color.NRGBA{mix(r), mix(g), mix(b), 0xff}
}

// AssignVariants numbers the configurations of each algorithm across all
// the panels of a figure (Series.Variant, by legend label in legend
// order), so that one configuration has one line style in every panel.
func AssignVariants(panels []Panel) {
	type key struct{ alg, label string }
	var keys []key
	seen := map[key]bool{}
	for _, p := range panels {
		for _, s := range p.Series {
			if k := (key{s.Algorithm, s.Label}); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	slices.SortFunc(keys, func(a, b key) int { return legendOrder(a.alg, a.label, "", b.alg, b.label, "") })
	variant := map[key]int{}
	count := map[string]int{}
	for _, k := range keys {
		variant[k] = count[k.alg]
		count[k.alg]++
	}
	for i := range panels {
		for j := range panels[i].Series {
			s := &panels[i].Series[j]
			s.Variant = variant[key{s.Algorithm, s.Label}]
		}
	}
}

// SweepTitle names every sweep of the runs, one a line, in byte order.
func SweepTitle(runs []outputs.RunRecord) string {
	var names []string
	for _, r := range runs {
		if r.Sweep != "" && !slices.Contains(names, r.Sweep) {
			names = append(names, r.Sweep)
		}
	}
	slices.Sort(names)
	return strings.Join(names, "\n")
}

// AutoOver is the aggregation SaveDir uses when none is asked for:
// OverInstance when the done runs hold two instances of one class (that
// differ only in the seed they are drawn from), else OverSeed.
func AutoOver(runs []outputs.RunRecord) string {
	inst := map[string]string{}
	for _, r := range runs {
		if r.Status != outputs.StatusDone {
			continue
		}
		id := cmp.Or(r.InstanceHash, r.InstanceName)
		class := r.Family + "\x00" + registry.InstanceClass(r.InstanceName)
		if prev, ok := inst[class]; ok && prev != id {
			return OverInstance
		}
		inst[class] = id
	}
	return OverSeed
}

// HorizonsSpan reports whether the horizons of the done runs span at
// least LogXDecades decades.
func HorizonsSpan(runs []outputs.RunRecord) bool {
	lo, hi := 0, 0
	for _, r := range runs {
		if r.Status != outputs.StatusDone || r.T <= 0 {
			continue
		}
		if lo == 0 || r.T < lo {
			lo = r.T
		}
		hi = max(hi, r.T)
	}
	span := 1
	for range LogXDecades {
		span *= 10
	}
	return lo > 0 && hi >= lo*span
}

// facet is the runs of one panel row of SaveDir: one family, instance
// class and horizon.
type facet struct {
	family, class string
	horizon       int
	names         []string // the instance names of its runs, in order of appearance
	runs          []outputs.RunRecord
}

// facets splits the done runs by family (registry order), instance class
// and horizon (ascending).
func facets(runs []outputs.RunRecord) []*facet {
	byKey := map[string]*facet{}
	var out []*facet
	for _, r := range runs {
		if r.Status != outputs.StatusDone {
			continue
		}
		class := registry.InstanceClass(r.InstanceName)
		k := r.Family + "\x00" + class + "\x00" + strconv.Itoa(r.T)
		f := byKey[k]
		if f == nil {
			f = &facet{family: r.Family, class: class, horizon: r.T}
			byKey[k] = f
			out = append(out, f)
		}
		if !slices.Contains(f.names, r.Instance) {
			f.names = append(f.names, r.Instance)
		}
		f.runs = append(f.runs, r)
	}
	famOrder := func(name string) int {
		for i, f := range registry.Families() {
			if f.Name == name {
				return i
			}
		}
		return len(registry.Families())
	}
	first := func(f *facet) string { return slices.MinFunc(f.names, naturalCompare) }
	slices.SortStableFunc(out, func(a, b *facet) int {
		return cmp.Or(cmp.Compare(famOrder(a.family), famOrder(b.family)), strings.Compare(a.family, b.family),
			naturalCompare(first(a), first(b)), strings.Compare(a.class, b.class), cmp.Compare(a.horizon, b.horizon))
	})
	return out
}

// facetTitles names each facet by what sets it apart from the others:
// its family (when there are several), its instance class (with byName
// the name of its instance when it has one; else the words of its class
// not common to all) and its horizon (when there are several).
func facetTitles(fs []*facet, byName bool) []string {
	fams, horizons, classes := map[string]bool{}, map[int]bool{}, []string{}
	for _, f := range fs {
		fams[f.family] = true
		horizons[f.horizon] = true
		if !slices.Contains(classes, f.class) {
			classes = append(classes, f.class)
		}
	}
	words := classTitles(classes)
	out := make([]string, len(fs))
	for i, f := range fs {
		var parts []string
		if len(fams) > 1 {
			parts = append(parts, f.family)
		}
		if len(classes) > 1 {
			if byName && len(f.names) == 1 && f.names[0] != "" {
				parts = append(parts, f.names[0])
			} else if w := words[f.class]; w != "" {
				parts = append(parts, w)
			}
		}
		if len(horizons) > 1 {
			parts = append(parts, "T="+strconv.Itoa(f.horizon))
		}
		out[i] = strings.Join(parts, ", ")
	}
	return out
}

// FacetPanels builds the panels SaveDir draws: a row of panels per
// family and instance class; in a row, for each horizon (ascending), one
// panel (over seeds) or one per eps (over instances,
// BuildOverInstances); a panel of more
// than MaxLegend curves split in order over several, titled "(1 of 2)"
// and so on. Panels carry their grid place (Row, Col: a row wraps after
// maxCols panels) and the title of their facet; Variant is set
// (AssignVariants).
func FacetPanels(runs []outputs.RunRecord, curves []outputs.CurvePoint, metric, over string, maxCols int) ([]Panel, error) {
	// The done runs that have the metric (an error if none has): a
	// family that does not produce it leaves no empty panel.
	done, _, err := doneRuns(runs, curves, metric)
	if err != nil {
		return nil, err
	}
	fs := facets(done)
	titles := facetTitles(fs, over != OverInstance)
	var out []Panel
	row, col := 0, 0
	for i, f := range fs {
		// A row per family and instance class: its horizons side by side.
		if i > 0 && (f.family != fs[i-1].family || f.class != fs[i-1].class) && col > 0 {
			row, col = row+1, 0
		}
		var ps []Panel
		switch over {
		case OverInstance:
			built, err := BuildOverInstances(f.runs, curves, metric)
			if err != nil {
				return nil, err
			}
			ps = built
		default:
			series, err := Build(f.runs, curves, metric)
			if err != nil {
				return nil, err
			}
			if len(series) > 0 {
				ps = []Panel{{Series: series}}
			}
		}
		for _, p := range ps {
			for k, part := range splitSeries(p.Series, MaxLegend) {
				title := joinTitle(titles[i], p.Title)
				if n := len(p.Series); n > MaxLegend {
					title = joinTitle(title, fmt.Sprintf("(%d of %d)", k+1, (n+MaxLegend-1)/MaxLegend))
				}
				if col == maxCols {
					row, col = row+1, 0
				}
				out = append(out, Panel{Title: title, Row: row, Col: col, Series: part})
				col++
			}
		}
	}
	AssignVariants(out)
	return out, nil
}

// splitSeries cuts series into ceil(n/most) runs of consecutive series,
// of sizes that differ by at most one.
func splitSeries(series []Series, most int) [][]Series {
	parts := (len(series) + most - 1) / most
	if parts <= 1 {
		return [][]Series{series}
	}
	var out [][]Series
	start := 0
	for k := range parts {
		end := start + (len(series)-start)/(parts-k)
		out = append(out, series[start:end])
		start = end
	}
	return out
}

func joinTitle(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + ", " + b
}

// SavePanels draws panels in a grid, each at its Row and Col (an empty
// cell is left blank) and of size o.Width x o.Height (default 16 x 10
// cm), on its own axes: the panel's title, its LogX and LogY (o.LogX and
// o.LogY are not consulted), the y label of o.Metric, one line per
// series in the colour of its algorithm (AlgorithmColor) and the dashes
// of its Variant, a band of one standard error, and its legend to the
// right of its axes, never over the data. title ("": none) is drawn
// above the grid, one line per line of it. It writes DIR/BASE.png and
// DIR/BASE.svg atomically and returns their paths. A single panel
// without a title takes title as its own.
//
// This is the API for figures in a paper's layout: build each panel's
// series with Build or BuildOverInstances over the runs it shows, set
// Title, Row, Col, LogX and LogY, call AssignVariants, then SavePanels.
func SavePanels(dir, base, title string, panels []Panel, o Options) ([]string, error) {
	if len(panels) == 0 {
		return nil, fmt.Errorf("figure: no panel to draw in %s", base)
	}
	w, h := panelSize(o)
	grid, err := emptyGrid(len(panels), func(i int) (int, int, string) {
		return panels[i].Row, panels[i].Col, panels[i].Title
	}, "panel", w, h)
	if err != nil {
		return nil, err
	}
	for _, pn := range panels {
		po := o
		po.Title, po.LogX, po.LogY = pn.Title, pn.LogX, pn.LogY
		if len(panels) == 1 && pn.Title == "" {
			po.Title, title = title, ""
		}
		p, err := Draw(pn.Series, po)
		if err != nil {
			return nil, err
		}
		grid[pn.Row][pn.Col] = newPanelPlot(p)
	}
	return saveGrid(grid, title, dir, base, vg.Length(len(grid[0]))*w, vg.Length(len(grid))*h)
}

// panelSize is a panel's width and height (default 16 x 10 cm).
func panelSize(o Options) (w, h vg.Length) {
	w, h = o.Width, o.Height
	if w == 0 {
		w = 16 * vg.Centimeter
	}
	if h == 0 {
		h = 10 * vg.Centimeter
	}
	return w, h
}

// panelPlot is a plot whose legend is drawn beside its axes, not on them.
type panelPlot struct {
	p      *plot.Plot
	legend plot.Legend
}

// newPanelPlot takes p's legend out of its axes.
func newPanelPlot(p *plot.Plot) *panelPlot {
	pp := &panelPlot{p: p, legend: p.Legend}
	p.Legend = plot.NewLegend()
	pp.legend.Top, pp.legend.Left = true, true
	return pp
}

// legendGap is the space between a panel's axes and its legend.
const legendGap = 2 * vg.Millimeter

// Draw draws the plot in c, its legend in a strip on the right of c (its
// top level with the top of the axes, a legendGap from the axes and from
// c's right edge) that takes at most half of c's width.
func (pp *panelPlot) Draw(c draw.Canvas) {
	half := vg.Length(float64((c.Max.X - c.Min.X) / 2)) // x/2 compiles to x*0.5: rounded here, never fused
	lw := pp.legend.Rectangle(c).Size().X
	if lw+2*legendGap > half {
		// Too long labels: a smaller font, never a cut one.
		f := &pp.legend.TextStyle.Font
		f.Size = max(vg.Points(4), f.Size*(half-2*legendGap-pp.legend.ThumbnailWidth)/(lw-pp.legend.ThumbnailWidth))
		lw = pp.legend.Rectangle(c).Size().X
	}
	if lw > 0 {
		lw += 2 * legendGap
	}
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	axes := c
	axes.Max.X -= lw
	pp.p.Draw(axes)
	if lw == 0 {
		return
	}
	strip := c
	strip.Min.X = c.Max.X - lw + legendGap
	strip.Max.X = c.Max.X - legendGap
	top := pp.p.DataCanvas(axes).Max.Y
	strip.Max.Y = top
	pp.legend.Draw(strip)
}

// PanelsBy builds a figure of one panel per value of the label field key
// (a key of registry.Fields: "eps", "algorithm", "instance", ...) among
// the done runs, numbers in numeric order ("eps=0.0001" before
// "eps=0.001" before "eps=1"), other values in natural order
// ("dubey-d8" before "dubey-d16"), algorithms in registry order, each panel titled "key=value" (for "algorithm", the
// algorithm's display name) and holding Build's series of its runs; the
// runs without the field (a non-private algorithm has no eps) are drawn
// in every panel. Panels are placed in rows of at most cols (0: one
// row); Variant is set (AssignVariants). A key no done run has is an
// error naming the keys they have.
func PanelsBy(runs []outputs.RunRecord, curves []outputs.CurvePoint, metric, key string, cols int) ([]Panel, error) {
	var values []string
	var shared []outputs.RunRecord
	byValue := map[string][]outputs.RunRecord{}
	keys := map[string]bool{}
	for _, r := range runs {
		if r.Status != outputs.StatusDone {
			continue
		}
		v, ok := "", false
		for _, f := range registry.Fields(registry.FromRecord(&r)) {
			keys[f.Key] = true
			if f.Key == key {
				v, ok = f.Value, true
			}
		}
		if !ok {
			shared = append(shared, r)
			continue
		}
		if _, seen := byValue[v]; !seen {
			values = append(values, v)
		}
		byValue[v] = append(byValue[v], r)
	}
	if len(values) == 0 {
		var have []string
		for k := range keys {
			have = append(have, k)
		}
		slices.Sort(have)
		return nil, fmt.Errorf("figure: panels by %q: no done run has that field (they have: %s)", key, strings.Join(have, ", "))
	}
	slices.SortFunc(values, func(a, b string) int {
		if key == "algorithm" {
			return cmp.Or(cmp.Compare(registry.Order(a), registry.Order(b)), strings.Compare(a, b))
		}
		x, errA := strconv.ParseFloat(a, 64)
		y, errB := strconv.ParseFloat(b, 64)
		if errA == nil && errB == nil {
			return cmp.Compare(x, y)
		}
		return naturalCompare(a, b)
	})
	if cols <= 0 {
		cols = len(values)
	}
	var out []Panel
	for i, v := range values {
		series, err := Build(append(slices.Clone(byValue[v]), shared...), curves, metric)
		if err != nil {
			return nil, err
		}
		title := key + "=" + v
		if key == "algorithm" {
			title = registry.Display(v)
		}
		out = append(out, Panel{Title: title, Row: i / cols, Col: i % cols, Series: series})
	}
	AssignVariants(out)
	return out, nil
}
