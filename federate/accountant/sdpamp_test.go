package accountant

import (
	"errors"
	"testing"
)

// TestShuffleAmplified: Theorem 5.3's sigma and the published code's
// against values computed independently (Python, at eps 1: kappa 4, M 10,
// T 10^4, delta 1e-5; and n 400, M 10, T 10^4, delta 0.1), the theorem's
// regime enforced, and a delivered guarantee never worse than the
// silo-level LDP one of the same noise (shuffling is post-processing).
func TestShuffleAmplified(t *testing.T) {
	m := shuffleAmplified{}
	r := Request{Eps: 1, Delta: 1e-5, M: 10, T: 10000, B: 25, D: 10}
	ps, _, err := m.paperSigma(r, 4)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "paper sigma", ps, 22.72650481618433)
	r.Delta = 0.1
	golden(t, "reference sigma (n 400)", m.referenceSigma(r, 400), 18.12159581899534)
	if _, _, err := m.paperSigma(r, 4); !errors.Is(err, ErrInvalid) {
		t.Errorf("delta 0.1 > kappa/T: err = %v, want the theorem's regime refused", err)
	}
	for _, M := range []int{10, 100, 1000} {
		for _, sigma := range []float64{0.5, 2, 8} {
			r.M = M
			amp, _, _, err := m.delivered(r, sigma, 6)
			ldp, _, _, err2 := siloLDP{}.delivered(r, sigma, 6)
			if err != nil || err2 != nil || amp > ldp {
				t.Errorf("M %d sigma %v: shuffled eps %v above the unshuffled %v (%v, %v)", M, sigma, amp, ldp, err, err2)
			}
		}
	}
}
