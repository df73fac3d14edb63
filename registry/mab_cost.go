package registry

import (
	"fmt"

	"github.com/fedbandit/fedbandit/mab"
)

// The multi-armed bandit family's run model beyond mab.go's entries:
// ids, results, cost model and pilot (the family's own, not the linear
// family's M T K d^2).

// withMABRunModel completes a mab entry with the run model every family
// implements (run.go).
func withMABRunModel(e *Algorithm) {
	e.Compile, e.ID, e.Result, e.Cost, e.Pilot = neutralCompile(e), neutralID(e), neutralResult, mabCost, mabPilot
	e.Check = keyedCheck(e.Check)
}

// mabRate is the mab family's model speed: rounds (one user's pull and
// reward, her share of a batch's release) per second of one core, a
// round figure of the SecAgg algorithms (about 0.08 us a round); `run
// plan` measures each class instead.
const mabRate = 1.25e7

// mabPilotRounds is the least length of a mab pilot: enough batches
// (their sizes grow as 4^b) and releases for the per-round figure.
const mabPilotRounds = 200_000

// mabCost is the mab family's cost model: T rounds; per arm a mean, a
// count and its batch sums, and the curve. A round's cost depends on the
// algorithm, its parameters, the number of arms and the reward law, not
// on the means: instances that differ only in their means or seed are one
// class (one pilot for a sweep over 40 instances).
func mabCost(rs RunSpec) Cost {
	arms, law := 0, ""
	if rs.Loaded != nil {
		arms = rs.Loaded.Dim
		if in, ok := rs.Loaded.Value.(mab.Instance); ok {
			law = in.Reward
		} else {
			law = "instance=" + rs.Loaded.Hash
		}
	}
	points := int64(rs.T/max(rs.Every, 1) + 1)
	return Cost{
		Work: float64(rs.T), Unit: "rounds (sum of T)", Rate: mabRate,
		Bytes: 64*int64(arms) + 32*points + 1<<20,
		Class: fmt.Sprintf("%s params=%v kind=%s arms=%d reward=%s", rs.Algorithm, rs.Params, rs.Instance, arms, law),
	}
}

// mabPilot is rs over its first rounds: work rounds, at least
// mabPilotRounds, at most T, one checkpoint.
func mabPilot(rs RunSpec, work float64) RunSpec {
	rounds := min(max(int(work), mabPilotRounds), rs.T)
	rs.T, rs.Every = rounds, rounds
	return rs
}
