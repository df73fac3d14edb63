package accountant

import "testing"

// TestFedUCB: Dubey & Pentland's noise against a value computed
// independently (Python: m = 1 + ceil(log2 10^4) = 15,
// 4 sqrt(15) 2 ln(2/0.1) at eps 1), used by both the paper and the
// reference-code presets; the exact preset and the delivered guarantee are
// the silo-level tree's.
func TestFedUCB(t *testing.T) {
	m := fedUCB{}
	r := Request{Eps: 1, Delta: 0.1, M: 10, T: 10000, B: 25, D: 10}
	golden(t, "FedUCBSigma", FedUCBSigma(1, 0.1, 10000), 92.81936964136551)
	ps, _, _ := m.paperSigma(r, 9)
	if ps != m.referenceSigma(r, 0) || ps != FedUCBSigma(1, 0.1, 10000) {
		t.Error("paper and reference-code presets differ from FedUCBSigma")
	}
	for _, sigma := range []float64{1, 5} {
		a, _, _, _ := m.delivered(r, sigma, 9)
		b, _, _, _ := siloLDP{}.delivered(r, sigma, 9)
		if a != b {
			t.Errorf("sigma %v: FedUCB delivers %v, the silo-level tree %v", sigma, a, b)
		}
	}
	exactIsTight(t, "feducb", m, r, 9)
}
