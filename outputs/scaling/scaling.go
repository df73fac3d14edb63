// Package scaling measures how regret grows with one key of a sweep, by
// least squares on log-log axes with a t-interval:
//
//   - over M (Fits): the privacy cost of an algorithm, its pseudo-regret
//     R_M(T) minus that of the non-private baseline (FedLinUCB) at the same
//     M and seed, fitted as cost ~ a M^b;
//   - over T, eps or d (FitsOver): the mean pseudo-regret of each
//     configuration, fitted as R ~ a T^b, a eps^b or a d^b (e.g. the
//     rates of sweeps/bco-rates.toml; d is the instances' dimension).
package scaling

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/outputs/figure"
	"github.com/fedbandit/fedbandit/registry"
)

// Baseline is the algorithm whose regret the costs are measured against.
const Baseline = federate.AlgFedLinUCB

// Point is the privacy cost at one M: mean and standard error over the
// seeds paired with a baseline run.
type Point struct {
	M        int     // the M of a fit over M
	X        float64 // the value of the key fitted over (M, T or eps)
	Mean, SE float64
	Seeds    int
}

// Keys a fit can be over.
const (
	OverM   = "M"
	OverT   = "T"
	OverEps = "eps"
	// OverD fits over the instances' dimension d (the run record's d):
	// the instance is part of the key, not of the configuration.
	OverD = "d"
)

// Fit is the scaling of one configuration (an algorithm with its preset,
// learner and budget): its points and the fitted exponent.
type Fit struct {
	Label string
	// Algorithm is the registry name of the configuration's algorithm:
	// it picks the colour (figure.AlgorithmColor; "": the fit's place).
	Algorithm string
	Points    []Point
	// Exponent is the least-squares slope of log mean cost on log M,
	// Lo and Hi its 95% t-interval (len(Points)-2 degrees of freedom), and
	// Prefactor exp(intercept). NaN when fewer than 3 values of M have a
	// positive mean cost.
	Exponent, Lo, Hi, Prefactor float64
	// R2 is the coefficient of determination of the log-log fit.
	R2 float64
	// Local are the local exponents between consecutive points (fits
	// over T or eps; Slopes).
	Local []Slope
}

// Slope is the local exponent between two consecutive points of a fit:
// ln(mean_b / mean_a) / ln(x_b / x_a), with a 95% interval by the delta
// method (the variance of ln mean is about (SE / mean)^2; the two points'
// seeds are independent runs) and Student's t with min(seeds) - 1 degrees
// of freedom. Lo and Hi are NaN when a point has fewer than 2 seeds; all
// three are NaN when a mean is not positive.
type Slope struct {
	From, To         float64 // the values of the key
	Exponent, Lo, Hi float64
}

// Slopes returns the local exponents between consecutive points.
func Slopes(pts []Point) []Slope {
	var out []Slope
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		s := Slope{From: a.X, To: b.X, Exponent: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
		if a.Mean > 0 && b.Mean > 0 {
			lx := math.Log(b.X / a.X)
			s.Exponent = math.Log(b.Mean/a.Mean) / lx
			if n := min(a.Seeds, b.Seeds); n >= 2 {
				se := math.Hypot(a.SE/a.Mean, b.SE/b.Mean) / math.Abs(lx)
				q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
				s.Lo, s.Hi = s.Exponent-float64(q*se), s.Exponent+float64(q*se)
			}
		}
		out = append(out, s)
	}
	return out
}

// Fits pairs every done run with the baseline run of the same instance,
// M, T and seed, and fits each configuration's cost against M. Runs
// without a baseline partner are ignored.
func Fits(runs []outputs.RunRecord) ([]Fit, error) {
	type key struct {
		inst  string
		m, t  int
		seeds uint64
	}
	base := map[key]float64{}
	for _, r := range runs {
		if r.Status == "done" && r.Algorithm == Baseline {
			base[key{r.InstanceHash, outputs.Deref(r.M), r.T, r.Seed}] = r.PseudoRegret
		}
	}
	if len(base) == 0 {
		return nil, fmt.Errorf("scaling: no done %s run to measure the costs against", Baseline)
	}
	costs := map[string]map[int][]float64{}
	algs := map[string]string{}
	for _, r := range runs {
		if r.Status != "done" || r.Algorithm == Baseline || r.M == nil {
			continue
		}
		b, ok := base[key{r.InstanceHash, outputs.Deref(r.M), r.T, r.Seed}]
		if !ok {
			continue
		}
		l := label(&r)
		if costs[l] == nil {
			costs[l] = map[int][]float64{}
		}
		algs[l] = r.Algorithm
		costs[l][*r.M] = append(costs[l][*r.M], r.PseudoRegret-b)
	}
	var fits []Fit
	for l, byM := range costs {
		f := Fit{Label: l, Algorithm: algs[l]}
		for m, c := range byM {
			mean, v := stat.MeanVariance(c, nil)
			se := 0.0
			if len(c) > 1 {
				se = math.Sqrt(v / float64(len(c)))
			}
			f.Points = append(f.Points, Point{M: m, X: float64(m), Mean: mean, SE: se, Seeds: len(c)})
		}
		slices.SortFunc(f.Points, func(a, b Point) int { return cmp.Compare(a.M, b.M) })
		f.fit()
		fits = append(fits, f)
	}
	slices.SortFunc(fits, func(a, b Fit) int { return figure.NaturalCompare(a.Label, b.Label) })
	return fits, nil
}

// FitsOver fits, for every configuration of the done runs (everything
// but the seed and the key over), the mean pseudo-regret at T over the
// seeds against over (OverT, OverEps or OverD; OverM is Fits, the
// privacy cost). Over eps, the runs of algorithms that do not use eps
// are left out; over d, the runs without a dimension.
func FitsOver(runs []outputs.RunRecord, over string) ([]Fit, error) {
	switch over {
	case OverM:
		return Fits(runs)
	case OverT, OverEps, OverD:
	default:
		return nil, fmt.Errorf("scaling: over %q, want %q, %q, %q or %q", over, OverM, OverT, OverEps, OverD)
	}
	vals := map[string]map[float64][]float64{}
	algs := map[string]string{}
	for _, r := range runs {
		if r.Status != "done" {
			continue
		}
		x := float64(r.T)
		switch over {
		case OverEps:
			if a, err := registry.Lookup(r.Algorithm); err != nil || !a.UsesKey("eps") || r.Eps == nil {
				continue
			}
			x = *r.Eps
		case OverD:
			if r.Dim == nil {
				continue
			}
			x = float64(*r.Dim)
		}
		l := labelOver(&r, over)
		if vals[l] == nil {
			vals[l] = map[float64][]float64{}
		}
		algs[l] = r.Algorithm
		vals[l][x] = append(vals[l][x], r.PseudoRegret)
	}
	if len(vals) == 0 {
		return nil, fmt.Errorf("scaling: no done run to fit over %s", over)
	}
	return fitsOf(vals, algs), nil
}

// CostsOver fits, for every configuration of the done runs of an
// algorithm other than baseline (everything but the seed and the key
// over), the mean privacy cost against over (OverT or OverEps): a run's
// pseudo-regret minus that of the baseline run with the same instance,
// M, B, T and seed (paired, as Fits pairs over M). Runs without a
// partner are left out; over eps, so are algorithms that do not use eps.
func CostsOver(runs []outputs.RunRecord, over, baseline string) ([]Fit, error) {
	if over != OverT && over != OverEps {
		return nil, fmt.Errorf("scaling: cost against a baseline over %q, want %q or %q", over, OverT, OverEps)
	}
	type key struct {
		inst    string
		m, b, t int
		seed    uint64
	}
	base := map[key]float64{}
	for _, r := range runs {
		if r.Status == "done" && r.Algorithm == baseline {
			base[key{r.InstanceHash, outputs.Deref(r.M), outputs.Deref(r.B), r.T, r.Seed}] = r.PseudoRegret
		}
	}
	if len(base) == 0 {
		return nil, fmt.Errorf("scaling: no done %s run to measure the costs against", baseline)
	}
	vals := map[string]map[float64][]float64{}
	algs := map[string]string{}
	for _, r := range runs {
		if r.Status != "done" || r.Algorithm == baseline {
			continue
		}
		b, ok := base[key{r.InstanceHash, outputs.Deref(r.M), outputs.Deref(r.B), r.T, r.Seed}]
		if !ok {
			continue
		}
		x := float64(r.T)
		if over == OverEps {
			if a, err := registry.Lookup(r.Algorithm); err != nil || !a.UsesKey("eps") || r.Eps == nil {
				continue
			}
			x = *r.Eps
		}
		l := labelOver(&r, over) + " - " + registry.Display(baseline)
		if vals[l] == nil {
			vals[l] = map[float64][]float64{}
		}
		algs[l] = r.Algorithm
		vals[l][x] = append(vals[l][x], r.PseudoRegret-b)
	}
	if len(vals) == 0 {
		return nil, fmt.Errorf("scaling: no done run paired with a %s run to fit over %s", baseline, over)
	}
	return fitsOf(vals, algs), nil
}

// fitsOf fits every configuration's values against the key: the mean
// and standard error over the seeds at each value, the least-squares
// exponent and the local exponents. algs names each label's algorithm.
func fitsOf(vals map[string]map[float64][]float64, algs map[string]string) []Fit {
	var fits []Fit
	for l, byX := range vals {
		f := Fit{Label: l, Algorithm: algs[l]}
		for x, c := range byX {
			mean, v := stat.MeanVariance(c, nil)
			se := 0.0
			if len(c) > 1 {
				se = math.Sqrt(v / float64(len(c)))
			}
			f.Points = append(f.Points, Point{X: x, Mean: mean, SE: se, Seeds: len(c)})
		}
		slices.SortFunc(f.Points, func(a, b Point) int { return cmp.Compare(a.X, b.X) })
		f.fit()
		f.Local = Slopes(f.Points)
		fits = append(fits, f)
	}
	slices.SortFunc(fits, func(a, b Fit) int { return figure.NaturalCompare(a.Label, b.Label) })
	return fits
}

// labelOver names a configuration of a fit over T, eps or d: the
// algorithm and every field of its label (registry.Fields) but the key
// fitted over, the checkpoint spacing, and the instance's description
// (its name stays, but over d, where the instance is the key).
func labelOver(r *outputs.RunRecord, over string) string {
	var parts []string
	for _, f := range registry.Fields(registry.FromRecord(r)) {
		switch {
		case f.Key == "algorithm", f.Key == over, f.Key == "every", f.Key == "instance" && over == OverD:
			continue
		case f.Key == "instance":
			parts = append(parts, "instance="+f.Value)
			continue
		}
		if s := f.String(); s != "" {
			parts = append(parts, s)
		}
	}
	return registry.Display(r.Algorithm) + " (" + strings.Join(parts, ", ") + ")"
}

// fit sets the exponent by ordinary least squares on the points with a
// positive mean cost.
func (f *Fit) fit() {
	var xs, ys []float64
	for _, p := range f.Points {
		if p.Mean > 0 {
			xs = append(xs, math.Log(p.X))
			ys = append(ys, math.Log(p.Mean))
		}
	}
	f.Exponent, f.Lo, f.Hi, f.Prefactor, f.R2 = math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()
	n := len(xs)
	if n < 3 {
		return
	}
	alpha, beta := stat.LinearRegression(xs, ys, nil, false)
	var sxx, sse float64
	mx := stat.Mean(xs, nil)
	for i := range xs {
		sxx += float64((xs[i] - mx) * (xs[i] - mx))
		r := ys[i] - alpha - float64(beta*xs[i])
		sse += float64(r * r)
	}
	se := math.Sqrt(sse / float64(n-2) / sxx)
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 2)}.Quantile(0.975)
	f.Exponent, f.Lo, f.Hi, f.Prefactor = beta, beta-float64(q*se), beta+float64(q*se), math.Exp(alpha)
	f.R2 = stat.RSquared(xs, ys, nil, alpha, beta)
}

// Draw plots the mean costs (with +- one standard error) against M on
// log-log axes with the fitted lines: each fit in its algorithm's colour
// (figure.AlgorithmColor, the same in every figure; a fit without an
// algorithm, in the colour of its place), the configurations of one
// algorithm told apart by their markers (a disc, then a box, a triangle,
// ...), in the order of the fits.
func Draw(fits []Fit, title string) (*plot.Plot, error) {
	return DrawOver(fits, title, OverM)
}

// DrawOver is Draw for a fit over M, T or eps.
func DrawOver(fits []Fit, title, over string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	switch over {
	case OverT:
		p.X.Label.Text, p.Y.Label.Text = "rounds T", "pseudo-regret R(T)"
	case OverEps:
		p.X.Label.Text, p.Y.Label.Text = "eps", "pseudo-regret R(T)"
	case OverD:
		p.X.Label.Text, p.Y.Label.Text = "dimension d", "pseudo-regret R(T)"
	default:
		p.X.Label.Text, p.Y.Label.Text = "silos M", "privacy cost R_M(T) - FedLinUCB's"
	}
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = figure.LogTicks{}, figure.LogTicks{}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(7)
	p.Add(plotter.NewGrid())
	drawn := 0
	variant := map[string]int{}
	for i, f := range fits {
		c := plotutil.Color(i)
		var shape draw.GlyphDrawer = draw.CircleGlyph{}
		if f.Algorithm != "" {
			c = figure.AlgorithmColor(f.Algorithm)
			shape = markers[variant[f.Algorithm]%len(markers)]
			variant[f.Algorithm]++
		}
		var pts plotter.XYs
		var errs plotter.YErrors
		for _, q := range f.Points {
			if q.Mean > 0 {
				pts = append(pts, plotter.XY{X: q.X, Y: q.Mean})
				lo := math.Min(q.SE, 0.99*q.Mean) // keep the bar on a log axis
				errs = append(errs, struct{ Low, High float64 }{lo, q.SE})
			}
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.Color = c
		sc.Shape = shape
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYer
			plotter.YErrorer
		}{pts, errs})
		if err != nil {
			return nil, err
		}
		eb.Color = c
		p.Add(sc, eb)
		label := f.Label
		if !math.IsNaN(f.Exponent) {
			label = fmt.Sprintf("%s: %s^%.2f [%.2f, %.2f]", f.Label, over, f.Exponent, f.Lo, f.Hi)
			a, b := f.Prefactor, f.Exponent
			line := plotter.NewFunction(func(m float64) float64 { return a * math.Pow(m, b) })
			line.Color = c
			line.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
			line.XMin, line.XMax = f.Points[0].X, f.Points[len(f.Points)-1].X
			p.Add(line)
		}
		p.Legend.Add(label, sc)
		drawn++
	}
	if drawn == 0 {
		return nil, fmt.Errorf("scaling: %w: no positive mean %s to draw on log axes", figure.ErrNothingToDraw, p.Y.Label.Text)
	}
	figure.PadLogAxis(&p.X)
	figure.PadLogAxis(&p.Y)
	return p, nil
}

// markers tell apart the configurations of one algorithm in a fit's
// figure, a disc first.
var markers = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}

// Save writes DIR/scaling.png and DIR/scaling.svg atomically and returns
// their paths.
func Save(dir string, fits []Fit, title string) ([]string, error) {
	return SaveOver(dir, fits, title, OverM)
}

// SaveOver is Save for a fit over M, T or eps: DIR/scaling.png and .svg
// over M, DIR/scaling-T.* and DIR/scaling-eps.* otherwise.
func SaveOver(dir string, fits []Fit, title, over string) ([]string, error) {
	p, err := DrawOver(fits, title, over)
	if err != nil {
		return nil, err
	}
	name := "scaling"
	if over != OverM {
		name += "-" + over
	}
	return figure.SavePlot(p, dir, name, 16*vg.Centimeter, 11*vg.Centimeter)
}

// label names a cost curve: the algorithm and the fields of its
// configuration (registry.Fields, the one labelling) that a scaling
// figure keeps apart: the learner, the privacy targets, the preset and
// the algorithm's own parameters (not M, its x axis).
func label(r *outputs.RunRecord) string {
	a, _ := registry.Lookup(r.Algorithm)
	var parts []string
	for _, f := range registry.Fields(registry.FromRecord(r)) {
		own := false
		if a != nil {
			_, own = a.Param(f.Key)
		}
		if f.Key == "lazy" || f.Key == "eps" || f.Key == "delta" || f.Key == "preset" || own {
			parts = append(parts, f.Key+"="+f.Value)
		}
	}
	return registry.Display(r.Algorithm) + " (" + strings.Join(parts, ", ") + ")"
}
