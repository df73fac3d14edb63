package federate

import (
	"math"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/internal/rng"
)

// AlgRandom plays a uniformly random action (non-private, learns
// nothing): the level of no learning. Its registry entry is in
// algorithms.go; this file is the rest of it (docs/extending.md).
const AlgRandom = "random"

// uniformRandom builds the random policy: it never learns, so it never
// synchronises.
func uniformRandom(su runSetup) (parts, error) {
	return parts{learner: newUniformPolicy(su.runKey, su.spec.M), schedule: never{}, protocol: exactSum{}}, nil
}

// uniformPolicy plays a uniformly random action and learns nothing; silo
// i's choices come from its own stream rng.New(runKey, "silo", i,
// "policy").
type uniformPolicy struct {
	picks []*rand.Rand
}

func newUniformPolicy(runKey rng.Key, m int) *uniformPolicy {
	u := &uniformPolicy{picks: make([]*rand.Rand, m)}
	for i := range u.picks {
		u.picks[i] = rng.New(runKey, "silo", i, "policy")
	}
	return u
}

func (u *uniformPolicy) choose(i int, set *actionSet, _ float64, _ []float64) int {
	return u.picks[i].IntN(set.n)
}

func (u *uniformPolicy) observe(int, *batchStats, []float64, float64) float64 { return math.NaN() }

func (u *uniformPolicy) restart(_ []bool, _, _ []float64) {}
