package mab

import (
	"strings"
	"testing"
	"time"
)

// TestR3_K2ArmsBounded (attack round 3, case K2): arms = 10^12 (or 10^9)
// made Load allocate the means and die with "fatal error: out of
// memory". arms and the length of means are bounded by MaxArms, refused
// by Validate naming the key before anything is allocated; MaxArms itself
// is valid.
func TestR3_K2ArmsBounded(t *testing.T) {
	start := time.Now()
	for _, k := range []int{1_000_000_000_000, 1_000_000_000, MaxArms + 1} {
		in := DefaultInstance()
		in.Arms, in.Gap = k, 0.5
		if _, err := in.MeanValues(); err == nil || !strings.HasPrefix(err.Error(), "arms = ") || !strings.Contains(err.Error(), "at most 1000000") {
			t.Errorf("arms = %d: %v", k, err)
		}
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("refusing took %v: something was allocated", d)
	}
	in := DefaultInstance()
	in.Arms, in.Gap = MaxArms, 0.5
	if mu, err := in.MeanValues(); err != nil || len(mu) != MaxArms {
		t.Errorf("arms = MaxArms: %d means, %v", len(mu), err)
	}
	in = DefaultInstance()
	in.Means = make([]float64, MaxArms+1)
	in.Means[0] = 1
	if err := in.Validate(); err == nil || !strings.HasPrefix(err.Error(), "means: ") {
		t.Errorf("%d means: %v", len(in.Means), err)
	}
}

// TestR3_W7DegenerateMeans (case W7): an instance whose arms all have
// the same mean (explicit means, or a gap so small that the drawn means
// all round to 0.5) has regret identically 0: refused, naming means or
// gap, as the linear family refuses theta = 0. Two distinct means pass.
func TestR3_W7DegenerateMeans(t *testing.T) {
	for _, tc := range []struct {
		in   Instance
		want string
	}{
		{Instance{Means: []float64{0.5, 0.5, 0.5}}, "means: every arm's mean is 0.5"},
		{Instance{Means: []float64{0, 0}}, "means: every arm's mean is 0"},
		{Instance{Arms: 4, Gap: 1e-300}, "gap = 1e-300: every arm's mean is 0.5"},
		{Instance{Arms: 4, Gap: 1e-300, MeansFrom: MeansNumpyLegacy}, "gap = 1e-300: every arm's mean"},
	} {
		in := DefaultInstance()
		in.Means, in.Arms, in.Gap = tc.in.Means, tc.in.Arms, tc.in.Gap
		if tc.in.MeansFrom != "" {
			in.MeansFrom = tc.in.MeansFrom
		}
		if _, err := in.MeanValues(); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "identically 0") {
			t.Errorf("%+v: %v, want %q", tc.in, err, tc.want)
		}
	}
	in := DefaultInstance()
	in.Means, in.Arms = []float64{0.49, 0.5}, 0
	if _, err := in.MeanValues(); err != nil {
		t.Errorf("means [0.49, 0.5]: %v", err)
	}
	in = DefaultInstance()
	in.Arms, in.Gap = 4, 1e-12
	if _, err := in.MeanValues(); err != nil {
		t.Errorf("gap 1e-12 (distinct means): %v", err)
	}
}
