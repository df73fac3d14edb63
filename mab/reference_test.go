package mab

import (
	"math"
	"testing"

	"github.com/fedbandit/fedbandit/internal/rng"
)

// reference_code = 1 reproduces the authors' script's two noise samplers
// (docs/reproduction.md) and is never certified.
func TestReferenceCode(t *testing.T) {
	ref := map[string]float64{"reference_code": 1}
	in := DefaultInstance()
	in.Gap = 0.5
	for _, alg := range []string{"dp-se", "dist-dp-se"} {
		_, claim, err := New(Spec{Algorithm: alg, Eps: 0.1, T: 1000, Params: ref, Instance: in})
		if err != nil {
			t.Fatal(err)
		}
		if claim.Certified || !math.IsInf(claim.DeliveredEps, 1) || claim.Check() != nil {
			t.Errorf("%s reference_code: claim %+v", alg, claim)
		}
	}
	// DP-SE: one draw shared by every arm of a batch.
	a, _ := Lookup("dp-se")
	full := map[string]float64{"conf": 0.1, "crs": 1, "accuracy_base": 2, "reference_code": 1}
	p, _ := newProtocol(a, 0.1, full, rng.NewKey("mab-ref", 1))
	p.start(1, 10, 3)
	for i := range 3 {
		p.add(i, float64(i)/4)
	}
	d0 := p.sum(0) - 0
	for i := 1; i < 3; i++ {
		if d := p.sum(i) - float64(i)/4; math.Abs(d-d0) > 1e-12 {
			t.Errorf("arm %d noise %v, arm 0 %v: want one shared draw", i, d, d0)
		}
	}
	// Dist-DP-SE: the total noise is DLap(1-p), spread far below DLap(p)'s.
	a, _ = Lookup("dist-dp-se")
	var sd [2]float64
	for r := range 2 {
		full := map[string]float64{"conf": 0.1, "crs": 1, "growth": 4, "per_user": 0, "reference_code": float64(r)}
		p, _ := newProtocol(a, 0.1, full, rng.NewKey("mab-ref", 2))
		var ss float64
		const reps = 2000
		for range reps {
			p.start(5, 1024, 1)
			for range 1024 {
				p.add(0, 0.5)
			}
			d := p.sum(0) - 512
			ss += d * d
		}
		sd[r] = math.Sqrt(ss / reps)
	}
	// eps 0.1: DLap(p) sums to sd sqrt(2)/eps = 14.1 reward units.
	if !(sd[0] > 12 && sd[0] < 16 && sd[1] < 0.5) {
		t.Errorf("release sd: %.3f (paper's noise), %.3f (script's); want about 14.1 and far below 1", sd[0], sd[1])
	}
	t.Logf("release sd: %.3f (paper's noise), %.3f (script's)", sd[0], sd[1])
}
