package lasso

import (
	"context"
	"io"
	"log/slog"
	"reflect"
	"testing"

	"github.com/fedbandit/fedbandit/features"
)

// TestCVDeterministic checks that cross-validation gives bit-identical
// results for any worker count and on repetition, and that the chosen
// alpha minimises the CV curve.
func TestCVDeterministic(t *testing.T) {
	all, _ := features.Resolve(features.All, 46, features.DefaultIntercept)
	m := loadMQ2008(t).matrix(all)
	var first *Result
	for _, workers := range []int{1, 2, 3} {
		r, err := FitSource(context.Background(), m, Options{CV: &CVOptions{Folds: 4, NAlphas: 6}}, workers)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = r
			continue
		}
		if !reflect.DeepEqual(r, first) {
			t.Fatalf("workers=%d: result differs", workers)
		}
	}
	if len(first.CV) != 6 || first.Folds != 4 {
		t.Fatalf("curve %d points, %d folds", len(first.CV), first.Folds)
	}
	best := first.CV[0]
	for _, p := range first.CV {
		if p.MSE < best.MSE {
			best = p
		}
		if len(p.FoldMSE) != 4 || p.SE < 0 {
			t.Errorf("bad point %+v", p)
		}
	}
	if first.Alpha != best.Alpha {
		t.Errorf("chose alpha %v, curve minimum at %v", first.Alpha, best.Alpha)
	}
	// The largest alpha of the default grid is alpha_max: an all-zero fit,
	// whose held-out MSE is the variance around the training mean (> best).
	if first.CV[0].MSE <= best.MSE {
		t.Errorf("alpha_max MSE %v not above the best %v", first.CV[0].MSE, best.MSE)
	}
	if first.NonZero == 0 {
		t.Error("CV chose a degenerate alpha")
	}
}

// quiet discards the fit log lines in tests.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))
