package accountant

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// FuzzCalibrate: any request either fails with ErrInvalid or yields a
// finite, self-consistent calibration whose "certified" claim the
// accountant confirms. The seed corpus runs under plain go test.
func FuzzCalibrate(f *testing.F) {
	f.Add(uint8(0), uint8(1), 1.0, 0.1, false, 100, 10000, 25, 10)
	f.Add(uint8(1), uint8(2), 0.2, 0.1, true, 100, 10000, 25, 10)
	f.Add(uint8(2), uint8(2), 1.0, 1e-6, false, 1000000, 1, 1, 2)
	f.Add(uint8(0), uint8(2), 1e-3, 1e-4, false, 100, 10000, 25, 10)
	f.Add(uint8(2), uint8(1), 5.0, 1e-3, true, 10, 25000, 25, 57)
	f.Add(uint8(1), uint8(0), 0.0, 0.0, false, 3, 7, 8, 1)
	f.Add(uint8(2), uint8(1), math.NaN(), 0.1, false, 3, 7, 2, 1)
	f.Add(uint8(1), uint8(1), 1e-307, 0.5, false, 3, 776, 25, 4)
	f.Fuzz(func(t *testing.T, p, m uint8, eps, delta float64, replace bool, M, T, B, D int) {
		if M > 1<<24 || T > 1<<24 || B > 1<<24 || D > 4096 {
			t.Skip()
		}
		presets := []string{PresetPaper, PresetReferenceCode, PresetExact}
		models := []string{ModelNone, ModelLDP, ModelSDPAmp}
		req := Request{Preset: presets[int(p)%3], Model: models[int(m)%3], Eps: eps, Delta: delta,
			M: M, T: T, B: B, D: D, R: 0.5, Crs: 1}
		if replace {
			req.Relation = ReplaceOne
		}
		c, err := Calibrate(req)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error not wrapping ErrInvalid: %v", err)
			}
			return
		}
		if !finite(c.Sigma) || !finite(c.Lambda) || !finite(c.BetaT) || c.Lambda <= 0 || c.BetaT <= 0 {
			t.Fatalf("non-finite calibration %+v", c)
		}
		if c.Kappa != Kappa(NumBatches(T, B)) || c.K != NumBatches(T, B) {
			t.Fatalf("K %d kappa %d", c.K, c.Kappa)
		}
		if req.Model == ModelNone {
			if !math.IsInf(c.DeliveredEps, 1) || c.Sigma != 0 {
				t.Fatalf("ModelNone: %+v", c)
			}
			return
		}
		if c.DeliveredEps < 0 || math.IsNaN(c.DeliveredEps) || c.DeliveredDelta != delta {
			t.Fatalf("delivered (%v, %v)", c.DeliveredEps, c.DeliveredDelta)
		}
		ok, err := Certifies(req.Model, c.Sigma, c.Kappa, M, B, eps, delta, c.Request.Relation)
		if err != nil {
			t.Fatal(err)
		}
		if flagged := strings.Contains(c.Note, "does NOT certify"); flagged == ok {
			t.Fatalf("certifies %v but note %q", ok, c.Note)
		}
		if req.Preset == PresetExact && !ok {
			t.Fatalf("exact preset does not certify: %+v", c)
		}
	})
}
