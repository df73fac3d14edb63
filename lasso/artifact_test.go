package lasso_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	. "github.com/fedbandit/fedbandit/lasso"
)

// Attack round 2, R9a/R9b: fits are artifacts, not overwrites.
//
// Mutation controls (run 2026-11-25): dropping the AllowUnconverged check
// in FitDataset makes TestR9aUnconvergedRefused fail; a ThetaStem without
// the alpha makes TestR9bAlphasCoexist fail.

// TestR9aUnconvergedRefused: a fit that stops at max_iter is refused and
// writes nothing; with AllowUnconverged it gets its own -unconverged file
// and never replaces the converged one.
func TestR9aUnconvergedRefused(t *testing.T) {
	dir := mq2008Dataset(t)
	good, err := FitDataset(context.Background(), dir, FitOptions{Log: Quiet, Features: "all", Lasso: Options{Alpha: 1e-4}})
	if err != nil {
		t.Fatal(err)
	}
	goodBytes, err := os.ReadFile(ThetaFile(dir, good))
	if err != nil {
		t.Fatal(err)
	}
	o := FitOptions{Log: Quiet, Features: "all", Lasso: Options{Alpha: 1e-4, MaxIter: 1}}
	if _, err := FitDataset(context.Background(), dir, o); !errors.Is(err, ErrUnconverged) {
		t.Fatalf("max_iter 1: err = %v, want ErrUnconverged", err)
	}
	if ps, _ := FindThetas(dir, "all", ModelReference); len(ps) != 1 {
		t.Fatalf("a refused fit wrote an artifact: %v", ps)
	}
	o.AllowUnconverged = true
	bad, err := FitDataset(context.Background(), dir, o)
	if err != nil {
		t.Fatal(err)
	}
	path := ThetaFile(dir, bad)
	if filepath.Base(path) != "all-reference-a0.0001-maxiter1-unconverged.theta.json" || bad.Converged() {
		t.Errorf("unconverged artifact %s, converged %v", path, bad.Converged())
	}
	back, _, err := ReadTheta(path)
	if err != nil || back.Fit.Converged {
		t.Errorf("read back: converged %v, err %v", back.Fit.Converged, err)
	}
	if b, _ := os.ReadFile(ThetaFile(dir, good)); string(b) != string(goodBytes) {
		t.Error("the converged artifact changed")
	}
}

// TestR9bAlphasCoexist: fits with other settings are other files, named
// by every setting that changes the solution.
func TestR9bAlphasCoexist(t *testing.T) {
	dir := mq2008Dataset(t)
	var names []string
	for _, o := range []Options{{Alpha: 1e-4}, {Alpha: 1e-3}, {Alpha: 1e-3, FitIntercept: true}, {Alpha: 1e-3, Positive: true},
		{CV: &CVOptions{Folds: 3, NAlphas: 4, Eps: 0.5}}, {CV: &CVOptions{Folds: 3, Alphas: []float64{1e-3, 1e-4}}}} {
		th, err := FitDataset(context.Background(), dir, FitOptions{Log: Quiet, Features: "all", Lasso: o})
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		names = append(names, filepath.Base(ThetaFile(dir, th)))
		if want := (FitOptions{Features: "all", Lasso: o}).Stem("all") + ThetaExt; names[len(names)-1] != want {
			t.Errorf("FitOptions.Stem %s, artifact %s", want, names[len(names)-1])
		}
	}
	want := []string{"all-reference-a0.0001.theta.json", "all-reference-a0.001.theta.json", "all-reference-a0.001-fi.theta.json",
		"all-reference-a0.001-pos.theta.json", "all-reference-cv3-n4-e0.5.theta.json", "all-reference-cv3-g"}
	for i, w := range want {
		if names[i] != w && !(i == len(want)-1 && len(names[i]) > len(w) && names[i][:len(w)] == w) {
			t.Errorf("artifact %d: %s, want %s", i, names[i], w)
		}
	}
	ps, err := FindThetas(dir, "all", ModelReference)
	if err != nil || len(ps) != len(want) {
		t.Errorf("FindThetas: %d files (%v), want %d", len(ps), err, len(want))
	}
}
