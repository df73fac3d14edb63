package scaling

import (
	"errors"
	"math"
	"testing"

	"github.com/fedbandit/fedbandit/outputs/figure"
)

// TestR3_K4OneValueNoPanic (attack round 3, case K4): a fit over eps (or
// T) with one value of the key, whose points sit on one x, is drawn on a
// log axis padded to a decade either side; gonum widened it by 1 to
// [0, 2] and its log ticks panicked ("Values must be greater than 0 for a
// log scale"). Fits with no positive mean (K5's all-zero regret) are the
// error ErrNothingToDraw, never a panic. Each figure is saved, which is
// where gonum panicked.
//
// Mutation control (run 2026-11-29): removing the PadLogAxis calls from
// DrawOver makes the first case panic.
func TestR3_K4OneValueNoPanic(t *testing.T) {
	nan := math.NaN()
	one := []Fit{
		{Label: "A", Points: []Point{{X: 1, Mean: 1747, Seeds: 2}}, Exponent: nan, Lo: nan, Hi: nan, Prefactor: nan},
		{Label: "B", Points: []Point{{X: 1, Mean: 1152, Seeds: 2}}, Exponent: nan, Lo: nan, Hi: nan, Prefactor: nan},
	}
	if _, err := SaveOver(t.TempDir(), one, "one eps", OverEps); err != nil {
		t.Errorf("one eps: %v", err)
	}
	same := []Fit{{Label: "A", Points: []Point{{X: 1, Mean: 5, Seeds: 2}}, Exponent: nan, Lo: nan, Hi: nan, Prefactor: nan}}
	if _, err := SaveOver(t.TempDir(), same, "one point", OverT); err != nil {
		t.Errorf("one point: %v", err)
	}
	zero := []Fit{{Label: "A", Points: []Point{{X: 100}, {X: 1000}, {X: 10000}}, Exponent: nan, Lo: nan, Hi: nan, Prefactor: nan}}
	if _, err := SaveOver(t.TempDir(), zero, "zero", OverT); !errors.Is(err, figure.ErrNothingToDraw) {
		t.Errorf("no positive mean: %v, want ErrNothingToDraw", err)
	}
}
