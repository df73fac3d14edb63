package core

import (
	"math"
	"strings"
	"testing"
)

// TestParamRange: messages say the range as a reader would, without a
// huge number for a parameter that has no upper bound.
func TestParamRange(t *testing.T) {
	for _, c := range []struct {
		p    Param
		want string
	}{
		{Param{Min: 0, Max: 1}, "in [0, 1]"},
		{Param{Min: 0, Max: math.MaxFloat64}, ">= 0"},
		{Param{Min: 2, Max: math.Inf(1)}, ">= 2"},
		{Param{Min: math.Inf(-1), Max: 5}, "<= 5"},
	} {
		if got := c.p.Range(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.p, got, c.want)
		}
	}
	err := Param{Key: "sync_threshold", Min: 0, Max: math.MaxFloat64}.Check(-1)
	if err == nil || !strings.Contains(err.Error(), "sync_threshold = -1") || !strings.Contains(err.Error(), ">= 0") {
		t.Errorf("Check(-1): %v", err)
	}
}
