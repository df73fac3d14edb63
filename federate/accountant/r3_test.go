package accountant

import (
	"errors"
	"fmt"
	"testing"
)

// TestR3_H1DiscreteCalibrateBounded: attack round 3, case H1: the
// discrete Gaussian's calibration (noise = "discrete") doubled its rho
// bracket from eps^2/2, which is +Inf from eps = 1.9e154 on, forever.
// Calibrate with NoiseDiscrete over the eps x delta grid of round 2, for
// every model the discrete sampler serves and every preset, each call
// under a deadline: a result that certifies, or an error naming eps or
// delta.
//
// Mutation control (run 2026-11-29): restoring the unbounded doubling
// `for ok(hi) { hi *= 2 }` in exactDiscreteTreeSigma makes this test fail
// by deadline at eps 1e160.
func TestR3_H1DiscreteCalibrateBounded(t *testing.T) {
	models := []string{ModelLDP, ModelSDPAmp, ModelCentral, ModelFedUCB, ModelUserLDP, ModelUserLDPGLM}
	for _, p := range []string{PresetExact, PresetPaper, PresetReferenceCode} {
		for _, m := range models {
			for _, e := range boundedEps {
				for _, d := range boundedDelta {
					req := Request{Preset: p, Model: m, Noise: NoiseDiscrete, Eps: e, Delta: d, M: 3, T: 50, B: 5, D: 4, R: 0.5, Crs: 1}
					if m == ModelFedUCB {
						req.B = 1
					}
					what := fmt.Sprintf("%s %s discrete eps %g delta %g", p, m, e, d)
					var c *Calibration
					err := within(t, what, func() (err error) { c, err = Calibrate(req); return err })
					switch {
					case err != nil:
						if !badKey(err) && !errors.Is(err, ErrInvalid) {
							t.Errorf("%s: %v", what, err)
						}
						if valid := finite(e) && e > 0 && d > 0 && d < 1; valid && !badKey(err) {
							t.Errorf("%s: refused without naming eps or delta: %v", what, err)
						}
					case p == PresetExact:
						ok, err := CertifiesFor(c.Request, c.Sigma, c.Kappa)
						if err != nil || !ok || !finite(c.Sigma) || c.Sigma <= 0 {
							t.Errorf("%s: discrete sigma %v does not certify (%v)", what, c.Sigma, err)
						}
					}
				}
			}
		}
	}
}
