package lasso_test

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	. "github.com/fedbandit/fedbandit/lasso"
)

// TestThetaStemNames: an artifact's name spells every setting that changes
// the solution in full (shortest exact form of each number), so two fits
// that differ in any of them never share a file; a name that rounded alpha
// or eps would let one fit overwrite another's theta*.
func TestThetaStemNames(t *testing.T) {
	for _, tc := range []struct {
		name      string
		s         Settings
		converged bool
		want      string
	}{
		{"alpha", Settings{Alpha: 0.00025}, true, "all-reference-a0.00025"},
		{"alpha, other digits", Settings{Alpha: 0.00035}, true, "all-reference-a0.00035"},
		{"alpha, 17 digits", Settings{Alpha: math.Nextafter(0.3, 1)}, true, "all-reference-a0.30000000000000004"},
		{"cv default grid", Settings{CV: &CVSettings{Folds: 5, NAlphas: 10, Eps: 0.0015}}, true, "all-reference-cv5-n10-e0.0015"},
		{"intercept, positive, unconverged", Settings{Alpha: 1.5, FitIntercept: true, Positive: true}, false, "all-reference-a1.5-fi-pos-unconverged"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ThetaStem("all", ModelReference, tc.s, tc.converged); got != tc.want {
				t.Errorf("ThetaStem = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestFindThetasSelects: FindThetas lists exactly the artifacts of one
// feature set and model (the current names and the older ThetaPath name),
// sorted, and neither another set's or model's nor a temporary file.
func TestFindThetasSelects(t *testing.T) {
	dir := t.TempDir()
	if got, err := FindThetas(dir, "all", ModelReference); err != nil || got != nil {
		t.Fatalf("no instances directory: %v, %v", got, err)
	}
	inst := filepath.Join(dir, InstancesDir)
	if err := os.Mkdir(inst, 0o755); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"all-reference-a0.001-fi.theta.json",
		"all-reference-a0.001.theta.json",
		"all-reference-cv5-n10-e0.001.theta.json",
		filepath.Base(ThetaPath(dir, "all", ModelReference)),
	}
	others := []string{
		"all-well-specified-a0.001.theta.json",
		"title-reference-a0.001.theta.json",
		"all-reference-a0.001.theta.json.tmp",
		"all-reference-a0.001.json",
		"all-referenced-a0.001.theta.json",
		"all-reference-x.theta.json",
	}
	for _, n := range append(append([]string(nil), want...), others...) {
		if err := os.WriteFile(filepath.Join(inst, n), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := FindThetas(dir, "all", ModelReference)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		got[i] = filepath.Base(got[i])
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("FindThetas = %q, want %q", got, want)
	}
}
