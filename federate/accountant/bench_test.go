package accountant

import "testing"

// Calibration runs once per run of a sweep; these benchmarks show it is
// negligible next to a simulation.
func BenchmarkCalibrate(b *testing.B) {
	for _, bc := range []struct {
		name string
		req  Request
	}{
		{"reference-code/ldp", synthetic(PresetReferenceCode, ModelLDP, 1, 0.1)},
		{"paper/ldp", synthetic(PresetPaper, ModelLDP, 1, 0.1)},
		{"exact/ldp", synthetic(PresetExact, ModelLDP, 1, 0.1)},
		{"exact/sdp-amp-M100", synthetic(PresetExact, ModelSDPAmp, 1, 0.1)},
		{"exact/sdp-amp-M1e6", Request{Preset: PresetExact, Model: ModelSDPAmp, Eps: 1, Delta: 1e-6, M: 1000000, T: 1, B: 1, D: 2, R: 1, Crs: 1}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Calibrate(bc.req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkGDPEps(b *testing.B) {
	for b.Loop() {
		gdpEps(0.1376, 1e-5)
	}
}

func BenchmarkCKSEps(b *testing.B) {
	for b.Loop() {
		if _, err := CKSEps(0.1, 1e-5); err != nil {
			b.Fatal(err)
		}
	}
}
