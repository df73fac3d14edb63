package lasso

import (
	"context"
	"math"
	"testing"
)

// testGram returns the lasso problem of randomMatrix(32, 60, 5) with or
// without a fitted intercept.
func testGram(t *testing.T, fitIntercept bool) *gram {
	t.Helper()
	ms, err := ComputeMoments(context.Background(), randomMatrix(32, 60, 5), nil, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	return newGram(ms[0], fitIntercept)
}

// TestSolveWarmStart: a solve started at the solution of the same problem
// starts from it (it stops after one sweep, within the tolerance of where
// it started) and leaves the caller's starting point unchanged. A solver
// that ignores w0, or keeps H = Q w out of step with it, takes more sweeps
// and, in cross-validation, gives a path that depends on how it was
// reached.
func TestSolveWarmStart(t *testing.T) {
	for _, tc := range []struct {
		name         string
		fitIntercept bool
		positive     bool
		alphaDiv     float64 // alpha = alpha_max / alphaDiv
	}{
		{"raw", false, false, 1e4},
		{"intercept", true, false, 1e3},
		{"positive", false, true, 1e3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := testGram(t, tc.fitIntercept)
			alpha := g.alphaMax(tc.positive) / tc.alphaDiv
			cold := g.solve(alpha, tc.positive, DefaultTol, DefaultMaxIter, nil)
			if !cold.converged || cold.iters < 3 {
				t.Fatalf("cold solve: converged %v after %d sweeps (want a solve of several sweeps)", cold.converged, cold.iters)
			}
			w0 := append([]float64(nil), cold.w...)
			warm := g.solve(alpha, tc.positive, DefaultTol, DefaultMaxIter, w0)
			if !warm.converged || warm.iters != 1 {
				t.Errorf("warm start at the solution: converged %v after %d sweeps, want 1", warm.converged, warm.iters)
			}
			var dw, wmax float64
			for j := range w0 {
				if w0[j] != cold.w[j] {
					t.Fatalf("solve changed its starting point: w0[%d] = %v, was %v", j, w0[j], cold.w[j])
				}
				dw = math.Max(dw, math.Abs(warm.w[j]-cold.w[j]))
				wmax = math.Max(wmax, math.Abs(cold.w[j]))
			}
			if dw > DefaultTol*wmax {
				t.Errorf("warm start moved the solution by %v (max |w| %v)", dw, wmax)
			}
		})
	}
}

// TestSolveMaxIter: a solve stopped by max_iter has run exactly max_iter
// sweeps, is not converged, and reports the duality gap of the coefficients
// it returns (scikit-learn's n_iter_ and dual_gap_ of an unconverged fit).
func TestSolveMaxIter(t *testing.T) {
	g := testGram(t, false)
	alpha := g.alphaMax(false) / 1e4 // 4 active coefficients, 13 sweeps at tol 1e-4
	for _, maxIter := range []int{1, 2, 3} {
		r := g.solve(alpha, false, 1e-12, maxIter, nil)
		if r.converged || r.iters != maxIter {
			t.Errorf("max_iter %d: converged %v after %d sweeps", maxIter, r.converged, r.iters)
		}
		H := make([]float64, g.d)
		for i := range H {
			for j, w := range r.w {
				H[i] += g.Q[i*g.d+j] * w
			}
		}
		want := g.dualGap(r.w, H, alpha*g.n, false)
		if math.Abs(r.gap-want) > 1e-9*math.Abs(want) || !(r.gap > r.tolScaled) {
			t.Errorf("max_iter %d: gap %v, the gap at the returned coefficients is %v (threshold %v)", maxIter, r.gap, want, r.tolScaled)
		}
	}
}

// diagGram returns a problem with n rows, Q = diag(qq) and X^T y = q.
func diagGram(n float64, qq, q []float64) *gram {
	d := len(q)
	g := &gram{d: d, n: n, Q: make([]float64, d*d), q: q}
	for j, v := range qq {
		g.Q[j*d+j] = v
	}
	return g
}

// TestAlphaRange: alpha_max is the largest |X_j^T y| / n (positive: the
// largest X_j^T y / n); alpha_min, the low end of the default CV grid, is
// the smallest |X_j^T y| / n over the features the solver can move: those
// with X_j^T y != 0, a non-zero squared norm (a column whose squares
// underflow has X_j^T X_j = 0 and is never updated) and, positive, a
// positive correlation. It is 0 when no feature can enter.
func TestAlphaRange(t *testing.T) {
	for _, tc := range []struct {
		name             string
		g                *gram
		positive         bool
		wantMax, wantMin float64
	}{
		{"signs", diagGram(4, []float64{1, 1, 1}, []float64{-8, 2, 12}), false, 3, 0.5},
		{"positive", diagGram(4, []float64{1, 1, 1}, []float64{-20, 2, 12}), true, 3, 0.5},
		{"zero correlation", diagGram(2, []float64{1, 1}, []float64{0, 6}), false, 3, 3},
		{"zero norm", diagGram(2, []float64{1, 0, 1}, []float64{6, 1e-170, 4}), false, 3, 2},
		{"zero norm last", diagGram(2, []float64{1, 1, 0}, []float64{6, 4, 1e-170}), false, 3, 2},
		{"no feature", diagGram(2, []float64{1, 1}, []float64{0, 0}), false, 0, 0},
		{"positive, none positive", diagGram(2, []float64{1, 1}, []float64{-1, -3}), true, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.g.alphaMax(tc.positive); got != tc.wantMax {
				t.Errorf("alphaMax = %v, want %v", got, tc.wantMax)
			}
			if got := tc.g.alphaMin(tc.positive); got != tc.wantMin {
				t.Errorf("alphaMin = %v, want %v", got, tc.wantMin)
			}
		})
	}
}

// TestFsign: the sign of the soft-threshold is +1, -1 or 0, and 0 for both
// zeros, so that a coordinate whose argument cancels exactly to zero is set
// to +0, never to -0 (which a theta artifact would record as "-0").
func TestFsign(t *testing.T) {
	for _, tc := range []struct {
		x, want float64
	}{
		{3, 1}, {5e-324, 1}, {-2, -1}, {-5e-324, -1}, {0, 0}, {math.Copysign(0, -1), 0},
	} {
		if got := fsign(tc.x); got != tc.want {
			t.Errorf("fsign(%v) = %v, want %v", tc.x, got, tc.want)
		}
		if got := fsign(tc.x) * 0.5; math.Signbit(got) != math.Signbit(tc.want) {
			t.Errorf("fsign(%v) * 0.5 = %v, want the sign of %v", tc.x, got, tc.want)
		}
	}
}
