package registry

import (
	"testing"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/federate/accountant"
)

// TestCostModels pins each family's cost model of one run against figures
// worked out by hand from the formulas' doc comments. Linear: M T K d^2
// multiply-adds; 8 bytes per float of 3 d^2 + d per silo, kappa tree
// levels per silo and two more, 4 synchronised d^2 + d, 2 per silo, 32
// bytes per curve point and 1 MiB. mab: T rounds; 64 bytes per arm. bco:
// M T d coordinate operations; per silo 24 d + 1 KiB. Every family words
// its own unit. Mutation controls (the linear ones carried over from
// runner's TestRunMaddsAndBytes): each arithmetic operator of linearCost
// changed, the tree's level count (T+B-1)/B changed (T = 3B: the ceiling
// is 3, and 4 would add a level) or its `n > 1` as `>=`, fail.
func TestCostModels(t *testing.T) {
	lin := func(m, T, b, every, d int, k float64) RunSpec {
		return RunSpec{Algorithm: "fedlinucb", M: m, T: T, B: b, Every: every, Loaded: &Loaded{Dim: d, Actions: k}}
	}
	for _, c := range []struct {
		name  string
		cost  func(RunSpec) Cost
		rs    RunSpec
		work  float64
		bytes int64
		unit  string
	}{
		// d = 4: mat = 20; T/B = 3 batches: kappa = 2 (3 -> 1); points
		// 30/10 + 1 = 4. 8 (5*3*20 + 7*2*20 + 4*20 + 5*2) = 8*670 = 5360.
		{"linear T=3B", linearCost, lin(5, 30, 10, 10, 4, 10), 5 * 30 * 10 * 16, 5360 + 32*4 + 1<<20, "multiply-adds (sum of M T K d^2)"},
		// 10 batches: kappa = 4 (10 -> 5 -> 2 -> 1); Every 0 counts as 1:
		// 101 points. 8 (300 + 7*4*20 + 80 + 10) = 7600.
		{"linear every 0", linearCost, lin(5, 100, 10, 0, 4, 10), 5 * 100 * 10 * 16, 7600 + 32*101 + 1<<20, "multiply-adds (sum of M T K d^2)"},
		// One batch: kappa = 1. d = 3: mat = 12, M = 2:
		// 8 (2*3*12 + 4*1*12 + 4*12 + 2*2) = 8*172 = 1376; 2 points.
		{"linear one batch", linearCost, lin(2, 7, 7, 7, 3, 2.5), 2 * 7 * 2.5 * 9, 1376 + 32*2 + 1<<20, "multiply-adds (sum of M T K d^2)"},
		// 10 arms, T = 1000, every 100: 11 points.
		{"mab", mabCost, RunSpec{Algorithm: "se", T: 1000, Every: 100, Loaded: &Loaded{Dim: 10}}, 1000, 64*10 + 32*11 + 1<<20, "rounds (sum of T)"},
		// d = 5, M = 3, T = 1000, every 100.
		{"bco", bcoCost, RunSpec{Algorithm: "one-point", M: 3, T: 1000, Every: 100, Loaded: &Loaded{Dim: 5}}, 3 * 1000 * 5, 3*(24*5+1024) + 32*11 + 1<<20, "coordinate operations (sum of M T d)"},
		// M 0 is one silo; every 0 counts as 1.
		{"bco M=0 every 0", bcoCost, RunSpec{Algorithm: "one-point", T: 50, Loaded: &Loaded{Dim: 2}}, 50 * 2, 24*2 + 1024 + 32*51 + 1<<20, "coordinate operations (sum of M T d)"},
	} {
		got := c.cost(c.rs)
		if got.Work != c.work || got.Bytes != c.bytes || got.Unit != c.unit || !(got.Rate > 0) || got.Class == "" {
			t.Errorf("%s: %+v, want work %v, bytes %d, unit %q", c.name, got, c.work, c.bytes, c.unit)
		}
	}
	// The cost class keeps what the speed per unit depends on, not T.
	a, b := bcoCost(RunSpec{Algorithm: "one-point", T: 10, Loaded: &Loaded{Dim: 2}}), bcoCost(RunSpec{Algorithm: "one-point", T: 1e6, Loaded: &Loaded{Dim: 2}})
	if a.Class != b.Class {
		t.Errorf("bco class depends on T: %q, %q", a.Class, b.Class)
	}
}

// TestLinearPilotLengths pins the linear pilot's length: about work
// multiply-adds (work / (M K d^2) rounds), at least two batches and 8
// rounds, at most T, cut to a multiple of B when T is one. Mutation
// controls: the work per round's `/`, the rounds' `/` and the two
// batches' `2*s.B` changed fail.
func TestLinearPilotLengths(t *testing.T) {
	for _, c := range []struct {
		name       string
		d, m, t, b int
		k          float64
		wantT      int
		wantB      int
	}{
		// 10*100*100 = 1e5 a round: 4000 rounds.
		{"4000 rounds", 10, 10, 10000, 25, 100, 4000, 25},
		// 7e4 a round: 5714 rounds, cut to 5700 (B = 25 divides T).
		{"cut to B", 10, 7, 10000, 25, 100, 5700, 25},
		{"not cut", 10, 7, 10001, 25, 100, 5714, 25},
		// 1e9 a round: two batches.
		{"two batches", 100, 100, 10000, 25, 1000, 50, 25},
		// B = 1: at least 8 rounds.
		{"8 rounds", 100, 100, 10000, 1, 1000, 8, 1},
		// Short runs: all of T, B cut to it.
		{"whole run", 4, 5, 30, 50, 10, 30, 30},
	} {
		s := federate.Spec{Algorithm: federate.AlgFedLinUCB, M: c.m, T: c.t, B: c.b, Every: 7, Calib: &accountant.Calibration{}}
		rs := RunSpec{Algorithm: s.Algorithm, M: c.m, T: c.t, B: c.b, Every: 7, Native: s, Loaded: &Loaded{Dim: c.d, Actions: c.k}}
		p := linearPilot(rs, 4e8)
		n, _ := NativeLinear(p)
		if p.T != c.wantT || p.B != c.wantB || p.Every != c.wantT || n.T != p.T || n.B != p.B || n.Every != p.T || n.Calib != nil || p.M != c.m {
			t.Errorf("%s: pilot T = %d B = %d every %d M = %d calib %v, want T = %d B = %d", c.name, p.T, p.B, p.Every, p.M, n.Calib, c.wantT, c.wantB)
		}
	}
}

// TestPilotsBounded: every family's pilot of a long run is a run of the
// same class (its cost class unchanged) whose work is about the budget:
// bco at d = 1000 and T = 200,000 pilots 5,000 rounds for 5e6 coordinate
// operations, mab at least mabPilotRounds.
func TestPilotsBounded(t *testing.T) {
	bcoRun := RunSpec{Algorithm: "one-point", M: 1, B: 1, T: 200_000, Every: 2000, Loaded: &Loaded{Dim: 1000}}
	p := bcoPilot(bcoRun, 5e6)
	if p.T != 5000 || p.Every != 5000 || bcoCost(p).Class != bcoCost(bcoRun).Class || bcoCost(p).Bytes > bcoCost(bcoRun).Bytes {
		t.Errorf("bco pilot T = %d every %d, class %q", p.T, p.Every, bcoCost(p).Class)
	}
	mabRun := RunSpec{Algorithm: "se", T: 10_000_000, Every: 100_000, Loaded: &Loaded{Dim: 10}}
	if p := mabPilot(mabRun, 1e3); p.T != mabPilotRounds || mabCost(p).Class != mabCost(mabRun).Class {
		t.Errorf("mab pilot T = %d", p.T)
	}
	if p := mabPilot(RunSpec{Algorithm: "se", T: 1000, Loaded: &Loaded{Dim: 10}}, 1e9); p.T != 1000 {
		t.Errorf("short mab run's pilot T = %d, want all of T", p.T)
	}
}
