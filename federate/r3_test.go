package federate

import (
	"errors"
	"testing"
	"time"
)

// TestR3_K2SyntheticSizeBounded (attack round 3, K2's counterpart in the
// linear family): a synthetic instance with k = 10^12 (or d = 10^12)
// passed validation, and its run allocated the contexts and died with
// "fatal error: out of memory" (the memory estimate does not count
// them). D above MaxSyntheticD and K D above MaxSyntheticContexts are
// errors naming the field, at once; the bounds themselves pass.
func TestR3_K2SyntheticSizeBounded(t *testing.T) {
	base := SyntheticSpec{D: 4, K: 5, NoiseVar: 0.25, ContextGen: ContextsFast}
	start := time.Now()
	for _, tc := range []struct {
		d, k  int
		field string
	}{{1_000_000_000_000, 5, "Synthetic.D"}, {MaxSyntheticD + 1, 5, "Synthetic.D"}, {4, 1_000_000_000_000, "Synthetic.K"}, {1000, 100_001, "Synthetic.K"}} {
		y := base
		y.D, y.K = tc.d, tc.k
		var fe *FieldError
		if err := y.Check(); !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("d %d, k %d: %v, want an error naming %s", tc.d, tc.k, err, tc.field)
		}
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("refusing took %v", d)
	}
	for _, dk := range [][2]int{{MaxSyntheticD, 1000}, {4, MaxSyntheticContexts / 4}} {
		y := base
		y.D, y.K = dk[0], dk[1]
		if err := y.Check(); err != nil {
			t.Errorf("d %d, k %d: %v", dk[0], dk[1], err)
		}
	}
}
