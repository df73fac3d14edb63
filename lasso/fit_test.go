package lasso

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestFitDiagnostics: a fit's MSE, R^2, intercept, gap threshold and
// non-zero count are those of its coefficients on the training rows,
// recomputed here straight from the rows (residuals y - x.w - b); R^2 is
// 0, not NaN or -Inf, when the target is constant (TSS = 0), so the result
// still encodes as JSON.
func TestFitDiagnostics(t *testing.T) {
	constant := randomMatrix(52, 40, 4)
	for _, y := range constant.Y {
		for i := range y {
			y[i] = 2
		}
	}
	for _, tc := range []struct {
		name         string
		m            *Matrix
		fitIntercept bool
		alphaDiv     float64 // alpha = alpha_max / alphaDiv
	}{
		{"raw", randomMatrix(51, 40, 4), false, 1e3},
		{"intercept", randomMatrix(51, 40, 4), true, 1e3},
		{"constant target", constant, false, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := ComputeMoments(context.Background(), tc.m, nil, 1, 1)
			if err != nil {
				t.Fatal(err)
			}
			alpha := newGram(ms[0], tc.fitIntercept).alphaMax(false) / tc.alphaDiv
			r, err := FitMoments(ms[0], Options{Alpha: alpha, FitIntercept: tc.fitIntercept})
			if err != nil {
				t.Fatal(err)
			}
			nz := 0
			for _, w := range r.Coef {
				if w != 0 {
					nz++
				}
			}
			// Straight from the rows.
			var n int
			var sy, rss float64
			for q := range tc.m.Y {
				for i, y := range tc.m.Y[q] {
					sy += y
					n++
					res := y - r.Intercept
					for j, w := range r.Coef {
						res -= w * tc.m.X[q][i*tc.m.D+j]
					}
					rss += res * res
				}
			}
			var tss float64
			for q := range tc.m.Y {
				for _, y := range tc.m.Y[q] {
					tss += (y - sy/float64(n)) * (y - sy/float64(n))
				}
			}
			// The gap threshold: tol times y^T y (y centered with an
			// intercept) over n, on the scale of the (1/(2n)) objective.
			yy := tss
			if !tc.fitIntercept {
				yy = 0
				for q := range tc.m.Y {
					for _, y := range tc.m.Y[q] {
						yy += y * y
					}
				}
			}
			if want := DefaultTol * yy / float64(n); math.Abs(r.Tol-want) > 1e-9*want || !r.Converged || !(r.Gap < r.Tol) {
				t.Errorf("gap %v, threshold %v (want %v), converged %v", r.Gap, r.Tol, want, r.Converged)
			}
			wantR2 := 0.0
			if tss > 0 {
				wantR2 = 1 - rss/tss
			}
			if r.NonZero != nz || nz == 0 || r.Rows != n {
				t.Errorf("non-zero %d (coefficients %v), rows %d of %d", r.NonZero, r.Coef, r.Rows, n)
			}
			if want := rss / float64(n); math.Abs(r.MSE-want) > 1e-6*want {
				t.Errorf("MSE %v, the residuals give %v", r.MSE, want)
			}
			if math.Abs(r.R2-wantR2) > 1e-6 {
				t.Errorf("R2 %v, the residuals give %v", r.R2, wantR2)
			}
			if tc.fitIntercept {
				// The intercept centres the residuals.
				var sr float64
				for q := range tc.m.Y {
					for i, y := range tc.m.Y[q] {
						res := y - r.Intercept
						for j, w := range r.Coef {
							res -= w * tc.m.X[q][i*tc.m.D+j]
						}
						sr += res
					}
				}
				if math.Abs(sr/float64(n)) > 1e-9*(1+math.Abs(sy/float64(n))) {
					t.Errorf("intercept %v leaves mean residual %v", r.Intercept, sr/float64(n))
				}
			}
			if _, err := json.Marshal(r); err != nil {
				t.Errorf("result does not encode: %v", err)
			}
		})
	}
}

// TestDegenerateSuggestsAlpha: the error of an all-zero fit names
// alpha_max and suggests an alpha below it that gives a non-degenerate fit.
func TestDegenerateSuggestsAlpha(t *testing.T) {
	ms, err := ComputeMoments(context.Background(), randomMatrix(53, 40, 4), nil, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	amax := newGram(ms[0], false).alphaMax(false)
	_, err = FitMoments(ms[0], Options{Alpha: 2 * amax})
	if !errors.Is(err, ErrDegenerate) {
		t.Fatalf("alpha = 2 alpha_max: err %v, want ErrDegenerate", err)
	}
	msg := err.Error()
	var suggested float64
	if i := strings.Index(msg, "(e.g. "); i < 0 {
		t.Fatalf("no suggested alpha in %q", msg)
	} else if _, err := fmt.Sscanf(msg[i:], "(e.g. %g)", &suggested); err != nil {
		t.Fatalf("suggested alpha in %q: %v", msg, err)
	}
	if !strings.Contains(msg, fmt.Sprintf("alpha_max = %.6g", amax)) || !(suggested < amax) {
		t.Errorf("alpha_max %v, suggested %v: %q", amax, suggested, msg)
	}
	if r, err := FitMoments(ms[0], Options{Alpha: suggested}); err != nil || r.NonZero == 0 {
		t.Errorf("the suggested alpha %v: %v", suggested, err)
	}
}
