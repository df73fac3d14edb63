package bco

import (
	"context"
	"math"
	"strings"
	"testing"
)

// TestR4_29EpsBelowTheSmallestSupported (attack round 4, R4-29): eps =
// 1e-320 passed validation and then failed in the timing pilot or in every
// run (the noise scale overflowed). It is refused at validation naming eps
// and the smallest eps the run supports (MinEps), on the synthetic and the
// bco-ltr instances, and a run just above that smallest eps completes with
// a finite regret under both calibrations.
func TestR4_29EpsBelowTheSmallestSupported(t *testing.T) {
	in := Instance{D: 3, Radius: 1, Loss: LossAbsolute, Sequence: Stochastic}
	ltr := LTRInstance{Data: &LTRData{D: 2, X: []float64{1, 0, 0.6, 0.8}, Y: []float64{0, 1}}, Radius: 1, Loss: LossAbsolute, Order: OrderDataset}
	for _, alg := range []string{"ldp-one-point", "ldp-two-point"} {
		for _, analytic := range []float64{0, 1} {
			params := map[string]float64{"analytic": analytic}
			s := Spec{Algorithm: alg, Instance: in, Params: params, Eps: 1e-320, Delta: 1e-5, M: 1, B: 1, T: 200, Every: 100, Seed: 1}
			ls := LTRSpec{Algorithm: alg, Instance: ltr, Params: params, Eps: 1e-320, Delta: 1e-5, M: 1, B: 1, T: 200, Every: 100, Seed: 1}
			for name, validate := range map[string]func() error{"bco": s.Validate, "bco-ltr": ls.Validate} {
				err := validate()
				if err == nil || !strings.HasPrefix(err.Error(), "eps = 1e-320: below ") || !strings.Contains(err.Error(), "smallest eps") {
					t.Errorf("%s %s analytic %g: %v, want eps = 1e-320 refused with the smallest eps", name, alg, analytic, err)
				}
			}
			// Just above the bound: the run completes, the regret finite.
			C, G, _ := in.geometry().bounds()
			s.Eps = 1.01 * MinEps(sensitivity(mustLookup(t, alg), C, G), s.Delta)
			if err := s.Validate(); err != nil {
				t.Fatalf("%s eps %g: %v", alg, s.Eps, err)
			}
			res, err := Run(context.Background(), s)
			if err != nil {
				t.Fatalf("%s analytic %g eps %g: %v", alg, analytic, s.Eps, err)
			}
			if last := res.Curve[len(res.Curve)-1].Pseudo; math.IsNaN(last) || math.IsInf(last, 0) {
				t.Errorf("%s analytic %g eps %g: regret %v", alg, analytic, s.Eps, last)
			}
			xmax, ymax := ltr.Data.norms()
			C, G, _ = ltrBounds(ltr.Loss, ltr.Radius, xmax, ymax)
			ls.Eps = 1.01 * MinEps(sensitivity(mustLookup(t, alg), C, G), ls.Delta)
			if res, err := RunLTR(context.Background(), ls); err != nil {
				t.Errorf("bco-ltr %s analytic %g eps %g: %v", alg, analytic, ls.Eps, err)
			} else if last := res.Curve[len(res.Curve)-1].Pseudo; math.IsNaN(last) || math.IsInf(last, 0) {
				t.Errorf("bco-ltr %s analytic %g eps %g: regret %v", alg, analytic, ls.Eps, last)
			}
		}
	}
}

func mustLookup(t *testing.T, name string) *Algorithm {
	t.Helper()
	a, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestR4_29MinEpsAtTheCorners: just above MinEps the calibration of
// every private algorithm succeeds (a finite sigma at most MaxSigma and a
// claim) on the instances at the corners of the scale range (radius and
// modulus 1e-50 and 1e100, as TestR3_U7ScaleBounds), under both
// calibrations; just below, Validate refuses the eps. At radius and
// modulus 1, the run completes with a finite regret. (At tiny moduli a
// sigma near MaxSigma can still overflow the strongly convex steps: the
// run then fails naming its non-finite regret; that is out of this bound.)
func TestR4_29MinEpsAtTheCorners(t *testing.T) {
	for _, r := range []float64{1, MinScale, MaxScale} {
		for _, mu := range []float64{1, MinScale, MaxScale} {
			for _, loss := range Losses {
				in := Instance{D: 3, Radius: r, Loss: loss, Noise: 0.3, Sequence: Stochastic}
				if c, _ := ClassOf(loss); c == ClassStrongly || c == ClassStronglySmooth {
					in.Modulus = mu
				} else if mu != 1 {
					continue
				}
				C, G, _ := in.geometry().bounds()
				for _, a := range Algorithms() {
					if !a.Private() {
						continue
					}
					for _, analytic := range []float64{0, 1} {
						s := Spec{Algorithm: a.Name, Instance: in, Params: map[string]float64{"analytic": analytic}, Delta: 1e-5, M: 2, B: 5, T: 200, Every: 100, Seed: 1}
						sens := sensitivity(a, C, G)
						min := MinEps(sens, s.Delta)
						s.Eps = min * 0.99
						if err := s.Validate(); err == nil || !strings.HasPrefix(err.Error(), "eps = ") {
							t.Errorf("R %g mu %g %s %s eps %g (below %g): %v, want refused", r, mu, loss, a.Name, s.Eps, min, err)
						}
						s.Eps = min * 1.01
						if err := s.Validate(); err != nil {
							t.Errorf("R %g mu %g %s %s eps %g: %v", r, mu, loss, a.Name, s.Eps, err)
						}
						sigma, _, _, err := calibrate(s.Eps, s.Delta, sens, analytic == 1)
						if err != nil || !(sigma <= MaxSigma) {
							t.Errorf("R %g mu %g %s %s analytic %g eps %g: sigma %g, %v", r, mu, loss, a.Name, analytic, s.Eps, sigma, err)
						}
						if r != 1 || mu != 1 {
							continue
						}
						res, err := Run(context.Background(), s)
						if err != nil {
							t.Errorf("%s %s analytic %g eps %g: %v", loss, a.Name, analytic, s.Eps, err)
						} else if last := res.Curve[len(res.Curve)-1].Pseudo; math.IsNaN(last) || math.IsInf(last, 0) {
							t.Errorf("%s %s analytic %g eps %g: regret %v", loss, a.Name, analytic, s.Eps, last)
						}
					}
				}
			}
		}
	}
}
