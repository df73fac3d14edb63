// Package scaling measures how the privacy cost of an algorithm grows
// with the number of silos M: the cost of a run is its pseudo-regret
// R_M(T) minus that of the non-private baseline (FedLinUCB) at the same M
// and seed, and the exponent b of cost ~ a M^b is fitted by least squares
// on log mean cost against log M, with a t-interval.
package scaling

import (
	"fmt"
	"math"
	"sort"
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
	M        int
	Mean, SE float64
	Seeds    int
}

// Fit is the scaling of one configuration (an algorithm with its preset,
// learner and budget): its points and the fitted exponent.
type Fit struct {
	Label  string
	Points []Point
	// Exponent is the least-squares slope of log mean cost on log M,
	// Lo and Hi its 95% t-interval (len(Points)-2 degrees of freedom), and
	// Prefactor exp(intercept). NaN when fewer than 3 values of M have a
	// positive mean cost.
	Exponent, Lo, Hi, Prefactor float64
	// R2 is the coefficient of determination of the log-log fit.
	R2 float64
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
			base[key{r.InstanceHash, r.M, r.T, r.Seed}] = r.PseudoRegret
		}
	}
	if len(base) == 0 {
		return nil, fmt.Errorf("scaling: no done %s run to measure the costs against", Baseline)
	}
	costs := map[string]map[int][]float64{}
	for _, r := range runs {
		if r.Status != "done" || r.Algorithm == Baseline {
			continue
		}
		b, ok := base[key{r.InstanceHash, r.M, r.T, r.Seed}]
		if !ok {
			continue
		}
		l := label(&r)
		if costs[l] == nil {
			costs[l] = map[int][]float64{}
		}
		costs[l][r.M] = append(costs[l][r.M], r.PseudoRegret-b)
	}
	var fits []Fit
	for l, byM := range costs {
		f := Fit{Label: l}
		for m, c := range byM {
			mean, v := stat.MeanVariance(c, nil)
			se := 0.0
			if len(c) > 1 {
				se = math.Sqrt(v / float64(len(c)))
			}
			f.Points = append(f.Points, Point{M: m, Mean: mean, SE: se, Seeds: len(c)})
		}
		sort.Slice(f.Points, func(i, j int) bool { return f.Points[i].M < f.Points[j].M })
		f.fit()
		fits = append(fits, f)
	}
	sort.Slice(fits, func(i, j int) bool { return fits[i].Label < fits[j].Label })
	return fits, nil
}

// fit sets the exponent by ordinary least squares on the points with a
// positive mean cost.
func (f *Fit) fit() {
	var xs, ys []float64
	for _, p := range f.Points {
		if p.Mean > 0 {
			xs = append(xs, math.Log(float64(p.M)))
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
		sxx += (xs[i] - mx) * (xs[i] - mx)
		r := ys[i] - alpha - beta*xs[i]
		sse += r * r
	}
	se := math.Sqrt(sse / float64(n-2) / sxx)
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 2)}.Quantile(0.975)
	f.Exponent, f.Lo, f.Hi, f.Prefactor = beta, beta-q*se, beta+q*se, math.Exp(alpha)
	f.R2 = stat.RSquared(xs, ys, nil, alpha, beta)
}

// Draw plots the mean costs (with +- one standard error) against M on
// log-log axes, one colour per configuration, with the fitted lines.
func Draw(fits []Fit, title string) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "silos M"
	p.Y.Label.Text = "privacy cost R_M(T) - FedLinUCB's"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.TextStyle.Font.Size = vg.Points(7)
	p.Add(plotter.NewGrid())
	for i, f := range fits {
		c := plotutil.Color(i)
		var pts plotter.XYs
		var errs plotter.YErrors
		for _, q := range f.Points {
			if q.Mean > 0 {
				pts = append(pts, plotter.XY{X: float64(q.M), Y: q.Mean})
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
		sc.Shape = draw.CircleGlyph{}
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
			label = fmt.Sprintf("%s: M^%.2f [%.2f, %.2f]", f.Label, f.Exponent, f.Lo, f.Hi)
			a, b := f.Prefactor, f.Exponent
			line := plotter.NewFunction(func(m float64) float64 { return a * math.Pow(m, b) })
			line.Color = c
			line.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
			line.XMin, line.XMax = float64(f.Points[0].M), float64(f.Points[len(f.Points)-1].M)
			p.Add(line)
		}
		p.Legend.Add(label, sc)
	}
	return p, nil
}

// Save writes DIR/scaling.png and DIR/scaling.svg atomically and returns
// their paths.
func Save(dir string, fits []Fit, title string) ([]string, error) {
	p, err := Draw(fits, title)
	if err != nil {
		return nil, err
	}
	return figure.SavePlot(p, dir, "scaling", 16*vg.Centimeter, 11*vg.Centimeter)
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
