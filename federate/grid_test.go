package federate

import (
	"math"
	"testing"
)

// TestToGridNearest: a summand's entry is rounded to the NEAREST multiple
// of the grid, ties to even, so that a user's contribution is within
// gamma/2 per entry of her exact summand: the sensitivity inflation the
// accountant charges (accountant.DiscreteSensitivities, c = 1/2 under
// add-remove). Rounding down (the mab privacy review's N16) errs by up to
// gamma and fails here.
func TestToGridNearest(t *testing.T) {
	const gamma = 1.0 / (1 << 20)
	for _, k := range []float64{-3, 0, 5, 1 << 20} {
		for _, f := range []float64{0, 0.25, 0.49, 0.5, 0.51, 0.75, 0.999} {
			v := (k + f) * gamma
			got := toGrid(v, gamma)
			if err := math.Abs(got - v); err > gamma/2 {
				t.Errorf("toGrid(%v) = %v: error %v gamma, above the charged gamma/2", v, got, err/gamma)
			}
			if q := got / gamma; q != math.Trunc(q) {
				t.Errorf("toGrid(%v) = %v: off the grid", v, got)
			}
			if f == 0.5 && math.Mod(got/gamma, 2) != 0 {
				t.Errorf("toGrid(%v) = %v: a tie not rounded to even", v, got)
			}
		}
	}
}
