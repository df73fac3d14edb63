// Package figure draws the paper's figure from a sweep's tables:
// time-average group regret R_M(t)/t against the round t, one line per
// configuration (the runs that differ only in their seed) with a band of
// plus or minus one standard error of the mean over seeds.
//
// SaveDir draws a results directory as it is, faceted (FacetPanels).
// A figure in a paper's layout is built panel by panel: Build (or
// BuildOverInstances) over the runs a panel shows gives its Series; a
// Panel sets its Title, grid place (Row, Col) and log axes (LogX, LogY);
// AssignVariants gives each configuration one line style over all the
// panels; SavePanels writes the PNG and SVG. Colours follow the
// algorithm (AlgorithmColor), the same in every figure.
package figure

import (
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
)

// Metrics.
const (
	// Pseudo plots time_avg_pseudo_regret (regret of the means).
	Pseudo = "pseudo"
	// Realised plots time_avg_realised_regret (observed rewards), what the
	// published code plotted.
	Realised = "realised"
)

// PNGDPI is the resolution of the PNG figure.
const PNGDPI = 150

// Options controls a figure.
type Options struct {
	// Metric is the name of a curve metric (outputs.Metrics; "" is the
	// first, Pseudo).
	Metric string
	// LogX and LogY select logarithmic axes (non-positive points are
	// left out on a log axis).
	LogX, LogY bool
	// LinearX keeps the round axis linear when SaveDir would make it
	// logarithmic (horizons spanning LogXDecades decades or more).
	LinearX bool
	// Title is the figure title (default: SweepTitle, every sweep of the
	// directory).
	Title string
	// Over is what a curve averages over: OverSeed, OverInstance (one
	// panel per eps), or "" for AutoOver's choice.
	Over string
	// Width and Height of each panel (default 16 cm x 10 cm), its legend
	// included.
	Width, Height vg.Length
}

// Series is the mean curve of one configuration.
type Series struct {
	GroupID string
	// Label names the configuration by the fields that differ between the
	// configurations of the figure (e.g. "LDP-FedLinUCB (eps=0.2)").
	Label string
	// N is the number of runs (seeds) averaged.
	N      int
	Rounds []float64
	// Mean and SE are the mean and the standard error of the mean
	// (sample standard deviation / sqrt(N); 0 when N = 1) per round; over
	// instances (BuildOverInstances), of the Instances instance means.
	Mean, SE []float64
	// Instances is the number of instances averaged by
	// BuildOverInstances (0 from Build, which averages seeds only).
	Instances int
	// Algorithm is the registry name of the configuration's algorithm:
	// it picks the colour (AlgorithmColor).
	Algorithm string
	// Variant numbers the configurations of one algorithm in a figure:
	// it picks the dashes (AssignVariants; Build numbers them in its
	// legend order).
	Variant int
}

// Build groups the done runs by configuration and averages their curves.
// Series are ordered by algorithm (fedlinucb, ldp, sdp-amp), then by the
// label. Runs of one group whose checkpoints differ from the group's first
// run are an error.
func Build(runs []outputs.RunRecord, curves []outputs.CurvePoint, metric string) ([]Series, error) {
	done, byRun, err := doneRuns(runs, curves, metric)
	if err != nil {
		return nil, err
	}
	type group struct {
		rec  outputs.RunRecord
		runs [][]outputs.CurvePoint
	}
	groups := map[string]*group{}
	for _, r := range done {
		g := groups[r.GroupID]
		if g == nil {
			g = &group{rec: r}
			groups[r.GroupID] = g
		}
		g.runs = append(g.runs, byRun[r.RunID])
	}
	labels := Labels(done)
	var out []Series
	for id, g := range groups {
		first := g.runs[0]
		s := Series{GroupID: id, Label: labels[id], N: len(g.runs), Algorithm: g.rec.Algorithm}
		for i, p := range first {
			vals := make([]float64, len(g.runs))
			for j, c := range g.runs {
				if len(c) != len(first) || c[i].Round != p.Round {
					return nil, fmt.Errorf("figure: runs of group %s have different checkpoints (run %s)", id, c[0].RunID)
				}
				vals[j] = value(c[i], metric)
			}
			m, se := meanSE(vals)
			s.Rounds = append(s.Rounds, float64(p.Round))
			s.Mean = append(s.Mean, m)
			s.SE = append(s.SE, se)
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Series) int {
		return legendOrder(groups[a.GroupID].rec.Algorithm, a.Label, a.GroupID, groups[b.GroupID].rec.Algorithm, b.Label, b.GroupID)
	})
	AssignVariants([]Panel{{Series: out}})
	return out, nil
}

// legendOrder compares two curves for a legend: by the registry's order
// of their algorithms (unregistered ones last, by name), then by the
// natural order of their labels, then by their keys.
func legendOrder(algA, labelA, keyA, algB, labelB, keyB string) int {
	return cmp.Or(
		cmp.Compare(registry.Order(algA), registry.Order(algB)),
		strings.Compare(algA, algB),
		naturalCompare(labelA, labelB),
		strings.Compare(keyA, keyB),
	)
}

// NaturalCompare is the order of legend labels (naturalCompare), for
// the figures drawn outside this package (the fits of outputs/scaling).
func NaturalCompare(a, b string) int { return naturalCompare(a, b) }

// naturalCompare orders strings with their runs of digits compared as
// numbers ("M=30" before "M=100"; after a decimal point as the digits of
// a fraction: "eps=0.0001" before "eps=0.001"), the rest byte by byte.
func naturalCompare(a, b string) int {
	frac := false // the last byte compared was a decimal point after digits
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 && frac {
			if c := strings.Compare(strings.TrimRight(a[:da], "0"), strings.TrimRight(b[:db], "0")); c != 0 {
				return c
			}
			a, b, frac = a[da:], b[db:], false
			continue
		}
		if da > 0 && db > 0 {
			frac = len(a) > da && len(b) > db && a[da] == '.' && b[db] == '.'
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) - len(nb)
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		if a[0] != '.' {
			frac = false
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

// digitRun is the length of the run of ASCII digits at the start of s.
func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// meanSE returns the mean and the standard error of the mean (sample
// standard deviation over sqrt(n); 0 for n = 1).
func meanSE(v []float64) (mean, se float64) {
	n := float64(len(v))
	for _, x := range v {
		mean += x
	}
	mean /= n
	if len(v) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range v {
		ss += float64((x - mean) * (x - mean))
	}
	return mean, math.Sqrt(ss/(n-1)) / math.Sqrt(n)
}

// Labels names each group (by GroupID) by its algorithm and the fields
// of its configuration (registry.Fields, the one labelling) that take
// more than one value among the runs, in the paper's style:
// "LDP-FedLinUCB (eps=0.2)". A legend leaves out the beta_t constants,
// the reward clamp and the checkpoint spacing (set once per sweep), and
// every key an algorithm does not use; an algorithm's own parameters
// (explore, sync_threshold, S, ...) are shown when they vary among that
// algorithm's runs (a default that differs between two algorithms, as
// mab's growth, is said by the algorithm's name).
func Labels(runs []outputs.RunRecord) map[string]string {
	fields := make([][]registry.Field, len(runs))
	// The key under which a field's values are compared: the field's key,
	// or the algorithm and the key for an algorithm's own parameter.
	scope := func(alg, key string) string {
		if a, err := registry.Lookup(alg); err == nil {
			for _, p := range a.Params {
				if p.Key == key {
					return alg + "\x00" + key
				}
			}
		}
		return key
	}
	for i := range runs {
		for _, f := range registry.Fields(registry.FromRecord(&runs[i])) {
			if !legendSkips[f.Key] {
				fields[i] = append(fields[i], f)
			}
		}
	}
	vals := map[string]map[string]bool{}
	for i, fs := range fields {
		for _, f := range fs {
			k := scope(runs[i].Algorithm, f.Key)
			if vals[k] == nil {
				vals[k] = map[string]bool{}
			}
			vals[k][f.Value] = true
		}
	}
	varying := func(alg, key string) bool { return len(vals[scope(alg, key)]) > 1 }
	labels := map[string]string{}
	for i := range runs {
		r := &runs[i]
		if _, ok := labels[r.GroupID]; ok {
			continue
		}
		var parts []string
		for _, f := range fields[i] {
			if varying(r.Algorithm, f.Key) {
				parts = append(parts, f.Key+"="+f.Value)
			}
		}
		l := registry.Display(r.Algorithm)
		if r.Linear != nil && r.Linear.Lazy && !varying(r.Algorithm, "lazy") {
			l += " lazy"
		}
		if len(parts) > 0 {
			l += " (" + strings.Join(parts, ", ") + ")"
		}
		labels[r.GroupID] = l
	}
	// Two groups with the same label differ in a field not listed: most
	// often their instances, of one name but other descriptions (two
	// sweeps into one directory): add the words of the descriptions that
	// differ ("gap=0.1"; attack round 3, U14; a dataset ingested again
	// shows as its description's data= word, ingest.DataTag: attack
	// round 4, R4-22), and where descriptions are alike the instances'
	// content hashes that differ (contentTag); else their group ids, so
	// that no two lines share a legend entry.
	desc, data := map[string]string{}, map[string]string{}
	for i := range runs {
		desc[runs[i].GroupID], data[runs[i].GroupID] = runs[i].InstanceName, runs[i].InstanceHash
	}
	same := map[string][]string{}
	for id, l := range labels {
		same[l] = append(same[l], id)
	}
	for l, ids := range same {
		if len(ids) < 2 {
			continue
		}
		var classes []string
		for _, id := range ids {
			classes = append(classes, desc[id])
		}
		words := classTitles(classes)
		// The instance hashes among the groups of one description.
		hashes := contents{}
		for _, id := range ids {
			hashes.add(desc[id], data[id])
		}
		suffix, distinct := map[string]string{}, map[string]bool{}
		for _, id := range ids {
			var s []string
			if w := words[desc[id]]; w != "" {
				s = append(s, w)
			}
			if hashes.varied(desc[id]) {
				s = append(s, contentTag(data[id]))
			}
			suffix[id] = strings.Join(s, ", ")
			distinct[suffix[id]] = true
		}
		for _, id := range ids {
			if w := suffix[id]; len(distinct) == len(ids) && w != "" {
				labels[id] = l + " [" + w + "]"
			} else {
				labels[id] = l + " [" + id[:min(8, len(id))] + "]"
			}
		}
	}
	return labels
}

// legendSkips are the label fields a legend leaves out: the algorithm
// (its display name leads the legend) and the settings a sweep sets once.
var legendSkips = map[string]bool{"algorithm": true, "every": true, "R": true, "crs": true, "gram": true, "reward": true, "no-clip": true}

// Draw makes the figure: one line per series in its algorithm's colour
// (AlgorithmColor) and its variant's dashes, with a translucent band of
// plus or minus one standard error (a series of fewer than three points
// also gets a dot on each, and at one point an error bar). Its legend lists the series in
// order; SavePanels draws it beside the axes.
func Draw(series []Series, o Options) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = o.Title
	p.X.Label.Text = "Round"
	m, err := outputs.LookupMetric(o.Metric)
	if err != nil {
		return nil, fmt.Errorf("figure: %w", err)
	}
	p.Y.Label.Text = m.Label
	p.X.Tick.Marker, p.Y.Tick.Marker = LinearTicks{}, LinearTicks{}
	if o.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = LogTicks{}
	}
	if o.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = LogTicks{}
	}
	p.Add(plotter.NewGrid())
	if !o.LogY {
		p.Y.Min = 0
	}
	if !o.LogX {
		p.X.Min = 0
	}
	p.Legend.Top = true
	p.Legend.Left = false
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	drawn := 0
	for _, s := range series {
		c, dash := variantStyle(s.Algorithm, s.Variant)
		var line, upper, lower plotter.XYs
		for k := range s.Rounds {
			x, m, lo, hi := s.Rounds[k], s.Mean[k], s.Mean[k]-s.SE[k], s.Mean[k]+s.SE[k]
			if (o.LogX && x <= 0) || (o.LogY && m <= 0) {
				continue
			}
			line = append(line, plotter.XY{X: x, Y: m})
			if o.LogY && lo <= 0 {
				lo = m / 10
			}
			upper = append(upper, plotter.XY{X: x, Y: hi})
			lower = append(lower, plotter.XY{X: x, Y: lo})
		}
		if len(line) == 0 {
			continue
		}
		if s.N > 1 {
			band := append(plotter.XYs{}, upper...)
			for k := len(lower) - 1; k >= 0; k-- {
				band = append(band, lower[k])
			}
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return nil, fmt.Errorf("figure: band of %s: %w", s.Label, err)
			}
			poly.Color = bandColor(c)
			poly.LineStyle.Width = 0
			p.Add(poly)
		}
		l, err := plotter.NewLine(line)
		if err != nil {
			return nil, fmt.Errorf("figure: line of %s: %w", s.Label, err)
		}
		l.Color = c
		l.Width = vg.Points(1.5)
		l.Dashes = dash
		p.Add(l)
		if len(line) < minLinePoints {
			// Too few points for a line to show (one checkpoint): a dot,
			// and the standard error as a bar.
			if s.N > 1 {
				bar, err := plotter.NewLine(plotter.XYs{{X: line[0].X, Y: lower[0].Y}, {X: line[0].X, Y: upper[0].Y}})
				if err != nil {
					return nil, fmt.Errorf("figure: error bar of %s: %w", s.Label, err)
				}
				bar.Color, bar.Width = bandColor(c), vg.Points(4)
				p.Add(bar)
			}
			dots, err := plotter.NewScatter(line)
			if err != nil {
				return nil, fmt.Errorf("figure: points of %s: %w", s.Label, err)
			}
			dots.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
			p.Add(dots)
		}
		p.Legend.Add(legend(s), l)
		drawn++
	}
	if drawn == 0 && len(series) > 0 && o.LogY {
		return nil, fmt.Errorf("figure: %w: no positive %s to draw on a log y axis (--log-y): leave out --log-y", ErrNothingToDraw, p.Y.Label.Text)
	}
	PadLogAxis(&p.X)
	PadLogAxis(&p.Y)
	return p, nil
}

// LogTicks marks a logarithmic axis at 1 to 9 times its powers of ten,
// labelling the powers; on a short axis (fewer than four powers of ten
// in its range: under three decades) also 2 and 5 times them; and when
// even these give fewer than three labels (a range within a decade), it
// uses gonum's linear ticks, so that an axis never has one labelled value
// only.
type LogTicks struct{}

// Ticks returns the ticks of [min, max].
func (LogTicks) Ticks(min, max float64) []plot.Tick {
	in := func(v float64) bool { return v >= float64(min*(1-1e-12)) && v <= float64(max*(1+1e-12)) }
	var ticks []plot.Tick
	var digit []int
	powers := 0
	for e := int(math.Floor(math.Log10(min))); e <= int(math.Ceil(math.Log10(max))); e++ {
		for i := 1; i <= 9; i++ {
			v := float64(i) * math.Pow10(e)
			if !in(v) {
				continue
			}
			t := plot.Tick{Value: v}
			if i == 1 {
				t.Label = "x"
				powers++
			}
			ticks = append(ticks, t)
			digit = append(digit, i)
		}
	}
	labelled := powers
	if powers < 4 {
		for k := range ticks {
			if digit[k] == 2 || digit[k] == 5 {
				ticks[k].Label = "x"
				labelled++
			}
		}
	}
	if labelled < 3 {
		ticks = nil
		for _, t := range (plot.DefaultTicks{}).Ticks(min, max) {
			if t.Value > 0 {
				ticks = append(ticks, t)
			}
		}
	}
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = tickLabel(t.Value)
		}
	}
	return ticks
}

// tickLabel writes a tick's value in at most six significant digits,
// without an exponent below 10^7 ("1000000", "250", "0.05").
func tickLabel(v float64) string {
	g := strconv.FormatFloat(v, 'g', 6, 64)
	if r, err := strconv.ParseFloat(g, 64); err == nil && r >= 1e-4 && r < 1e7 {
		return strconv.FormatFloat(r, 'f', -1, 64)
	}
	return g
}

// LinearTicks are gonum's ticks of a linear axis with their labels
// written as tickLabel writes them ("250", not "250.00").
type LinearTicks struct{}

// Ticks returns the ticks of [min, max].
func (LinearTicks) Ticks(min, max float64) []plot.Tick {
	ticks := (plot.DefaultTicks{}).Ticks(min, max)
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = tickLabel(t.Value)
		}
	}
	return ticks
}

// minLinePoints is the fewest points of a curve drawn as a line alone;
// a shorter one gets a dot on each point.
const minLinePoints = 3

// bandColor is the fill of a standard-error band of a line of colour c.
func bandColor(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0x59}
}

// ErrNothingToDraw is a figure with no point to draw on its axes (a log
// axis and no positive value).
var ErrNothingToDraw = errors.New("nothing to draw")

// PadLogAxis widens a log axis whose data span one value (one T, one eps,
// or one point) to a decade either side: gonum would widen it by 1 on
// either side, to 0, which a log axis cannot show (it panics).
func PadLogAxis(a *plot.Axis) {
	if _, ok := a.Scale.(plot.LogScale); !ok || a.Min != a.Max || !(a.Min > 0) {
		return
	}
	a.Min, a.Max = a.Min/10, a.Max*10
}

// legend is a series' legend entry: its label and what it averages.
func legend(s Series) string {
	if s.Instances == 0 {
		return fmt.Sprintf("%s, n=%d", s.Label, s.N)
	}
	inst := fmt.Sprintf("%d instances", s.Instances)
	if s.Instances == 1 {
		inst = "1 instance"
	}
	if s.N == s.Instances {
		return fmt.Sprintf("%s, %s", s.Label, inst)
	}
	return fmt.Sprintf("%s, %s, n=%d", s.Label, inst, s.N)
}

// MaxSide is the largest side of a figure: beyond it a PNG takes hundreds
// of megabytes.
const MaxSide = 100 * vg.Centimeter

// SaveDir reads DIR/runs.arrow and DIR/curves.arrow and writes the
// figure as DIR/regret.png and DIR/regret.svg (DIR/<File>.* of the
// metric: regret-realised.* for the realised metric; over instances
// DIR/<File>-instances.*) atomically, and returns the paths written. The
// runs are faceted (FacetPanels): a row of panels per family and
// instance class, a panel per horizon, at most MaxLegend curves a panel,
// panels of Width x Height. A grid taller than MaxSide goes on in
// DIR/BASE-2.*, DIR/BASE-3.* and so on. The round axis is logarithmic
// with o.LogX, or when the horizons span LogXDecades decades unless
// o.LinearX. The title (default SweepTitle) is over every file.
func SaveDir(dir string, o Options) ([]string, error) {
	runs, curves, err := outputs.ReadTables(dir)
	if err != nil {
		return nil, err
	}
	if o.Title == "" {
		o.Title = SweepTitle(runs)
	}
	m, err := outputs.LookupMetric(o.Metric)
	if err != nil {
		return nil, fmt.Errorf("figure: %w", err)
	}
	base := m.File
	over := o.Over
	if over == "" {
		over = AutoOver(runs)
	}
	switch over {
	case OverSeed:
	case OverInstance:
		base += "-instances"
	default:
		return nil, fmt.Errorf("figure: unknown aggregation %q, want %q or %q", o.Over, OverSeed, OverInstance)
	}
	w, h := panelSize(o)
	maxCols := max(1, int(MaxSide/w))
	panels, err := FacetPanels(runs, curves, o.Metric, over, maxCols)
	if err != nil {
		return nil, err
	}
	if len(panels) == 0 {
		return nil, fmt.Errorf("figure: no done run in %s", dir)
	}
	logX := o.LogX || (!o.LinearX && HorizonsSpan(runs))
	for i := range panels {
		panels[i].LogX, panels[i].LogY = logX, o.LogY
	}
	// One file per maxRows rows of panels.
	titleH := vg.Length(float64(vg.Points(20) * vg.Length(strings.Count(o.Title, "\n")+1)))
	maxRows := max(1, int((MaxSide-titleH)/h))
	var paths []string
	for file := 0; ; file++ {
		var part []Panel
		for _, p := range panels {
			if p.Row/maxRows == file {
				p.Row -= file * maxRows
				part = append(part, p)
			}
		}
		if len(part) == 0 {
			break
		}
		name := base
		if file > 0 {
			name = fmt.Sprintf("%s-%d", base, file+1)
		}
		ps, err := SavePanels(dir, name, o.Title, part, o)
		if err != nil {
			return nil, err
		}
		paths = append(paths, ps...)
	}
	return paths, nil
}

// checkGridSize refuses a grid of rows x cols panels of w x h with a side
// longer than MaxSide.
func checkGridSize(rows, cols int, w, h vg.Length) error {
	if vg.Length(cols)*w > MaxSide || vg.Length(rows)*h > MaxSide {
		return fmt.Errorf("figure: %d x %d panels of %.3g x %.3g cm exceed %.3g cm: give a smaller panel size", rows, cols, w.Points()/vg.Centimeter.Points(), h.Points()/vg.Centimeter.Points(), MaxSide.Points()/vg.Centimeter.Points())
	}
	return nil
}

// SavePlot writes p as DIR/BASE.png (at PNGDPI) and DIR/BASE.svg of size
// w x h, each atomically, and returns their paths. Its legend is drawn
// beside its axes, never over the data (SavePlots).
func SavePlot(p *plot.Plot, dir, base string, w, h vg.Length) ([]string, error) {
	return SavePlots(dir, base, "", []PlacedPlot{{Plot: p}}, w, h)
}

// PlacedPlot is a plot at its place in a grid of SavePlots.
type PlacedPlot struct {
	Plot     *plot.Plot
	Row, Col int
}

// SavePlots writes plots in a grid (an empty cell is left blank), each
// of size w x h with its legend in a strip to the right of its axes
// (never over the data), under title ("": none; one line a line of it),
// as DIR/BASE.png and DIR/BASE.svg atomically, and returns their paths.
// The plots' legends are moved out of them.
func SavePlots(dir, base, title string, plots []PlacedPlot, w, h vg.Length) ([]string, error) {
	if len(plots) == 0 {
		return nil, fmt.Errorf("figure: no plot to draw in %s", base)
	}
	grid, err := placePlots(plots, w, h)
	if err != nil {
		return nil, err
	}
	return saveGrid(grid, title, dir, base, vg.Length(len(grid[0]))*w, vg.Length(len(grid))*h)
}

// placePlots puts the plots in their grid, each with its legend taken
// out of its axes (newPanelPlot).
func placePlots(plots []PlacedPlot, w, h vg.Length) ([][]*panelPlot, error) {
	grid, err := emptyGrid(len(plots), func(i int) (int, int, string) {
		return plots[i].Row, plots[i].Col, plots[i].Plot.Title.Text
	}, "plot", w, h)
	if err != nil {
		return nil, err
	}
	for _, p := range plots {
		grid[p.Row][p.Col] = newPanelPlot(p.Plot)
	}
	return grid, nil
}

// emptyGrid is the empty grid of n items (what: "plot" or "panel") whose
// cells of w x h at gives (item i's row, column and title): an error
// names an item at a negative row or column, two items in one cell, or
// a grid too large to draw (checkGridSize).
func emptyGrid(n int, at func(i int) (row, col int, title string), what string, w, h vg.Length) ([][]*panelPlot, error) {
	rows, cols := 0, 0
	taken := make(map[[2]int]bool, n)
	for i := range n {
		r, c, title := at(i)
		if r < 0 || c < 0 {
			return nil, fmt.Errorf("figure: %s %q at row %d, column %d", what, title, r, c)
		}
		if taken[[2]int{r, c}] {
			return nil, fmt.Errorf("figure: two %ss at row %d, column %d", what, r, c)
		}
		taken[[2]int{r, c}] = true
		rows, cols = max(rows, r+1), max(cols, c+1)
	}
	if err := checkGridSize(rows, cols, w, h); err != nil {
		return nil, err
	}
	grid := make([][]*panelPlot, rows)
	for i := range grid {
		grid[i] = make([]*panelPlot, cols)
	}
	return grid, nil
}

// saveGrid writes a grid of plots (nil: an empty cell) under a title
// ("": none; one line a line of it, 20 pt each) as DIR/BASE.png and
// DIR/BASE.svg of size w x h plus the title.
func saveGrid(grid [][]*panelPlot, title, dir, base string, w, h vg.Length) ([]string, error) {
	titleH := vg.Length(0)
	if title != "" {
		titleH = vg.Length(float64(vg.Points(20) * vg.Length(strings.Count(title, "\n")+1)))
		h += titleH
	}
	drawAll := func(dc draw.Canvas) {
		if title != "" {
			sty := draw.TextStyle{Color: color.Black, Font: plot.DefaultFont, Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YTop}
			sty.Font.Size = vg.Points(13)
			for i, line := range strings.Split(title, "\n") {
				dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y - vg.Points(3) - vg.Length(float64(vg.Points(20)*vg.Length(i)))}, line)
			}
			dc.Max.Y -= titleH
		}
		if len(grid) == 1 && len(grid[0]) == 1 {
			grid[0][0].Draw(dc)
			return
		}
		tiles := draw.Tiles{Rows: len(grid), Cols: len(grid[0]), PadX: vg.Millimeter, PadY: vg.Millimeter,
			PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: vg.Millimeter, PadRight: vg.Millimeter}
		for i := range grid {
			for j, p := range grid[i] {
				if p != nil {
					p.Draw(tiles.At(dc, j, i))
				}
			}
		}
	}
	var paths []string
	for _, ext := range []string{"png", "svg"} {
		var wt io.WriterTo
		if ext == "png" {
			c := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PNGDPI))}
			drawAll(draw.New(c))
			wt = c
		} else {
			c := vgsvg.New(w, h)
			drawAll(draw.New(c))
			wt = c
		}
		path := filepath.Join(dir, base+"."+ext)
		if err := outputs.WriteFileAtomic(path, func(out io.Writer) error { _, err := wt.WriteTo(out); return err }); err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}
