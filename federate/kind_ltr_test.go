package federate

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLTRBernoulliLaw: the reward law is the instance's: Bernoulli data
// are played as clicks (the simulator's ltr instance reports it) and
// checked as such: a mean outside [0, 1] or Gaussian noise beside the
// clicks is an error naming LTR.
func TestLTRBernoulliLaw(t *testing.T) {
	half := func(*rand.Rand, []float64) float64 { return 0.5 }
	data := makeLTR(2, 3, 4, 3, 1, unitFeatures, half)
	s := Spec{Instance: InstanceLTR, LTR: data, Algorithm: AlgFedLinUCB, M: 2, T: 50, B: 5, Seed: 1}.WithDefaults()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if newLTR(s, [32]byte{}).bernoulli() {
		t.Error("Gaussian data played as clicks")
	}
	data.Bernoulli = true
	if err := s.Validate(); err != nil || !newLTR(s, [32]byte{}).bernoulli() {
		t.Fatalf("Bernoulli data: %v, played as clicks %v", err, newLTR(s, [32]byte{}).bernoulli())
	}
	data.NoiseStd = 0.1
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "LTR: Bernoulli rewards with NoiseStd = 0.1") {
		t.Errorf("noisy clicks: %v", err)
	}
	data.NoiseStd = 0
	data.Queries[1].Mu[2] = 1.5
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "query 1, document 3: Bernoulli mean 1.5") {
		t.Errorf("mean 1.5: %v", err)
	}
}
