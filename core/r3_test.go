package core

import (
	"math"
	"strings"
	"testing"
)

// TestR3_U5InfiniteParamRefused (attack round 3, case U5): crs = inf on
// a mab algorithm passed Check (its range is >= 0, unbounded) and failed
// at the run id's JSON encoding, without file or key. Infinity is refused
// by Check, naming the key and the range, whatever the range; the
// largest finite value is still accepted by an unbounded range.
func TestR3_U5InfiniteParamRefused(t *testing.T) {
	p := Param{Key: "crs", Doc: "d", Default: 1, Min: 0, Max: math.Inf(1)}
	for _, v := range []float64{math.Inf(1), math.Inf(-1)} {
		if err := p.Check(v); err == nil || !strings.HasPrefix(err.Error(), "crs = ") || !strings.Contains(err.Error(), "finite") || !strings.Contains(err.Error(), ">= 0") {
			t.Errorf("crs = %v: %v", v, err)
		}
	}
	if err := p.Check(math.MaxFloat64); err != nil {
		t.Errorf("crs = MaxFloat64: %v", err)
	}
}
