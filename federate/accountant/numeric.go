package accountant

import (
	"errors"
	"fmt"
	"math"

	"github.com/fedbandit/fedbandit/internal/fmath"
)

// ErrInvalid is wrapped by every parameter-validation error of this package,
// so callers can test for bad input with errors.Is.
var ErrInvalid = errors.New("accountant: invalid parameter")

// safety is the relative margin (in units of float64 rounding error) added to
// every computed privacy loss so that float64 rounding can only make a
// reported epsilon or delta larger, never smaller (privacy.md section 3.9).
const safety = 64 * 0x1p-52

// up returns x nudged upward by a relative margin that dominates the
// rounding error of the few float64 operations that produced it.
func up(x float64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	return math.Nextafter(x+float64(math.Abs(x)*safety), math.Inf(1))
}

// down returns x nudged downward by the same margin as up.
func down(x float64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	return math.Nextafter(x-math.Abs(x)*safety, math.Inf(-1))
}

// finite reports whether x is neither NaN nor infinite.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// checkPos returns an error unless x is finite and > 0.
func checkPos(name string, x float64) error {
	if !finite(x) || x <= 0 {
		return fmt.Errorf("%w: %s = %v, want a finite value > 0", ErrInvalid, name, x)
	}
	return nil
}

// checkNonNeg returns an error unless x is finite and >= 0.
func checkNonNeg(name string, x float64) error {
	if !finite(x) || x < 0 {
		return fmt.Errorf("%w: %s = %v, want a finite value >= 0", ErrInvalid, name, x)
	}
	return nil
}

// checkDelta returns an error unless 0 < delta < 1.
func checkDelta(name string, d float64) error {
	if !finite(d) || d <= 0 || d >= 1 {
		return fmt.Errorf("%w: %s = %v, want 0 < %s < 1", ErrInvalid, name, d, name)
	}
	return nil
}

// phi is the standard normal CDF.
func phi(x float64) float64 { return float64(0.5 * fmath.Erfc(-x/math.Sqrt2)) }

// bisectMax returns the largest x in [lo, hi] (to a relative tolerance of
// 1e-15, or until the float64 midpoint no longer moves) for which ok(x) holds, assuming ok is monotone: true on [lo, x*]
// and false above. It returns the lower (feasible) bracket, so the result
// always satisfies ok. ok(lo) must hold.
func bisectMax(lo, hi float64, ok func(float64) bool) float64 {
	for i := 0; i < 2000 && hi-lo > 1e-15*math.Max(math.Abs(lo), math.Abs(hi)); i++ {
		mid := lo + float64((hi-lo)/2)
		if mid <= lo || mid >= hi {
			break
		}
		if ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// bisectMin returns the smallest x in [lo, hi] (same tolerance) for
// which ok(x) holds, assuming ok is false on [lo, x*) and true above. It
// returns the upper (feasible) bracket. ok(hi) must hold.
func bisectMin(lo, hi float64, ok func(float64) bool) float64 {
	for i := 0; i < 2000 && hi-lo > 1e-15*math.Max(math.Abs(lo), math.Abs(hi)); i++ {
		mid := lo + float64((hi-lo)/2)
		if mid <= lo || mid >= hi {
			break
		}
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
