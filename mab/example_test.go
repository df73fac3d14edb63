package mab_test

import (
	"context"
	"fmt"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/mab"
)

// One Dist-RDP-SE run on the script's easy instance 0, driven by core.Drive.
func ExampleNew() {
	in := mab.DefaultInstance()
	in.Gap, in.Seed, in.MeansFrom = 0.5, 0, mab.MeansNumpyLegacy
	p, claim, err := mab.New(mab.Spec{
		Algorithm: "dist-rdp-se", Eps: 0.5, Delta: 1e-5, T: 1_000_000, Seed: 1,
		Params: map[string]float64{"S": 10, "paper_eps": 1}, Instance: in,
	})
	if err != nil {
		panic(err)
	}
	res, err := core.Drive(context.Background(), p, 1_000_000, 100_000)
	if err != nil {
		panic(err)
	}
	fmt.Printf("pseudo-regret %.1f after %d batches; %s, certified %v, (%.3f, %g)-DP\n",
		res.Pseudo, res.Syncs, claim.Mechanism, claim.Certified, claim.DeliveredEps, claim.DeliveredDelta)
	fmt.Println("arms left:", p.(*mab.Run).Active())
	// Output:
	// pseudo-regret 4268.5 after 9 batches; skellam-secagg, certified true, (2.171, 1e-05)-DP
	// arms left: [8]
}
