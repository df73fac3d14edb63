package bco

import (
	"math"
	"math/rand/v2"
	"testing"
)

// lsData returns random least-squares data: A = sum x x^T, b = sum y x, for m documents in R^d with unit norm and
// targets in [0, 1].
func lsData(r *rand.Rand, m, d int) (x, y, a, b []float64) {
	x = make([]float64, m*d)
	y = make([]float64, m)
	a = make([]float64, d*d)
	b = make([]float64, d)
	for i := range m {
		xi := x[i*d : (i+1)*d]
		fillUnit(xi, r)
		y[i] = r.Float64()
		for j := range d {
			b[j] += y[i] * xi[j]
			for k := range d {
				a[j*d+k] += xi[j] * xi[k]
			}
		}
	}
	return x, y, a, b
}

func halfSquares(x, y, w []float64, d int) float64 {
	var v float64
	for i := range y {
		e := dot(x[i*d:(i+1)*d], w) - y[i]
		v += e * e / 2
	}
	return v
}

// TestTrustRegionKKT: on random least-squares problems (full rank, rank
// deficient: fewer documents than dimensions, and with the ball active or
// not), the solution meets the KKT conditions that certify a global
// minimum of a PSD trust-region problem: (A + nu I) w = b, nu >= 0, ||w||
// <= R, nu (R - ||w||) = 0, to 1e-10 relative; and no point of a random
// search of the ball (nor the projected-gradient limit) does better.
func TestTrustRegionKKT(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		m, d int
		R    float64
	}{{50, 3, 1}, {50, 3, 0.05}, {2, 5, 1}, {2, 5, 0.01}, {400, 20, 0.3}, {10, 20, 100}, {1, 4, 0.5}} {
		x, y, a, b := lsData(r, tc.m, tc.d)
		d := tc.d
		w, nu, err := trustRegion(a, b, d, tc.R, true)
		if err != nil {
			t.Fatal(err)
		}
		wn := math.Sqrt(dot(w, w))
		if nu < 0 || wn > tc.R*(1+1e-12) {
			t.Errorf("%+v: nu %v ||w|| %v", tc, nu, wn)
		}
		if nu > 0 && math.Abs(wn-tc.R) > 1e-10*tc.R {
			t.Errorf("%+v: nu %v > 0 but ||w|| = %v != R", tc, nu, wn)
		}
		bn := math.Sqrt(dot(b, b))
		for j := range d {
			res := dot(a[j*d:(j+1)*d], w) + nu*w[j] - b[j]
			if math.Abs(res) > 1e-10*(bn+1) {
				t.Errorf("%+v: stationarity residual %v at %d", tc, res, j)
			}
		}
		best := halfSquares(x, y, w, d)
		v := make([]float64, d)
		for range 20000 {
			fillUnit(v, r)
			s := tc.R * math.Pow(r.Float64(), 1/float64(d))
			for j := range v {
				v[j] *= s
			}
			if f := halfSquares(x, y, v, d); f < best-1e-12*(1+best) {
				t.Fatalf("%+v: random point %v has %v < %v", tc, v, f, best)
			}
		}
		// Projected gradient descent, an independent method, to its limit.
		g := make([]float64, d)
		clear(v)
		step := 1 / (trace(a, d) + 1e-300)
		for range 200000 {
			for j := range d {
				g[j] = dot(a[j*d:(j+1)*d], v) - b[j]
			}
			for j := range d {
				v[j] -= step * g[j]
			}
			project(v, tc.R)
		}
		if f := halfSquares(x, y, v, d); f < best-1e-10*(1+best) {
			t.Errorf("%+v: projected gradient reaches %v < %v", tc, f, best)
		}
	}
}

func trace(a []float64, d int) float64 {
	var s float64
	for j := range d {
		s += a[j*d+j]
	}
	return s
}

// TestTrustRegionBruteForce: in two dimensions the minimum over a polar
// grid of the disk (a 1000 x 1000 grid plus the boundary at 2 10^5 angles)
// is never below the solver's by more than the grid's resolution allows,
// and the solver is within 1e-6 of it.
func TestTrustRegionBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 6 {
		R := []float64{0.05, 0.2, 1, 3, 0.5, 10}[trial]
		x, y, a, b := lsData(r, 30, 2)
		w, _, err := trustRegion(a, b, 2, R, true)
		if err != nil {
			t.Fatal(err)
		}
		got := halfSquares(x, y, w, 2)
		grid := math.Inf(1)
		v := make([]float64, 2)
		for i := range 200000 {
			th := 2 * math.Pi * float64(i) / 2e5
			v[0], v[1] = R*math.Cos(th), R*math.Sin(th)
			grid = math.Min(grid, halfSquares(x, y, v, 2))
		}
		for i := range 1000 {
			for k := range 1000 {
				rr := R * float64(i) / 1000
				th := 2 * math.Pi * float64(k) / 1000
				v[0], v[1] = rr*math.Cos(th), rr*math.Sin(th)
				grid = math.Min(grid, halfSquares(x, y, v, 2))
			}
		}
		if grid < got-1e-12*(1+got) || got > grid+1e-6*(1+grid) {
			t.Errorf("R = %v: solver %v, grid %v", R, got, grid)
		}
	}
}

// TestLeastAbsoluteCertified: the absolute-loss hindsight's certificate
// holds (value - gap is at most every value the ball takes, on random
// points and on a fine 2-d grid), the gap reached is within the target
// 1e-9 relative, and on data that a point of the ball fits exactly the
// value is 0 to rounding.
func TestLeastAbsoluteCertified(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		m, d int
		R    float64
	}{{40, 2, 0.3}, {40, 2, 3}, {300, 10, 0.5}, {300, 10, 5}, {5, 8, 1}, {2000, 47, 1}} {
		x, y, _, _ := lsData(r, tc.m, tc.d)
		c := make([]float64, tc.m)
		for i := range c {
			c[i] = float64(1 + r.IntN(3))
		}
		w, val, gap, err := leastAbsolute(x, y, c, tc.d, tc.R, nil, 1e-9)
		if err != nil {
			t.Fatal(err)
		}
		if math.Sqrt(dot(w, w)) > tc.R*(1+1e-12) {
			t.Errorf("%+v: w outside the ball", tc)
		}
		abs := func(v []float64) float64 {
			var s float64
			for i := range tc.m {
				s += c[i] * math.Abs(dot(x[i*tc.d:(i+1)*tc.d], v)-y[i])
			}
			return s
		}
		if got := abs(w); got != val {
			t.Errorf("%+v: value %v, P(w) %v", tc, val, got)
		}
		if gap > 1e-9*val+1e-12 {
			t.Errorf("%+v: gap %v not within 1e-9 of %v", tc, gap, val)
		}
		v := make([]float64, tc.d)
		for range 5000 {
			fillUnit(v, r)
			s := tc.R * math.Pow(r.Float64(), 1/float64(tc.d))
			for j := range v {
				v[j] *= s
			}
			if f := abs(v); f < val-gap-1e-12 {
				t.Fatalf("%+v: a point of the ball has %v < value - gap %v", tc, f, val-gap)
			}
		}
		if tc.d == 2 {
			grid := math.Inf(1)
			for i := range 1500 {
				for k := range 1500 {
					rr := tc.R * float64(i) / 1499
					th := 2 * math.Pi * float64(k) / 1500
					v[0], v[1] = rr*math.Cos(th), rr*math.Sin(th)
					grid = math.Min(grid, abs(v))
				}
			}
			if grid < val-gap-1e-12 || val > grid+1e-3*(1+grid) {
				t.Errorf("%+v: value %v (gap %v), grid %v", tc, val, gap, grid)
			}
		}
	}
	// Exactly fitted data: y = x^T w* with ||w*|| < R.
	x, _, _, _ := lsData(r, 100, 5)
	ws := []float64{0.1, -0.2, 0.05, 0.3, 0}
	y := make([]float64, 100)
	c := make([]float64, 100)
	for i := range y {
		y[i], c[i] = dot(x[i*5:(i+1)*5], ws), 1
	}
	_, val, gap, err := leastAbsolute(x, y, c, 5, 1, nil, 1e-9)
	if err != nil || val > 1e-12 || gap > 1e-12 {
		t.Errorf("exact fit: value %v gap %v err %v", val, gap, err)
	}
}
