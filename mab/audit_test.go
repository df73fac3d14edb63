package mab

import "testing"

// The audit passes every SecAgg entry at its claimed level and catches
// the same release with half the noise scale (the mutation, injected
// through the protocol's test hook). False-alarm rate 1e-6 for a pass.
func TestAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("audit: 2 x 40000 releases per case")
	}
	cases := []struct {
		alg   string
		eps   float64
		delta float64
		n     int
	}{
		{"dist-dp-se", 1, 0, 16},
		{"cdp-se", 1, 0, 16},
		{"ldp-se", 1, 0, 1},
		{"dist-rdp-se", 1, 0.01, 16},
		{"dist-cdp-se", 1, 0.01, 16},
	}
	for _, c := range cases {
		for _, weaken := range []uint64{1, 2} {
			res, err := Audit(AuditSpec{Algorithm: c.alg, Eps: c.eps, Delta: c.delta, N: c.n, Trials: 40000, Seed: 1, Alpha: 1e-6, NoiseDivisor: weaken})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s weaken %d: lower eps %.3f, claimed %.3f (delta %g)", c.alg, weaken, res.LowerEps, res.Claimed, res.Delta)
			if weaken == 1 && !res.Pass {
				t.Errorf("%s: audit failed the honest release: lower bound %.3f > claimed %.3f", c.alg, res.LowerEps, res.Claimed)
			}
			if weaken == 2 && res.Pass {
				t.Errorf("%s: audit passed a release with half the noise scale: lower bound %.3f <= claimed %.3f", c.alg, res.LowerEps, res.Claimed)
			}
		}
	}
}
