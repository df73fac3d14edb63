package federate

import (
	"fmt"

	"github.com/fedbandit/fedbandit/core"
)

// AlgDisLinUCB is DisLinUCB (Wang, Hu, Chen & Wang, "Distributed Bandit
// Learning: Near-Optimal Regret with Efficient Communication", ICLR 2020,
// the distributed linear bandit protocol), a non-private baseline: the
// eager learner (silo i acts on V = Lambda I + W_syn + W_i), the silos'
// exact statistics, and a synchronisation when a silo's event trigger
// fires: (t - t_last) log(det V_{t,i} / det V_last) > D (logDetSchedule),
// D = sync_threshold (default T ln(MT)/(dM), the paper's). On a signal
// every silo uploads and downloads (the paper's rule: the same learner,
// schedule and sum as FedUCB without noise, feducb-np); with each_silo
// = 1 only the silos whose own condition fires upload and download, each
// with its own t_last, the others acting on what they had (an
// asynchronous variant of ours). Its entry is in algorithms.go.
const AlgDisLinUCB = "dislinucb"

// disLinUCBParams are DisLinUCB's parameters: FedUCB's threshold D (the
// same key, the same quantity) and whether each silo synchronises alone.
var disLinUCBParams = []core.Param{
	fedUCBParams[0],
	{Key: "each_silo", Default: 0, Min: 0, Max: 1, Integer: true,
		Doc: "1: only the silos whose own log-det condition fires upload and download at a synchronisation, each with its own t_last; 0 (default): every silo, on any silo's signal (DisLinUCB's rule)"},
}

// disLinUCBDefault is the paramDefault of DisLinUCB: FedUCB's default D
// for sync_threshold (it has no regime), the declared default otherwise.
func disLinUCBDefault(s Spec, key string) (float64, bool) {
	if key == "sync_threshold" {
		return fedUCBThreshold(s, key)
	}
	for _, p := range disLinUCBParams {
		if p.Key == key {
			return p.Default, true
		}
	}
	return 0, false
}

// disLinUCBParts builds DisLinUCB: the eager learner, the log-det
// schedule at D and the exact sum.
func disLinUCBParts(su runSetup) (parts, error) {
	s := su.spec
	return parts{
		learner:  newEagerLearner(s.M, su.d),
		schedule: newLogDetSchedule(s.Params["sync_threshold"], s.M, s.Params["each_silo"] == 1),
		protocol: exactSum{},
	}, nil
}

// validateDisLinUCB refuses the lazy learner, which keeps no per-silo V
// (its leverages are NaN, and it could not restart a subset of silos).
func validateDisLinUCB(s Spec) error {
	if s.Lazy {
		return &FieldError{Field: "Lazy", Msg: fmt.Sprintf("Lazy with %s: its schedule needs the eager learner's leverage x^T V^-1 x", s.Algorithm)}
	}
	return nil
}
