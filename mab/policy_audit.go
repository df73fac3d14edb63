package mab

import (
	"fmt"
	"math/bits"

	"github.com/fedbandit/fedbandit/internal/rng"
)

// auditable is a private policy whose releases the audit reads through
// the run's own path: the noisy sums its server holds.
type auditable interface {
	PrivatePolicy
	// released is the noisy sum of arm's rewards the server holds after
	// the pulls so far (reward units).
	released(arm int) float64
	// weaken divides its noise's scale by div (the audit's mutation
	// control, `run audit --sigma-scale 1/div`).
	weaken(div uint64)
}

// auditPolicy audits a private policy entry (DP-UCB): in each of Trials
// runs that New builds (horizon T, two arms), arm 0 is pulled 2^(L-1)
// times, L = bits.Len(T), the first user's reward 0 in D and 1 in D', the
// others 0; the release audited is the sum of the arm's noisy sums after
// 1, 2, 4, ..., 2^(L-1) pulls, which are the L released tree nodes holding
// her reward (one per level): a post-processing of the joint release, so
// its lower bound must stay below the run's claim.
func auditPolicy(spec AuditSpec, alg Algorithm) (AuditResult, error) {
	pulls := 1 << (bits.Len(uint(spec.T)) - 1)
	rel := &release{name: fmt.Sprintf("the %d tree nodes holding the varying reward, summed (central)", bits.Len(uint(spec.T)))}
	res := AuditResult{Certified: true}
	for d := range 2 {
		rel.outs[d] = make([]float64, spec.Trials)
		for trial := range spec.Trials {
			seed := rng.New(rng.Derive(rng.NewKey("mab-audit", spec.Seed), "dataset", uint64(d), "trial", uint64(trial)), "seed").Uint64()
			p, claim, err := New(Spec{Algorithm: alg.Name, Eps: spec.Eps, T: spec.T, Seed: seed, Params: spec.Params,
				Instance: Instance{Means: []float64{0.25, 0.75}, NoiseSD: 0.1, Reward: RewardGaussianClipped}})
			if err != nil {
				return AuditResult{}, err
			}
			res.Claimed, res.NoiseEps, res.Certified = claim.DeliveredEps, claim.DeliveredEps, res.Certified && claim.Certified
			pol, ok := p.(*policyRun).policy.(auditable)
			if !ok {
				return AuditResult{}, fmt.Errorf("algorithm = %q: a policy whose releases the audit cannot read", alg.Name)
			}
			if spec.NoiseDivisor > 1 {
				pol.weaken(spec.NoiseDivisor)
			}
			var s float64
			for k := 1; k <= pulls; k++ {
				x := 0.0
				if k == 1 && d == 1 {
					x = 1
				}
				pol.Observe(k, 0, x)
				if k&(k-1) == 0 {
					s += pol.released(0)
				}
			}
			rel.outs[d][trial] = s
		}
	}
	res.decide([]*release{rel}, spec.Trials, spec.Alpha)
	return res, nil
}
