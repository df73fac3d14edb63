package lasso

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// cvFolds returns the per-fold moments of randomMatrix(seed, 120, 4) in k
// query folds.
func cvFolds(t *testing.T, seed uint64, k int) []*Moments {
	t.Helper()
	m := randomMatrix(seed, 120, 4)
	sizes := make([]int, m.Len())
	for q := range sizes {
		sizes[q] = m.Rows(q)
	}
	fold, err := GroupFolds(sizes, k)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := ComputeMoments(context.Background(), m, fold, k, 2)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// TestCVPointStatistics: each point of the CV curve holds, per fold, the
// held-out MSE of a fit on the other folds (with its intercept when one is
// fitted), their mean and the standard error of that mean (sample
// standard deviation over folds / sqrt(K)), recomputed here from the
// folds' moments. MSE and SE are compared bit for bit (they are written
// into the theta artifact, whose bytes name the instance).
func TestCVPointStatistics(t *testing.T) {
	for _, tc := range []struct {
		k            int
		fitIntercept bool
	}{{2, false}, {3, false}, {3, true}} {
		k := tc.k
		folds := cvFolds(t, 41, k)
		all := MergeAll(folds, -1)
		amax := newGram(all, tc.fitIntercept).alphaMax(false)
		alphas := []float64{amax / 3, amax / 100, amax / 1e4}
		r, err := CrossValidate(context.Background(), folds, Options{FitIntercept: tc.fitIntercept, CV: &CVOptions{Alphas: alphas}})
		if err != nil {
			t.Fatalf("%d folds: %v", k, err)
		}
		if r.Folds != k || len(r.CV) != len(alphas) {
			t.Fatalf("%d folds: result has %d folds, %d points", k, r.Folds, len(r.CV))
		}
		for i, p := range r.CV {
			if p.Alpha != alphas[i] || len(p.FoldMSE) != k {
				t.Fatalf("%d folds: point %d: alpha %v, %d fold errors", k, i, p.Alpha, len(p.FoldMSE))
			}
			var mean float64
			for f, e := range p.FoldMSE {
				// A cold fit on the training folds reaches the same
				// optimum as the warm-started path, within the tolerance.
				fit, err := FitMoments(MergeAll(folds, f), Options{Alpha: p.Alpha, FitIntercept: tc.fitIntercept})
				if err != nil {
					t.Fatal(err)
				}
				if want := heldOutMSE(folds[f], fit.Coef, fit.Intercept); math.Abs(e-want) > 1e-3*want {
					t.Errorf("%d folds: alpha %v: fold %d held-out MSE %v, a fit on the other folds gives %v", k, p.Alpha, f, e, want)
				}
				mean += e
			}
			mean /= float64(k)
			var ss float64
			for _, e := range p.FoldMSE {
				ss += (e - mean) * (e - mean)
			}
			se := math.Sqrt(ss/float64(k-1)) / math.Sqrt(float64(k))
			// Bit for bit: the curve is part of the theta artifact's bytes.
			if p.MSE != mean || p.SE != se || se == 0 {
				t.Errorf("%d folds: alpha %v: MSE %v SE %v, the fold errors give %v and %v", k, p.Alpha, p.MSE, p.SE, mean, se)
			}
		}
	}
}

// TestCVOptionsChecked: the CV settings that make no grid, or a grid of
// non-positive penalties, are refused with a message naming them; the
// smallest valid settings are accepted.
func TestCVOptionsChecked(t *testing.T) {
	folds := cvFolds(t, 42, 3)
	for _, tc := range []struct {
		name string
		cv   CVOptions
		err  string // "" for accepted
	}{
		{"two alphas", CVOptions{NAlphas: 2, Eps: 0.5}, ""},
		{"one alpha", CVOptions{NAlphas: 1}, "need at least 2 alphas"},
		{"eps 1", CVOptions{NAlphas: 3, Eps: 1}, "0 < eps < 1"},
		{"eps just below 1", CVOptions{NAlphas: 3, Eps: 0.999}, ""},
		{"eps negative", CVOptions{NAlphas: 3, Eps: -0.1}, "0 < eps < 1"},
		{"explicit alpha 0", CVOptions{Alphas: []float64{1, 0}}, "must be positive"},
		{"explicit alpha NaN", CVOptions{Alphas: []float64{math.NaN(), 1}}, "must be positive"},
		{"explicit alpha +Inf", CVOptions{Alphas: []float64{math.Inf(1)}}, "must be positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cv := tc.cv
			_, err := CrossValidate(context.Background(), folds, Options{CV: &cv})
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("err = %v, want one containing %q", err, tc.err)
			}
		})
	}
}

// TestCVTwoFolds: two folds are the fewest cross-validation takes
// (CrossValidate and GroupFolds alike).
func TestCVTwoFolds(t *testing.T) {
	m := randomMatrix(43, 30, 3)
	r, err := FitSource(context.Background(), m, Options{CV: &CVOptions{Folds: 2, NAlphas: 3}}, 1)
	if err != nil || r.Folds != 2 || len(r.CV[0].FoldMSE) != 2 {
		t.Fatalf("2 folds: %+v, %v", r, err)
	}
	if _, err := FitSource(context.Background(), m, Options{CV: &CVOptions{Folds: 1}}, 1); err == nil {
		t.Error("1 fold accepted")
	}
}

// TestCVGridExtensionCapped: when the CV error keeps falling down the
// default grid, the grid is extended maxGridExtensions times and no more
// (NAlphas points each), and the smallest alpha is chosen. One feature
// with a strong signal: less shrinkage is always better.
func TestCVGridExtensionCapped(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 1))
	m := &Matrix{D: 1}
	for q := 0; q < 30; q++ {
		x, y := make([]float64, 5), make([]float64, 5)
		for i := range x {
			x[i] = r.NormFloat64()
			y[i] = x[i] + 0.1*r.NormFloat64()
		}
		m.X, m.Y = append(m.X, x), append(m.Y, y)
	}
	res, err := FitSource(context.Background(), m, Options{FitIntercept: true, CV: &CVOptions{Folds: 3, NAlphas: 2, Eps: 0.9}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * (1 + maxGridExtensions); len(res.CV) != want {
		t.Fatalf("curve has %d points, want %d", len(res.CV), want)
	}
	for i := 1; i < len(res.CV); i++ {
		if !(res.CV[i].MSE < res.CV[i-1].MSE*(1-cvTieRel)) {
			t.Fatalf("CV error not falling at point %d: %v then %v (the test needs it to)", i, res.CV[i-1].MSE, res.CV[i].MSE)
		}
	}
	if last := res.CV[len(res.CV)-1].Alpha; res.Alpha != last {
		t.Errorf("chose alpha %v, want the smallest %v", res.Alpha, last)
	}
}
