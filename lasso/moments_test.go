package lasso

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// randomMatrix has q queries of 1..40 rows with d features of very
// different scales plus a constant column, and a linear target.
func randomMatrix(seed uint64, q, d int) *Matrix {
	r := rand.New(rand.NewPCG(seed, 1))
	m := &Matrix{D: d}
	for i := 0; i < q; i++ {
		n := 1 + r.IntN(40)
		x := make([]float64, n*d)
		y := make([]float64, n)
		for k := 0; k < n; k++ {
			x[k*d] = 0.01
			for j := 1; j < d; j++ {
				x[k*d+j] = math.Pow(10, float64(j%5)) * (1 + r.NormFloat64())
			}
			y[k] = x[k*d+1]*0.5 - x[k*d+2]*0.01 + r.NormFloat64()
		}
		m.X = append(m.X, x)
		m.Y = append(m.Y, y)
	}
	return m
}

// direct computes the moments by the textbook two-pass formulas.
func direct(m *Matrix) (n int, mean, c []float64) {
	p := m.D + 1
	var rows [][]float64
	for q := range m.Y {
		z := make([]float64, len(m.Y[q])*p)
		m.Fill(q, z)
		for r := 0; r < len(m.Y[q]); r++ {
			rows = append(rows, z[r*p:(r+1)*p])
		}
	}
	n = len(rows)
	mean = make([]float64, p)
	for _, z := range rows {
		for i, v := range z {
			mean[i] += v
		}
	}
	for i := range mean {
		mean[i] /= float64(n)
	}
	c = make([]float64, p*p)
	for _, z := range rows {
		for i := 0; i < p; i++ {
			for j := 0; j < p; j++ {
				c[i*p+j] += (z[i] - mean[i]) * (z[j] - mean[j])
			}
		}
	}
	return n, mean, c
}

func TestComputeMomentsMatchesDirect(t *testing.T) {
	m := randomMatrix(3, 700, 6) // > chunkRows rows: several chunks
	n, mean, c := direct(m)
	for _, workers := range []int{1, 2, 5} {
		ms, err := ComputeMoments(context.Background(), m, nil, 1, workers)
		if err != nil {
			t.Fatal(err)
		}
		got := ms[0]
		if got.N != n {
			t.Fatalf("N = %d, want %d", got.N, n)
		}
		for i := range mean {
			if math.Abs(got.Mean[i]-mean[i]) > 1e-12*math.Max(1, math.Abs(mean[i])) {
				t.Errorf("mean[%d] = %v, want %v", i, got.Mean[i], mean[i])
			}
		}
		p := got.P
		for i := 0; i < p; i++ {
			for j := 0; j < p; j++ {
				scale := math.Sqrt(math.Abs(c[i*p+i]*c[j*p+j])) + 1e-300
				if math.Abs(got.C[i*p+j]-c[i*p+j]) > 1e-10*scale+1e-20 {
					t.Errorf("C[%d,%d] = %v, want %v", i, j, got.C[i*p+j], c[i*p+j])
				}
			}
		}
		// The constant intercept column is exactly constant.
		if got.Mean[0] != 0.01 || got.C[0] != 0 || got.Min[0] != 0.01 || got.Max[0] != 0.01 {
			t.Errorf("constant column: mean %v var %v", got.Mean[0], got.C[0])
		}
	}
	a, _ := ComputeMoments(context.Background(), m, nil, 1, 1)
	b, _ := ComputeMoments(context.Background(), m, nil, 1, 4)
	if !reflect.DeepEqual(a, b) {
		t.Error("moments depend on the worker count")
	}
}

func TestGroupedMomentsMergeToTotal(t *testing.T) {
	m := randomMatrix(4, 300, 4)
	sizes := make([]int, m.Len())
	for q := range sizes {
		sizes[q] = m.Rows(q)
	}
	fold, err := GroupFolds(sizes, 3)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := ComputeMoments(context.Background(), m, fold, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	tot, _ := ComputeMoments(context.Background(), m, nil, 1, 2)
	all := MergeAll(ms, -1)
	if all.N != tot[0].N {
		t.Fatalf("N %d vs %d", all.N, tot[0].N)
	}
	for i := range all.C {
		if math.Abs(all.C[i]-tot[0].C[i]) > 1e-9*math.Max(1, math.Abs(tot[0].C[i])) {
			t.Fatalf("C[%d] %v vs %v", i, all.C[i], tot[0].C[i])
		}
	}
	// Held-out MSE from moments equals the direct residual mean square.
	w := []float64{3, 0.4, -0.002, 1e-4}
	b := 0.7
	got := heldOutMSE(ms[1], w, b)
	var ss float64
	var n int
	for q := range m.Y {
		if fold[q] != 1 {
			continue
		}
		for r, y := range m.Y[q] {
			pred := b
			for j := range w {
				pred += w[j] * m.X[q][r*m.D+j]
			}
			ss += (y - pred) * (y - pred)
			n++
		}
	}
	if want := ss / float64(n); math.Abs(got-want) > 1e-9*want {
		t.Errorf("heldOutMSE %v, want %v", got, want)
	}
}

func TestGroupFolds(t *testing.T) {
	tests := []struct {
		sizes []int
		k     int
		want  []int
	}{
		// Largest first to the lightest fold: 9->0, 5->1, 4->1 (5<9), 3->1? loads 9,9 -> 3 to fold 0 (tie: lowest).
		{[]int{5, 9, 3, 4}, 2, []int{1, 0, 0, 1}},
		{[]int{1, 1, 1}, 3, []int{0, 1, 2}},
		{[]int{2, 2, 2, 2}, 2, []int{0, 1, 0, 1}},
	}
	for _, tc := range tests {
		got, err := GroupFolds(tc.sizes, tc.k)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("GroupFolds(%v, %d) = %v, want %v", tc.sizes, tc.k, got, tc.want)
		}
	}
	if _, err := GroupFolds([]int{1, 2}, 3); err == nil {
		t.Error("more folds than queries accepted")
	}
	if _, err := GroupFolds([]int{1, 2}, 1); err == nil {
		t.Error("one fold accepted")
	}
}

func TestLogGrid(t *testing.T) {
	g := LogGrid(10, 0.01, 4)
	want := []float64{10, 1, 0.1, 0.01}
	for i := range want {
		if math.Abs(g[i]-want[i]) > 1e-12*want[i] {
			t.Fatalf("LogGrid = %v, want %v", g, want)
		}
	}
}

// TestAlphaMaxBoundary: just below alpha_max one coefficient enters, at
// alpha_max the fit is degenerate.
func TestAlphaMaxBoundary(t *testing.T) {
	m := randomMatrix(5, 50, 4)
	ms, _ := ComputeMoments(context.Background(), m, nil, 1, 1)
	for _, fi := range []bool{false, true} {
		amax := newGram(ms[0], fi).alphaMax(false)
		if _, err := FitMoments(ms[0], Options{Alpha: amax * 1.000001, FitIntercept: fi}); err == nil {
			t.Errorf("fit_intercept=%v: alpha above alpha_max not degenerate", fi)
		}
		r, err := FitMoments(ms[0], Options{Alpha: amax * 0.99, FitIntercept: fi})
		if err != nil || r.NonZero != 1 {
			t.Errorf("fit_intercept=%v: just below alpha_max: %v non-zero, err %v", fi, r.NonZero, err)
		}
	}
}

func TestOptionErrors(t *testing.T) {
	ms, _ := ComputeMoments(context.Background(), randomMatrix(6, 5, 3), nil, 1, 1)
	for _, o := range []Options{{}, {Alpha: -1}, {Alpha: math.NaN()}, {Alpha: 1, Tol: -1}, {Alpha: 1, MaxIter: -3}} {
		if _, err := FitMoments(ms[0], o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if _, err := CrossValidate(context.Background(), ms, Options{CV: &CVOptions{}}); err == nil {
		t.Error("CV with one fold accepted")
	}
}

// TestCVGridExtension: when the minimum of the default grid is its smallest
// alpha, the grid continues downwards with the same log step until the
// minimum is interior; explicit grids are never extended.
func TestCVGridExtension(t *testing.T) {
	m := randomMatrix(7, 200, 4)
	sizes := make([]int, m.Len())
	for q := range sizes {
		sizes[q] = m.Rows(q)
	}
	fold, _ := GroupFolds(sizes, 3)
	ms, err := ComputeMoments(context.Background(), m, fold, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	r, err := CrossValidate(context.Background(), ms, Options{CV: &CVOptions{NAlphas: 2, Eps: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.CV) <= 2 || len(r.CV)%2 != 0 || len(r.CV) > 2*(1+maxGridExtensions) {
		t.Fatalf("curve has %d points", len(r.CV))
	}
	ratio0 := r.CV[1].Alpha / r.CV[0].Alpha
	for i := 1; i < len(r.CV); i++ {
		if ratio := r.CV[i].Alpha / r.CV[i-1].Alpha; math.Abs(ratio-ratio0) > 1e-9 || ratio >= 1 {
			t.Errorf("alpha step %d: ratio %v, want %v", i, ratio, ratio0)
		}
	}
	if r.Alpha == r.CV[len(r.CV)-1].Alpha && len(r.CV) < 2*(1+maxGridExtensions) {
		t.Errorf("stopped extending with the minimum at the edge (alpha %v)", r.Alpha)
	}
	ex, err := CrossValidate(context.Background(), ms, Options{CV: &CVOptions{Alphas: []float64{r.CV[0].Alpha, r.CV[1].Alpha}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.CV) != 2 {
		t.Errorf("explicit grid extended to %d points", len(ex.CV))
	}
}

// TestChooseAlpha: the largest alpha whose mean CV error is within a
// relative 1e-6 of the minimum, for errors of either sign (an exact fit's
// held-out error, computed from the moments, rounds below zero about half
// the time); a NaN or infinite error, and an empty curve, are errors.
// Mutation controls, each of which made cases fail: the former rule (limit
// min*(1+1e-6), no NaN check, and a fallback to the smallest alpha when no
// point met the limit), which chose the smallest alpha for a NaN anywhere
// and for a negative minimum, whatever its error; that fallback's
// len(curve)-1 as len(curve)+1; the limit's + as - (no point meets it) or
// * as / (every point does); p.MSE <= limit as < ("exact fit") or >.
func TestChooseAlpha(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name string
		mse  []float64
		want int // -1: an error
	}{
		{"minimum inside", []float64{3, 2, 1, 2}, 2},
		{"exact ties: largest alpha", []float64{3, 1, 1, 1}, 1},
		{"rounding-level differences are ties", []float64{3, 1 + 1e-7, 1, 1 - 1e-9}, 1},
		{"a real improvement is not", []float64{3, 1 + 1e-5, 1}, 2},
		{"minimum at the smallest alpha", []float64{5, 4, 3}, 2},
		{"exact fit: ties at zero error too", []float64{3, 0, 0}, 1},
		{"negative minimum", []float64{3, -2e-17, -1e-17, 5}, 1},
		{"negative ties", []float64{3, -1 + 1e-7, -1, 5}, 1},
		{"negative, a real improvement", []float64{3, -1 + 1e-5, -1, 5}, 2},
		{"one point", []float64{7}, 0},
		{"NaN in the middle", []float64{3, nan, 1}, -1},
		{"NaN at the smallest alpha", []float64{3, 2, nan}, -1},
		{"all NaN", []float64{nan, nan}, -1},
		{"infinite", []float64{inf, 1}, -1},
		{"empty", nil, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			curve := make([]CVPoint, len(tc.mse))
			for i, m := range tc.mse {
				curve[i] = CVPoint{Alpha: float64(len(tc.mse) - i), MSE: m}
			}
			got, err := chooseAlpha(curve)
			if tc.want < 0 {
				if err == nil {
					t.Fatalf("chooseAlpha(%v) = %d, want an error", tc.mse, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("chooseAlpha(%v) = %d, %v, want %d", tc.mse, got, err, tc.want)
			}
		})
	}
	_, err := chooseAlpha([]CVPoint{{Alpha: 0.5, MSE: 2}, {Alpha: 0.25, MSE: nan}})
	if err == nil || !strings.Contains(err.Error(), "alpha = 0.25 is NaN") {
		t.Errorf("error %v does not name the alpha whose error is NaN", err)
	}
}

// TestColumnExtremes: the running minimum and maximum keep the first of
// equal values (so +0 then -0 stays +0, as in referenceMoments) and ignore
// NaN, in the four-row steps and in the tail alike.
func TestColumnExtremes(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, tc := range []struct {
		name           string
		col            []float64
		wantLo, wantHi float64
	}{
		{"+0 first, four-row step", []float64{0, negZero, 0, negZero}, 0, 0},
		{"-0 first, four-row step", []float64{negZero, 0, negZero, 0}, negZero, negZero},
		{"+0 first, tail", []float64{1, 2, 3, 4, 0, negZero}, 0, 4},
		{"-0 first, tail", []float64{-1, -2, -3, -4, negZero, 0}, -4, negZero},
		{"NaN ignored", []float64{math.NaN(), 2, math.NaN(), 1, math.NaN()}, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum := []float64{0}
			lo, hi := []float64{math.Inf(1)}, []float64{math.Inf(-1)}
			columnStats(tc.col, 1, sum, lo, hi)
			if math.Float64bits(lo[0]) != math.Float64bits(tc.wantLo) || math.Float64bits(hi[0]) != math.Float64bits(tc.wantHi) {
				t.Errorf("min, max = %v (sign %v), %v (sign %v); want %v (sign %v), %v (sign %v)",
					lo[0], math.Signbit(lo[0]), hi[0], math.Signbit(hi[0]), tc.wantLo, math.Signbit(tc.wantLo), tc.wantHi, math.Signbit(tc.wantHi))
			}
		})
	}
}

// TestChunkBoundary: ComputeMoments cuts the data into chunks of whole
// queries of at most chunkRows rows (a query that fills a chunk exactly
// stays in it) and merges them in order; its moments equal, bit for bit,
// those built here chunk by chunk. The chunking fixes the bits of every
// fit, so of the theta artifacts and the instance hashes named by them.
func TestChunkBoundary(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 1))
	const d = 3
	p := d + 1
	m := &Matrix{D: d}
	for _, n := range []int{chunkRows / 2, chunkRows / 2, 10, chunkRows - 10, 2} {
		x, y := make([]float64, n*d), make([]float64, n)
		for i := range x {
			x[i] = r.NormFloat64() * 100
		}
		for i := range y {
			y[i] = r.NormFloat64() + 3
		}
		m.X, m.Y = append(m.X, x), append(m.Y, y)
	}
	// Chunks: queries {0, 1} and {2, 3} (exactly chunkRows rows each), {4}.
	want := NewMoments(p)
	var s gramScratch
	for _, qs := range [][]int{{0, 1}, {2, 3}, {4}} {
		var z []float64
		for _, q := range qs {
			zq := make([]float64, m.Rows(q)*p)
			m.Fill(q, zq)
			z = append(z, zq...)
		}
		c := NewMoments(p)
		c.addBlock(z, len(z)/p, &s)
		want.Merge(c)
	}
	for _, workers := range []int{1, 2} {
		ms, err := ComputeMoments(context.Background(), m, nil, 1, workers)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameMoments(ms[0], want); err != nil {
			t.Errorf("workers %d: %v", workers, err)
		}
	}
}

// TestMatrixValidate: a Matrix whose feature blocks do not match its
// targets, in number or in a query's length, is refused naming the query.
func TestMatrixValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    Matrix
		err  string // "" for valid
	}{
		{"valid", Matrix{D: 2, X: [][]float64{{1, 2, 3, 4}, {5, 6}}, Y: [][]float64{{1, 2}, {3}}}, ""},
		{"empty", Matrix{D: 2}, ""},
		{"a block missing", Matrix{D: 2, X: [][]float64{{1, 2}}, Y: [][]float64{{1}, {2}}}, "1 feature blocks for 2 target blocks"},
		{"a row short", Matrix{D: 2, X: [][]float64{{1, 2}, {5, 6, 7}}, Y: [][]float64{{1}, {3, 4}}}, "query 1: 3 feature values for 2 rows of 2 features"},
		{"a row long", Matrix{D: 2, X: [][]float64{{1, 2, 3}}, Y: [][]float64{{1}}}, "query 0: 3 feature values"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.m.Validate()
			if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Errorf("err = %v, want %q", err, tc.err)
			}
		})
	}
}
