package mab

import (
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/rng"
)

// Policy is an entry of another shape than batched successive
// elimination: a rule that picks each round's arm from the rewards it
// has seen (UCB1, ucb.go). The family plays it (policyRun): it draws the
// rewards from the run's stream, as SE's rounds do (common random
// numbers), and keeps the regret, so a policy is its rule only.
type Policy interface {
	// Choose returns the arm round t (1, 2, ...) pulls.
	Choose(t int) int
	// Observe gives the policy the reward x of round t's pull of arm.
	Observe(t, arm int, x float64)
	// Counters reports the updates of the policy's statistics so far
	// and the scalars sent to the server (core.Problem's Counters).
	Counters() (syncs int, scalars int64)
}

// PrivatePolicy is a Policy whose rewards reach its statistics only
// through noise (DP-UCB, dpucb.go): it states what the noise guarantees.
// A private entry's policy must be one; the family refuses it otherwise.
type PrivatePolicy interface {
	Policy
	// Claim completes the run's claim, given with the entry's trust,
	// mechanism, sampler, the family's relation token and the target eps
	// filled in: what the noise delivers, whether that is certified, the
	// relation in its own words (RelationNote: where a user's reward
	// goes) and a note on what the guarantee covers. The family then
	// applies the one certification rule (core.Privacy.Certify).
	Claim(p core.Privacy) core.Privacy
}

// PolicySetup is what an entry's Policy constructor is given.
type PolicySetup struct {
	Arms   int                // K
	T      int                // rounds (users)
	Eps    float64            // the target eps (a private entry; 0 otherwise)
	Params map[string]float64 // the entry's parameters, resolved
	// Key is the run's key: a private policy draws its rounding and its
	// noise from its own named streams of it, apart from the rewards'.
	Key rng.Key
}

// Metrics are the curve metrics the family's runs report (core.Metered)
// beyond core.Drive's, each declared here where it is produced (every
// run of the family pulls through bandit); the registry registers them
// with outputs as this family's. None yet: a metric of this family is
// its recording code, its declaration here and its test
// (docs/extending.md, "A curve metric").
var Metrics = []core.Metric{}

// bandit is the instance as a run plays it: the means, the best arm and
// the rewards' law and stream.
type bandit struct {
	means   []float64
	best    int
	reward  func(r *rand.Rand, mu float64) float64
	rewards *rand.Rand
}

// pull draws the reward of a pull of arm and the round's pseudo- and
// realised regret. The best arm's reward is drawn only when another arm
// is pulled (its realised regret is then 0): every entry consumes the
// stream the same way.
func (b *bandit) pull(arm int) (x, pseudo, realised float64) {
	x = b.reward(b.rewards, b.means[arm])
	if arm != b.best {
		xb := b.reward(b.rewards, b.means[b.best])
		pseudo, realised = b.means[b.best]-b.means[arm], xb-x
	}
	return x, pseudo, realised
}

// policyRun plays a Policy entry: the family's core.Problem for it.
type policyRun struct {
	bandit
	policy Policy
}

// Round plays round t: one user pulls the policy's arm.
func (r *policyRun) Round(t int) (pseudo, realised float64) {
	arm := r.policy.Choose(t)
	x, pseudo, realised := r.pull(arm)
	r.policy.Observe(t, arm, x)
	return pseudo, realised
}

// Counters reports the policy's.
func (r *policyRun) Counters() (syncs int, scalars int64) { return r.policy.Counters() }
