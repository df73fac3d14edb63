package scaling

import (
	"math"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/outputs"
)

// TestFitGolden: the least-squares fit of log mean on log x, by hand:
// log x = 0, 1, 2, 3 and log mean = 0, 1, 2, 4 give slope 6.5 / 5 = 1.3,
// intercept 1.75 - 1.3 * 1.5 = -0.2, residuals 0.2, -0.1, -0.4, 0.3 (SSE
// 0.3), slope SE sqrt(0.3 / 2 / 5), Student's t quantile 4.302652729911275
// (2 degrees of freedom), R^2 = 1 - 0.3 / 8.75. Points of mean 0 or below
// are left out; fewer than 3 positive means give no fit.
func TestFitGolden(t *testing.T) {
	var pts []Point
	for i, ly := range []float64{0, 1, 2, 4} {
		pts = append(pts, Point{X: math.Exp(float64(i)), Mean: math.Exp(ly)})
	}
	f := Fit{Points: append(pts, Point{X: 100, Mean: 0}, Point{X: 200, Mean: -3})}
	f.fit()
	se := math.Sqrt(0.3 / 2 / 5)
	q := 4.302652729911275
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"exponent", f.Exponent, 1.3}, {"lo", f.Lo, 1.3 - q*se}, {"hi", f.Hi, 1.3 + q*se},
		{"prefactor", f.Prefactor, math.Exp(-0.2)}, {"R2", f.R2, 1 - 0.3/8.75},
	} {
		if !(math.Abs(c.got-c.want) <= 1e-9) {
			t.Errorf("%s %v, want %v", c.name, c.got, c.want)
		}
	}
	// Three points fit exactly (no residual: a zero-width interval).
	f = Fit{Points: pts[:3]}
	f.fit()
	if !(math.Abs(f.Exponent-1) <= 1e-9) || !(math.Abs(f.Hi-f.Lo) <= 1e-9) || !(math.Abs(f.Prefactor-1) <= 1e-9) {
		t.Errorf("three points: %+v", f)
	}
	f = Fit{Points: append(pts[:2:2], Point{X: 100, Mean: 0})}
	f.fit()
	if !math.IsNaN(f.Exponent) || !math.IsNaN(f.Lo) || !math.IsNaN(f.Hi) || !math.IsNaN(f.Prefactor) || !math.IsNaN(f.R2) {
		t.Errorf("two positive means: %+v", f)
	}
}

// TestSlopesEdges: a mean of 0 at either end gives no local exponent; two
// seeds at each point (1 degree of freedom, t quantile 12.706204736174698)
// give an interval.
func TestSlopesEdges(t *testing.T) {
	got := Slopes([]Point{
		{X: 10, Mean: 0, SE: 1, Seeds: 3},
		{X: 100, Mean: 100, SE: 5, Seeds: 2},
		{X: 1000, Mean: 1000, SE: 20, Seeds: 2},
		{X: 10000, Mean: 0, SE: 1, Seeds: 3},
	})
	if len(got) != 3 || !math.IsNaN(got[0].Exponent) || !math.IsNaN(got[2].Exponent) || !math.IsNaN(got[0].Lo) || !math.IsNaN(got[2].Hi) {
		t.Fatalf("zero means: %+v", got)
	}
	se := math.Hypot(5.0/100, 20.0/1000) / math.Log(10)
	if s := got[1]; !(math.Abs(s.Exponent-1) <= 1e-12) || !(math.Abs(s.Lo-(1-12.706204736174698*se)) <= 1e-9) || !(math.Abs(s.Hi-(1+12.706204736174698*se)) <= 1e-9) {
		t.Errorf("two seeds: %+v, want 1 +- %v", s, 12.706204736174698*se)
	}
}

// TestPointStatistics: a point's mean and SE (sample sd over sqrt(seeds);
// 0 for one seed) over the seeds, the points in increasing order of the
// key and the fits in order of their labels, over M (costs against the
// baseline) and over T.
func TestPointStatistics(t *testing.T) {
	var runs []outputs.RunRecord
	add := func(alg string, m, T int, seed uint64, regret float64) {
		runs = append(runs, outputs.RunRecord{Status: "done", Algorithm: alg, Eps: outputs.Some[float64](1), Delta: outputs.Some[float64](0.01), M: outputs.Some[int](m), T: T, Seed: seed, InstanceHash: "i", PseudoRegret: regret})
	}
	// Costs at M = 30: 1 and 3 (mean 2, SE 1); at M = 10: 4 (one seed);
	// at M = 20: 2, 4, 9 (mean 5, SE sqrt(13 / 3)).
	for _, c := range []struct {
		m     int
		costs []float64
	}{{30, []float64{1, 3}}, {10, []float64{4}}, {20, []float64{2, 4, 9}}} {
		for s, cost := range c.costs {
			add("fedlinucb", c.m, 100, uint64(s), 50)
			add("super-agent", c.m, 100, uint64(s), 50+cost)
			add("ldp", c.m, 100, uint64(s), 50+2*cost)
		}
	}
	fits, err := Fits(runs)
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, fits []Fit, key func(Point) float64) {
		t.Helper()
		if len(fits) != 2 || !strings.HasPrefix(fits[0].Label, "LDP-FedLinUCB") || !strings.HasPrefix(fits[1].Label, "Super agent") {
			t.Fatalf("%s: fits %+v", what, fits)
		}
		for k, f := range fits {
			scale := 2.0 - float64(k) // LDP's costs are twice the super agent's
			want := []Point{{X: 10, Mean: 4 * scale, Seeds: 1}, {X: 20, Mean: 5 * scale, SE: math.Sqrt(13.0/3) * scale, Seeds: 3}, {X: 30, Mean: 2 * scale, SE: scale, Seeds: 2}}
			if len(f.Points) != 3 {
				t.Fatalf("%s: %s: points %+v", what, f.Label, f.Points)
			}
			for i, w := range want {
				p := f.Points[i]
				if key(p) != w.X || !(math.Abs(p.Mean-w.Mean) <= 1e-12) || !(math.Abs(p.SE-w.SE) <= 1e-12) || p.Seeds != w.Seeds {
					t.Errorf("%s: %s: point %d %+v, want %+v", what, f.Label, i, p, w)
				}
			}
		}
	}
	check("over M", fits, func(p Point) float64 {
		if p.X != float64(p.M) {
			t.Errorf("point over M at X %v, M %d", p.X, p.M)
		}
		return p.X
	})
	// The same values over T: the regrets themselves, with M as T.
	var overT []outputs.RunRecord
	for _, r := range runs {
		if r.Algorithm != "fedlinucb" {
			r.T, r.M, r.PseudoRegret = *r.M, outputs.Some(1), r.PseudoRegret-50
			overT = append(overT, r)
		}
	}
	fits, err = FitsOver(overT, OverT)
	if err != nil {
		t.Fatal(err)
	}
	check("over T", fits, func(p Point) float64 { return p.X })
}

// TestLabel: a cost curve over M is named by its algorithm, its learner,
// privacy targets and preset, and its own parameters, not M or T.
func TestLabel(t *testing.T) {
	for _, c := range []struct {
		r    outputs.RunRecord
		want string
	}{
		{outputs.RunRecord{Algorithm: "se", Params: map[string]float64{"growth": 4, "conf": 0.05}, M: outputs.Some[int](10), T: 100}, "SE (conf=0.05, growth=4)"},
		{outputs.RunRecord{Algorithm: "dp-se", Eps: outputs.Some[float64](1), Params: map[string]float64{"accuracy_base": 2}, M: outputs.Some[int](10), T: 100}, "DP-SE (eps=1, accuracy_base=2)"},
		{outputs.RunRecord{Algorithm: "ldp", Eps: outputs.Some[float64](1), Delta: outputs.Some[float64](0.01), M: outputs.Some[int](10), T: 100, Linear: &outputs.LinearSettings{Lazy: true, Preset: "exact"}}, "LDP-FedLinUCB (lazy=true, eps=1, delta=0.01, preset=exact)"},
	} {
		if got := label(&c.r); got != c.want {
			t.Errorf("label %q, want %q", got, c.want)
		}
	}
}
