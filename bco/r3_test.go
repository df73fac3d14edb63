package bco

import (
	"context"
	"math"
	"strings"
	"testing"
)

// TestR3_U7ScaleBounds (attack round 3, case U7): radius = 1e-300 or
// modulus = 1e-300 passed validation and every run's regret was NaN (run
// plan failed in its pilot without naming the key). Both are bounded to
// [MinScale, MaxScale], refused naming the key; at the four corners of
// the range every loss and algorithm gives a finite regret.
func TestR3_U7ScaleBounds(t *testing.T) {
	for _, tc := range []struct {
		in   Instance
		want string
	}{
		{Instance{D: 3, Radius: 1e-300, Loss: LossAbsolute, Sequence: Stochastic}, "radius = 1e-300: "},
		{Instance{D: 3, Radius: MinScale / 2, Loss: LossAbsolute, Sequence: Stochastic}, "radius = 5e-51: "},
		{Instance{D: 3, Radius: 1e101, Loss: LossAbsolute, Sequence: Stochastic}, "radius = 1e+101: "},
		{Instance{D: 3, Radius: 1, Loss: LossQuadratic, Modulus: 1e-300, Sequence: Stochastic}, "modulus = 1e-300: "},
		{Instance{D: 3, Radius: 1, Loss: LossQuadraticAbs, Modulus: math.Inf(1), Sequence: Stochastic}, "modulus = +Inf: "},
	} {
		if err := tc.in.Validate(); err == nil || !strings.HasPrefix(err.Error(), tc.want) || !strings.Contains(err.Error(), "1e-50") {
			t.Errorf("%+v: %v, want %q and the range", tc.in, err, tc.want)
		}
	}
	for _, r := range []float64{MinScale, MaxScale} {
		for _, mu := range []float64{MinScale, MaxScale} {
			for _, loss := range Losses {
				in := Instance{D: 3, Radius: r, Loss: loss, Noise: 0.3, Sequence: Stochastic}
				if c, _ := ClassOf(loss); c == ClassStrongly || c == ClassStronglySmooth {
					in.Modulus = mu
				}
				for _, a := range Algorithms() {
					s := Spec{Algorithm: a.Name, Instance: in, Eps: 1, Delta: 1e-5, M: 2, B: 5, T: 200, Every: 100, Seed: 1}
					res, err := Run(context.Background(), s)
					if err != nil {
						t.Errorf("R %g mu %g %s %s: %v", r, mu, loss, a.Name, err)
						continue
					}
					last := res.Curve[len(res.Curve)-1]
					if math.IsNaN(last.Pseudo) || math.IsInf(last.Pseudo, 0) {
						t.Errorf("R %g mu %g %s %s: regret %v", r, mu, loss, a.Name, last.Pseudo)
					}
				}
			}
		}
	}
}

// TestR3_W12BAboveT (case W12): with M > 1 silos, B > T means the silos
// never average their iterates: refused naming B, as the linear family
// refuses T < B. With one silo B does nothing and stays accepted.
func TestR3_W12BAboveT(t *testing.T) {
	in := Instance{D: 3, Radius: 1, Loss: LossAbsolute, Sequence: Stochastic}
	s := Spec{Algorithm: "ldp-one-point", Instance: in, Eps: 1, Delta: 1e-5, M: 2, B: 1000, T: 10, Every: 1, Seed: 1}
	if err := s.Validate(); err == nil || !strings.HasPrefix(err.Error(), "B = 1000: more than T = 10") {
		t.Errorf("M 2, B 1000, T 10: %v", err)
	}
	s.M = 1
	if err := s.Validate(); err != nil {
		t.Errorf("M 1, B 1000, T 10: %v", err)
	}
	s.M, s.B = 2, 10
	if err := s.Validate(); err != nil {
		t.Errorf("M 2, B = T = 10: %v", err)
	}
}

// TestR3_U8AnalyticTinyEps (case U8): analytic = 1 at eps <= 1e-9 was
// recorded "not certified", with a note blaming the slides' sigma and
// recommending analytic = 1: the eps recomputed from the analytic sigma
// missed the 1e-9 relative tolerance. Certification is now the exact
// delta at the target eps; the analytic sigma is certified at every eps
// of the case, with its delivered eps at most the target.
func TestR3_U8AnalyticTinyEps(t *testing.T) {
	for _, eps := range []float64{1e-12, 1e-10, 1e-9, 1e-8, 1e-3, 1, 100} {
		sigma, _, claim, err := calibrate(eps, 1e-5, 2, true)
		if err != nil {
			t.Fatalf("eps %g: %v", eps, err)
		}
		if !claim.Certified || claim.DeliveredEps > eps || strings.Contains(claim.Note, "slides") {
			t.Errorf("eps %g: sigma %v, certified %v, delivered %v, note %q", eps, sigma, claim.Certified, claim.DeliveredEps, claim.Note)
		}
	}
	// The slides' sigma above eps 1 is still refused, and says so.
	if _, _, claim, err := calibrate(10, 1e-5, 2, false); err != nil || claim.Certified || !strings.Contains(claim.Note, "analytic = 1") {
		t.Errorf("slides' sigma at eps 10: %+v, %v", claim, err)
	}
}
