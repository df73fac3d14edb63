package accountant_test

import (
	"fmt"

	"github.com/fedbandit/fedbandit/federate/accountant"
)

// Calibrate the published code's noise for silo-level LDP on the paper's
// synthetic instance, and read the guarantee that noise actually delivers.
func ExampleCalibrate() {
	c, err := accountant.Calibrate(accountant.Request{
		Preset: accountant.PresetReferenceCode,
		Model:  accountant.ModelLDP,
		Eps:    1, Delta: 0.1,
		M: 100, T: 10000, B: 25, D: 10,
		R: 0.5, Crs: 1, // synthetic instance; Alpha defaults to 0.01
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("K=%d kappa=%d sigma=%.4f Lambda=%.1f beta_T=%.3f\n", c.K, c.Kappa, c.Sigma, c.Lambda, c.BetaT)
	fmt.Printf("delivered (%.3f, %g)-DP, mu-GDP with mu=%.3f\n", c.DeliveredEps, c.DeliveredDelta, c.Mu)
	// Output:
	// K=400 kappa=9 sigma=5.4519 Lambda=1120.5 beta_T=109.376
	// delivered (0.731, 0.1)-DP, mu-GDP with mu=0.778
}

// The exact preset picks the smallest sigma the accountant certifies.
func ExampleCalibrate_exact() {
	c, _ := accountant.Calibrate(accountant.Request{
		Preset: accountant.PresetExact, Model: accountant.ModelLDP,
		Eps: 1, Delta: 1e-5, M: 10, T: 16384, B: 16, D: 10, R: 1, Crs: 0.1,
	})
	fmt.Printf("kappa=%d sigma=%.2f delivered eps=%.3f\n", c.Kappa, c.Sigma, c.DeliveredEps)
	// Output:
	// kappa=11 sigma=17.50 delivered eps=1.000
}

// Re-check any sigma: shuffle amplification needs many silos, and the
// report says when it does not apply.
func ExampleDelivered() {
	eps, amplified, note, _ := accountant.Delivered(accountant.ModelSDPAmp, 0.650109, 9, 100, 25, 0.1, accountant.AddRemove)
	fmt.Printf("eps=%.2f amplified=%v\n%s\n", eps, amplified, note)
	// Output:
	// eps=28.75 amplified=false
	// shuffle amplification does not apply, delivered guarantee is the unamplified silo-level LDP one: too few silos for amplification: M = 100 <= 16 ln(4/delta') = 127
}
