package ltr

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/lasso"
)

// TestR9ThetaSelection (attack round 2, R9a/R9b): a theta under its old
// name (<set>-<model>.theta.json, datasets prepared before the name
// carried the settings) loads with the same instance hash; two fits are
// ambiguous until Options.Theta names one; a sweep on an unconverged fit
// carries a note saying so.
func TestR9ThetaSelection(t *testing.T) {
	dir := mq2008Dataset(t)
	th := fitAll(t, dir, lasso.ModelReference)
	opts := Options{Dataset: dir, Features: "all", Silos: 10}
	cur, err := Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	if cur.Note != "" {
		t.Errorf("converged theta: note %q", cur.Note)
	}
	legacy := lasso.ThetaPath(dir, "all", lasso.ModelReference)
	if err := os.Rename(lasso.ThetaFile(dir, th), legacy); err != nil {
		t.Fatal(err)
	}
	old, err := Build(opts)
	if err != nil || old.Hash != cur.Hash {
		t.Fatalf("legacy name: err %v, hash %s want %s", err, old.Hash, cur.Hash)
	}
	// The same fit under both names counts once.
	fitAll(t, dir, lasso.ModelReference)
	if _, err := Build(opts); err != nil {
		t.Errorf("same content under the old and new names: %v", err)
	}
	os.Remove(legacy)
	// Two different fits: refused, naming both and theta_file.
	un, err := lasso.FitDataset(context.Background(), dir, lasso.FitOptions{Log: quiet, Features: "all", AllowUnconverged: true, Lasso: lasso.Options{Alpha: 1e-3, MaxIter: 1}})
	if err != nil {
		t.Fatal(err)
	}
	stem := strings.TrimSuffix(filepath.Base(lasso.ThetaFile(dir, un)), lasso.ThetaExt)
	_, err = Build(opts)
	if err == nil || !strings.Contains(err.Error(), "theta_file") || !strings.Contains(err.Error(), stem) {
		t.Fatalf("two thetas: err = %v", err)
	}
	opts.Theta = stem
	data, err := Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(data.Note, UnconvergedNote) || !strings.Contains(data.Note, stem) || data.Hash == cur.Hash {
		t.Errorf("unconverged theta: note %q, hash equal %v", data.Note, data.Hash == cur.Hash)
	}
	opts.Theta = "nope"
	if _, err := Build(opts); err == nil || !strings.Contains(err.Error(), "nope.theta.json") {
		t.Errorf("unknown theta_file: %v", err)
	}
}
