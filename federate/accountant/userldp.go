package accountant

import (
	"fmt"
	"math"

	"github.com/fedbandit/fedbandit/internal/fmath"
	"github.com/fedbandit/fedbandit/internal/mutation"
)

// userLDP is ModelUserLDP (and, with glm set, ModelUserLDPGLM): local DP
// for every user (LDP-LinUCB, Zheng et al. 2020; protocol.md section 8):
// each user's own reports get Gaussian noise before they leave her, once.
// The reports are her summand x x^T (packed) and x y; under the GLM
// variant (LDP-GLOC, the logistic link) x x^T, x z with |z| <= 1 and her
// gradient (g(x.theta) - y) x. The guarantee is the Gaussian mechanism's
// on one release under replacement of the user's data (local DP compares
// any two inputs): sensitivity sqrt(2 + 4) over x x^T and x y, sqrt(2 + 4
// + 4) with the gradient, whatever the relation asked. The paper and
// reference-code presets use the classic formula sigma = Delta sqrt(2
// ln(1.25/delta)) / eps; exact the smallest sigma that the Gaussian-DP
// accountant certifies. After T rounds each published entry holds T users'
// noise terms per silo.
type userLDP struct{ glm bool }

func (userLDP) private() bool { return true }

// sensitivity is the L2 replace-one sensitivity of all of a user's reports.
func (u userLDP) sensitivity() float64 {
	g, b, _ := Sensitivities(ReplaceOne)
	s := float64(g*g) + float64(b*b)
	if u.glm && !mutation.On("M7") {
		s += float64(b * b) // the gradient, norm <= 1 like x y
	}
	return math.Sqrt(s)
}

// UserLDPSigma is the classic Gaussian mechanism's sigma for one user's
// summand: sqrt(DeltaG^2 + Deltab^2) sqrt(2 ln(1.25/delta)) / eps under
// replacement.
func UserLDPSigma(eps, delta float64) float64 {
	return userLDP{}.sensitivity() * math.Sqrt(2*fmath.Log(1.25/delta)) / eps
}

func (u userLDP) classic(r Request) float64 {
	return u.sensitivity() * math.Sqrt(2*fmath.Log(1.25/r.Delta)) / r.Eps
}

func (u userLDP) referenceSigma(r Request, _ int) float64 { return u.classic(r) }

func (u userLDP) paperSigma(r Request, _ int) (float64, string, error) {
	return u.classic(r), "the classic Gaussian mechanism (Zheng et al. 2020), one release per user", nil
}

// exactSigma scales the exact sigma of sensitivity sqrt 6 (ExactLDPSigma,
// one release, replacement) to the reports' sensitivity: mu = Delta/sigma.
func (u userLDP) exactSigma(r Request, _ int) (float64, string, error) {
	s, err := ExactLDPSigma(r.Eps, r.Delta, 1, ReplaceOne)
	if err != nil || !u.glm {
		return s, "", err
	}
	s = up(s * u.sensitivity() / userLDP{}.sensitivity())
	for i := 0; i < 64; i++ {
		if m, _ := u.mu(s, 1, ReplaceOne); gdpDelta(m, r.Eps) <= r.Delta {
			return s, "", nil
		}
		s = up(s)
	}
	return 0, "", fmt.Errorf("exact user-LDP sigma: postcondition failed at sigma = %v", s)
}

func (u userLDP) delivered(r Request, sigma float64, _ int) (float64, bool, string, error) {
	m, err := u.mu(sigma, 1, ReplaceOne)
	if err != nil {
		return 0, false, "", err
	}
	return gdpEps(m, r.Delta), false, "", nil
}

func (userLDP) terms(r Request, _ int) int { return r.T }

// mu is the tree's mu of one release under replacement (sensitivity
// sqrt 6), scaled to the reports' sensitivity.
func (u userLDP) mu(sigma float64, _ int, _ string) (float64, error) {
	m, err := TreeMu(sigma, 1, ReplaceOne)
	if err != nil || !u.glm {
		return m, err
	}
	return up(m * u.sensitivity() / userLDP{}.sensitivity()), nil
}
