package federate_test

import (
	"context"
	"fmt"
	"log"

	"github.com/fedbandit/fedbandit/federate"
)

// One run of Private-FedLinUCB (silo-level LDP, protocol P, the lazy
// learner) on a small synthetic instance, calibrated with the published
// code's preset.
func ExampleRun() {
	res, err := federate.Run(context.Background(), federate.Spec{
		Algorithm: federate.AlgLDP,
		Eps:       1,
		Delta:     0.1,
		Synthetic: federate.SyntheticSpec{D: 5, K: 20, NoiseVar: 0.25, FixedBasis: true, Seed: 1},
		M:         10,
		T:         200,
		B:         25,
		Seed:      7,
		Lazy:      true,
		Preset:    "reference-code",
	})
	if err != nil {
		log.Fatal(err)
	}
	last := res.Curve[len(res.Curve)-1]
	fmt.Printf("checkpoints: %d, syncs: %d, scalars sent: %d\n", len(res.Curve), res.Syncs, res.Scalars)
	fmt.Printf("preset %s: sigma %.4f, Lambda %.2f, beta_T %.3f\n",
		res.Calibration.Request.Preset, res.Calibration.Sigma, res.Calibration.Lambda, res.BetaT)
	fmt.Printf("delivered eps %.3f at delta %g\n", res.Calibration.DeliveredEps, res.Calibration.DeliveredDelta)
	fmt.Println("regret recorded at round", last.Round, "finite:", last.Pseudo >= 0)
	// Output:
	// checkpoints: 8, syncs: 8, scalars sent: 1600
	// preset reference-code: sigma 3.6346, Lambda 118.83, beta_T 26.106
	// delivered eps 0.731 at delta 0.1
	// regret recorded at round 200 finite: true
}
