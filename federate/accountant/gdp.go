package accountant

import (
	"fmt"
	"math"

	"github.com/fedbandit/fedbandit/internal/fmath"
	"github.com/fedbandit/fedbandit/internal/mutation"
)

// GDPDelta returns the exact delta(eps) of a mu-Gaussian-DP mechanism
// (Dong, Roth & Su): delta = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2).
// This is also the tight privacy profile of the Gaussian mechanism with
// sensitivity Delta and noise sigma at mu = Delta/sigma (Balle & Wang 2018,
// Theorem 8), and of any adaptive composition of Gaussian mechanisms with
// mu = sqrt(sum mu_i^2). The result is rounded up (conservative).
// It requires mu > 0 and eps >= 0, both finite.
func GDPDelta(mu, eps float64) (float64, error) {
	if err := checkPos("mu", mu); err != nil {
		return 0, fmt.Errorf("gdp delta: %w", err)
	}
	if err := checkNonNeg("eps", eps); err != nil {
		return 0, fmt.Errorf("gdp delta: %w", err)
	}
	return gdpDelta(mu, eps), nil
}

// gdpDelta is GDPDelta without validation.
func gdpDelta(mu, eps float64) float64 {
	xa, xb := -eps/mu+float64(mu/2), -eps/mu-float64(mu/2)
	a := phi(xa)
	b := 0.0
	if eps < 700 {
		b = float64(fmath.Exp(eps) * phi(xb))
	}
	// Rounding the argument x of Phi by one ulp changes Phi(x) by a relative
	// amount of about x^2 ulps in the tail, erfc and exp add a few ulps, and
	// the subtraction can cancel most digits: the margin is taken relative
	// to the operands, scaled by (c + x^2), never relative to the difference.
	// A zero operand contributes no error (and its x^2 may overflow: at eps
	// 1e160, mu 1e-3 it is +Inf, and 0 * Inf would make d NaN).
	const ulp = 0x1p-52
	var ea, eb float64
	if a != 0 {
		ea = a * (8 + float64(xa*xa)) * ulp
	}
	if b != 0 {
		eb = b * (8 + float64(xb*xb) + eps) * ulp
	}
	d := a - b + float64(8*(ea+eb))
	if math.IsNaN(d) {
		return 1 // no usable bound: the conservative answer
	}
	if d < 0 {
		d = 0
	}
	if d > 1 {
		d = 1
	}
	if mutation.On("M14") { // the margin removed
		return math.Max(0, math.Min(1, a-b))
	}
	return d
}

// GDPEps returns the smallest eps >= 0 such that a mu-GDP mechanism is
// (eps, delta)-DP, by bisection returning the upper (safe) bracket.
func GDPEps(mu, delta float64) (float64, error) {
	if err := checkPos("mu", mu); err != nil {
		return 0, fmt.Errorf("gdp eps: %w", err)
	}
	if err := checkDelta("delta", delta); err != nil {
		return 0, fmt.Errorf("gdp eps: %w", err)
	}
	return gdpEps(mu, delta), nil
}

// gdpEps is GDPEps without validation.
func gdpEps(mu, delta float64) float64 {
	ok := func(e float64) bool { return gdpDelta(mu, e) <= delta }
	if ok(0) {
		return 0
	}
	hi := float64(mu*(mu/2)) + float64(mu*math.Sqrt(2*fmath.Log(1/delta))) + 1
	if !finite(hi) {
		hi = math.MaxFloat64 // mu near sqrt(MaxFloat64): delta(MaxFloat64) is 0
	}
	for !ok(hi) {
		if hi > 1e300 {
			return math.Inf(1)
		}
		hi *= 2
	}
	return bisectMin(0, hi, ok)
}

// GDPMu returns the largest mu such that a mu-GDP mechanism is (eps,
// delta)-DP, by bisection returning the lower (safe) bracket. It requires
// eps > 0 and 0 < delta < 1.
func GDPMu(eps, delta float64) (float64, error) {
	if err := checkPos("eps", eps); err != nil {
		return 0, fmt.Errorf("gdp mu: %w", err)
	}
	if err := checkDelta("delta", delta); err != nil {
		return 0, fmt.Errorf("gdp mu: %w", err)
	}
	mu := gdpMu(eps, delta)
	if mu == 0 {
		return 0, fmt.Errorf("gdp mu: %w: no mu > 0 meets eps = %v, delta = %v", ErrInvalid, eps, delta)
	}
	return mu, nil
}

// gdpMu is GDPMu without validation. Both bracket searches are bounded:
// halving stops at 0 (returned when no mu > 0 is feasible, which callers
// turn into an error naming eps and delta) and doubling at MaxFloat64 (the
// largest mu is about sqrt(2 eps), so at most 1.4e154 for finite eps).
func gdpMu(eps, delta float64) float64 {
	ok := func(mu float64) bool { return gdpDelta(mu, eps) <= delta }
	lo := 1e-3
	for !ok(lo) {
		if lo /= 2; lo == 0 {
			return 0
		}
	}
	hi := 2 * lo
	for ok(hi) {
		if hi > math.MaxFloat64/2 {
			return hi
		}
		lo, hi = hi, 2*hi
	}
	return bisectMax(lo, hi, ok)
}

// GDPCompose returns the Gaussian-DP parameter sqrt(sum mu_i^2) of the
// adaptive composition of mu_i-GDP mechanisms (exact for Gaussians),
// rounded up.
func GDPCompose(mus ...float64) (float64, error) {
	s := 0.0
	for i, m := range mus {
		if err := checkNonNeg(fmt.Sprintf("mu[%d]", i), m); err != nil {
			return 0, fmt.Errorf("gdp compose: %w", err)
		}
		s += m * m
	}
	return up(math.Sqrt(s)), nil
}

// TreeMu returns the Gaussian-DP parameter of one silo's whole transcript
// under protocol P: every release containing a user is a Gaussian with noise
// sigma per entry, a user enters kappa nodes of each of the two streams, so
// mu = sqrt(kappa) * sqrt(DeltaG^2 + Deltab^2) / sigma (privacy.md 3.4).
// The sensitivities come from Sensitivities(relation).
func TreeMu(sigma float64, kappa int, relation string) (float64, error) {
	if err := checkPos("sigma", sigma); err != nil {
		return 0, fmt.Errorf("tree mu: %w", err)
	}
	if kappa < 1 {
		return 0, fmt.Errorf("tree mu: %w: kappa = %d, want >= 1", ErrInvalid, kappa)
	}
	g, b, err := Sensitivities(relation)
	if err != nil {
		return 0, fmt.Errorf("tree mu: %w", err)
	}
	return up(math.Sqrt(float64(kappa)) * math.Sqrt(float64(g*g)+float64(b*b)) / sigma), nil
}

// Sensitivities returns the L2 sensitivities of one user's contribution to
// the Gram stream (x x^T, Frobenius norm) and to the bias stream (x y) under
// the neighbouring relation, assuming ||x|| <= 1 and y in [0, 1]:
// add/remove 1 and 1; replace-one sqrt(2) and 2 (privacy.md 3.2). The Gram
// value holds for both noise conventions (privacy.md 3.8). An empty
// relation means AddRemove.
func Sensitivities(relation string) (gram, bias float64, err error) {
	switch relation {
	case AddRemove, "":
		return 1, 1, nil
	case ReplaceOne:
		if mutation.On("P5-16") { // the replace-one bias sensitivity sqrt 2, not 2
			return math.Sqrt2, math.Sqrt2, nil
		}
		return math.Sqrt2, 2, nil
	}
	return 0, 0, fmt.Errorf("%w: relation %q, want %q or %q", ErrInvalid, relation, AddRemove, ReplaceOne)
}
