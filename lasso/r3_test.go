package lasso_test

import (
	"testing"

	. "github.com/fedbandit/fedbandit/lasso"
)

// TestR3_L1TolInName (attack round 3, case L1): `prep fit --tol 0.999`
// wrote over the converged theta* fitted at the same alpha with the
// default tol, and `--max-iter N --allow-unconverged` over another N's
// -unconverged file. Their names now differ in tol (off its default) and
// in max_iter (of an unconverged fit, off its default); at the defaults,
// and for older files that recorded neither (0), the names are the ones
// written before.
func TestR3_L1TolInName(t *testing.T) {
	base := Settings{Alpha: 1e-4, Tol: DefaultTol, MaxIter: DefaultMaxIter}
	names := map[string]string{}
	for _, tc := range []struct {
		what      string
		s         Settings
		converged bool
		want      string
	}{
		{"defaults", base, true, "all-reference-a0.0001"},
		{"older file, tol and max_iter unrecorded", Settings{Alpha: 1e-4}, true, "all-reference-a0.0001"},
		{"tol 0.999", Settings{Alpha: 1e-4, Tol: 0.999, MaxIter: DefaultMaxIter}, true, "all-reference-a0.0001-tol0.999"},
		{"max_iter 20, converged", Settings{Alpha: 1e-4, Tol: DefaultTol, MaxIter: 20}, true, "all-reference-a0.0001"},
		{"unconverged at the default max_iter", base, false, "all-reference-a0.0001-unconverged"},
		{"unconverged at max_iter 1", Settings{Alpha: 1e-4, Tol: DefaultTol, MaxIter: 1}, false, "all-reference-a0.0001-maxiter1-unconverged"},
		{"unconverged at max_iter 2", Settings{Alpha: 1e-4, Tol: DefaultTol, MaxIter: 2}, false, "all-reference-a0.0001-maxiter2-unconverged"},
		{"cv, tol 1e-6", Settings{CV: &CVSettings{Folds: 5, NAlphas: 10, Eps: 1e-3}, Tol: 1e-6}, true, "all-reference-cv5-n10-e0.001-tol1e-06"},
	} {
		got := ThetaStem("all", ModelReference, tc.s, tc.converged)
		if got != tc.want {
			t.Errorf("%s: ThetaStem = %q, want %q", tc.what, got, tc.want)
		}
		names[got] = tc.what
	}
	if len(names) != 6 {
		t.Errorf("%d distinct names, want 6: %v", len(names), names)
	}
}
