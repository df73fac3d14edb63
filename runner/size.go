package runner

import "fmt"

// Bounds of a sweep's size (attack round 3, K3: seeds = 10^12 made plan
// and sweep grow memory until "fatal error: out of memory").
const (
	// MaxSeeds is the most seeded runs per configuration.
	MaxSeeds = 1_000_000
	// MaxRuns is the most runs a sweep file may expand to: a plan holds
	// about a kilobyte per run (10 GiB at the bound), and a sweep beyond
	// it belongs in several files.
	MaxRuns = 10_000_000
	// MaxT is the longest horizon: rounds are counted in float64 in the
	// grid of the mab and bco families, the curves and the cost model,
	// exact up to 2^53 (attack round 3, U6: T = 2^63 - 1 was reported as
	// -2^63, and T above 2^53 rounded).
	MaxT = 1 << 53
)

// checkSize refuses a sweep whose seeds or grid would expand past
// MaxSeeds or MaxRuns, before anything is expanded: an upper bound on its
// runs, each list counted in full (runs an algorithm plans once are
// counted again), in floating point so that it cannot overflow.
func (c *Config) checkSize() error {
	if c.Seeds > MaxSeeds {
		return &KeyError{Key: "seeds", Msg: fmt.Sprintf("%d, want at most %d seeded runs per configuration", c.Seeds, MaxSeeds)}
	}
	g := c.Grid
	for i, t := range g.T {
		if t > MaxT {
			return &KeyError{Key: fmt.Sprintf("grid.T[%d]", i), Msg: fmt.Sprintf("T = %d: at most 2^53 = %d rounds", t, MaxT)}
		}
	}
	n := func(l int) float64 { return float64(max(l, 1)) }
	shared := n(len(g.M)) * n(len(g.B)) * n(len(g.T)) * n(len(g.Alpha)) * n(len(g.Relation)) * n(len(g.Noise))
	var runs float64
	for _, a := range c.Algorithms {
		per := shared * n(len(or(a.Eps, g.Eps))) * n(len(or(a.Delta, g.Delta)))
		for _, v := range a.Params {
			per *= n(len(v))
		}
		runs += per
	}
	runs *= float64(len(c.Instances)) * float64(c.Seeds)
	if runs > MaxRuns {
		return &KeyError{Key: "grid", Msg: fmt.Sprintf("the instances, algorithms, grid and seeds expand to up to %.3g runs, more than %d: split the sweep into several files (or lower seeds)", runs, MaxRuns)}
	}
	return nil
}
