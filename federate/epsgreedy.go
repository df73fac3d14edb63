package federate

import (
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/internal/rng"
)

// AlgEpsGreedy is epsilon-greedy FedLinUCB: FedLinUCB whose silos, with
// probability explore, play a uniformly random action instead of the UCB
// choice (the worked example of docs/extending.md: an algorithm with one
// parameter). Its registry entry is in algorithms.go.
const AlgEpsGreedy = "eps-greedy"

// epsGreedyParts builds FedLinUCB's parts (learner, every-B schedule,
// exact sums) and puts the exploration coin in front of its learner.
func epsGreedyParts(su runSetup) (parts, error) {
	p, err := federatedLinUCB(su)
	if err != nil {
		return parts{}, err
	}
	e := &epsGreedy{learner: p.learner, explore: su.spec.Params["explore"],
		coin: make([]*rand.Rand, su.spec.M), pick: make([]*rand.Rand, su.spec.M)}
	for i := range e.coin {
		// The pick is the random policy's stream: explore = 1 plays the
		// random policy's actions exactly.
		e.coin[i] = rng.New(su.runKey, "silo", i, "explore")
		e.pick[i] = rng.New(su.runKey, "silo", i, "policy")
	}
	p.learner = e
	return p, nil
}

// epsGreedy explores with probability explore: silo i tosses its own coin
// every round (one draw whatever the outcome, so that its streams never
// depend on the data) and on heads plays a uniform action from its own
// stream; otherwise the wrapped learner chooses. It learns from every
// observation, explored or not.
type epsGreedy struct {
	learner
	explore    float64
	coin, pick []*rand.Rand
}

func (e *epsGreedy) choose(i int, set *actionSet, beta float64, scores []float64) int {
	if e.coin[i].Float64() < e.explore {
		return e.pick[i].IntN(set.n)
	}
	return e.learner.choose(i, set, beta, scores)
}
