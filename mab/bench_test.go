package mab

import (
	"context"
	"testing"

	"github.com/fedbandit/fedbandit/core"
)

// BenchmarkHardRun is one run on the hard instance (gap 0.1, K = 10,
// 10^7 rounds) at eps = 0.5, checkpoints every 10^5 rounds. Target: 1 s or
// less per run on one core (docs/mab.md has the measured figures).
func BenchmarkHardRun(b *testing.B) {
	for _, c := range []struct {
		alg    string
		params map[string]float64
	}{
		{"se", nil},
		{"dp-se", nil},
		{"dist-dp-se", nil},
		{"dist-rdp-se", map[string]float64{"S": 10}},
		{"dist-rdp-se", map[string]float64{"S": 100}},
		{"ldp-se", nil},      // one discrete Laplace share per user
		{"dist-cdp-se", nil}, // one discrete Gaussian share per user
	} {
		name := c.alg
		if c.params != nil {
			name += "-S100"
			if c.params["S"] == 10 {
				name = c.alg + "-S10"
			}
		}
		b.Run(name, func(b *testing.B) {
			in := DefaultInstance()
			in.Gap = 0.1
			const T = 10_000_000
			for i := 0; i < b.N; i++ {
				p, _, err := New(Spec{Algorithm: c.alg, Eps: 0.5, Delta: 1e-5, T: T, Seed: uint64(i), Params: c.params, Instance: in})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := core.Drive(context.Background(), p, T, 100_000); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFig1Instance is one instance's share of sweeps/mab-fig1.toml:
// DP-SE, Dist-DP-SE, Dist-RDP-SE S = 10 and 100 at eps 0.1, 0.5, 1, 10^7
// rounds each (12 runs; the sweep has 40 instances, 480 runs).
func BenchmarkFig1Instance(b *testing.B) {
	in := DefaultInstance()
	in.Gap, in.MeansFrom = 0.1, MeansNumpyLegacy
	const T = 10_000_000
	for i := 0; i < b.N; i++ {
		for _, eps := range []float64{0.1, 0.5, 1} {
			for _, c := range []struct {
				alg    string
				params map[string]float64
			}{{"dp-se", nil}, {"dist-dp-se", nil}, {"dist-rdp-se", map[string]float64{"S": 10}}, {"dist-rdp-se", map[string]float64{"S": 100}}} {
				p, _, err := New(Spec{Algorithm: c.alg, Eps: eps, Delta: 1e-5, T: T, Seed: 1, Params: c.params, Instance: in})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := core.Drive(context.Background(), p, T, 10_000); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}
