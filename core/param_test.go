package core

import (
	"maps"
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

// TestIdentity: a Late parameter at its default leaves a run's identity
// unchanged; set to any other value (0 included, when the default is not
// 0) it enters it; other parameters always enter it, default or not.
func TestIdentity(t *testing.T) {
	ps := []Param{
		{Key: "step", Default: 1, Min: 0, Max: 10},
		{Key: "tuning", Default: 0, Min: 0, Max: 1, Integer: true, Late: true},
		{Key: "late_one", Default: 1, Min: 0, Max: 1, Late: true},
	}
	for _, c := range []struct {
		set, want map[string]float64
	}{
		{nil, map[string]float64{"step": 1}},
		{map[string]float64{"tuning": 1}, map[string]float64{"step": 1, "tuning": 1}},
		{map[string]float64{"late_one": 0}, map[string]float64{"step": 1, "late_one": 0}},
		{map[string]float64{"tuning": 0, "step": 1}, map[string]float64{"step": 1}},
	} {
		r, err := Resolve(ps, c.set)
		if err != nil {
			t.Fatal(err)
		}
		got := Identity(ps, r)
		if !maps.Equal(got, c.want) {
			t.Errorf("Identity(Resolve(%v)) = %v, want %v", c.set, got, c.want)
		}
		if again, _ := Resolve(ps, got); !maps.Equal(again, r) {
			t.Errorf("Resolve(Identity(%v)) = %v, want %v", r, again, r)
		}
		if len(r) != 3 {
			t.Errorf("Identity changed its argument: %v", r)
		}
	}
}

// TestIdentityPinned: a Pinned parameter (one that made explicit what
// earlier runs did implicitly, away from its default) leaves the identity
// at its pinned value, so those runs keep their ids, and enters it at any
// other value, its default included.
func TestIdentityPinned(t *testing.T) {
	one := 1.0
	ps := []Param{
		{Key: "step", Default: 1, Min: 0, Max: 10},
		{Key: "paper", Default: 0, Min: 0, Max: 1, Integer: true, Pinned: &one},
	}
	for _, c := range []struct {
		set, want map[string]float64
	}{
		{nil, map[string]float64{"step": 1, "paper": 0}},
		{map[string]float64{"paper": 0}, map[string]float64{"step": 1, "paper": 0}},
		{map[string]float64{"paper": 1}, map[string]float64{"step": 1}},
	} {
		r, err := Resolve(ps, c.set)
		if err != nil {
			t.Fatal(err)
		}
		if got := Identity(ps, r); !maps.Equal(got, c.want) {
			t.Errorf("Identity(Resolve(%v)) = %v, want %v", c.set, got, c.want)
		}
	}
}
