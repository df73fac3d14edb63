package accountant

import (
	"fmt"
	"math"

	"github.com/fedbandit/fedbandit/internal/fmath"
)

// AnalyticGaussianDelta returns delta_BW(sigma, eps, sens): the exact delta
// at which the Gaussian mechanism with L2 sensitivity sens and noise
// N(0, sigma^2) is (eps, delta)-DP (Balle & Wang 2018, Theorem 8):
// Phi(sens/(2 sigma) - eps sigma/sens) - e^eps Phi(-sens/(2 sigma) - eps sigma/sens).
// Rounded up.
func AnalyticGaussianDelta(sigma, eps, sens float64) (float64, error) {
	if err := checkPos("sigma", sigma); err != nil {
		return 0, fmt.Errorf("analytic gaussian delta: %w", err)
	}
	if err := checkNonNeg("eps", eps); err != nil {
		return 0, fmt.Errorf("analytic gaussian delta: %w", err)
	}
	if err := checkPos("sensitivity", sens); err != nil {
		return 0, fmt.Errorf("analytic gaussian delta: %w", err)
	}
	return gdpDelta(sens/sigma, eps), nil
}

// AnalyticGaussianEps returns the smallest eps for which the Gaussian
// mechanism with sensitivity sens and noise sigma is (eps, delta)-DP
// (bisection on Theorem 8, upper bracket).
func AnalyticGaussianEps(sigma, delta, sens float64) (float64, error) {
	if err := checkPos("sigma", sigma); err != nil {
		return 0, fmt.Errorf("analytic gaussian eps: %w", err)
	}
	if err := checkDelta("delta", delta); err != nil {
		return 0, fmt.Errorf("analytic gaussian eps: %w", err)
	}
	if err := checkPos("sensitivity", sens); err != nil {
		return 0, fmt.Errorf("analytic gaussian eps: %w", err)
	}
	return gdpEps(sens/sigma, delta), nil
}

// AnalyticGaussianSigma returns sigma_BW(eps, delta, sens): the smallest
// noise standard deviation for which the Gaussian mechanism with L2
// sensitivity sens is (eps, delta)-DP. It bisects sigma on Theorem 8 of
// Balle & Wang and returns the upper bracket; the postcondition
// delta_BW(sigma) <= delta is checked before returning.
func AnalyticGaussianSigma(eps, delta, sens float64) (float64, error) {
	if err := checkPos("eps", eps); err != nil {
		return 0, fmt.Errorf("analytic gaussian sigma: %w", err)
	}
	if err := checkDelta("delta", delta); err != nil {
		return 0, fmt.Errorf("analytic gaussian sigma: %w", err)
	}
	if err := checkPos("sensitivity", sens); err != nil {
		return 0, fmt.Errorf("analytic gaussian sigma: %w", err)
	}
	ok := func(s float64) bool { return gdpDelta(sens/s, eps) <= delta }
	// The classical sigma sqrt(2 ln(1.25/delta)) sens/eps is only valid for
	// eps < 1, so search upward from it rather than trusting it.
	// Both bracket searches are bounded: doubling stops at MaxFloat64 and
	// halving at 0 (sigma 0 never qualifies: delta(mu = +Inf) = 1).
	hi := sens * math.Sqrt(2*fmath.Log(1.25/delta)) / eps
	if !finite(hi) {
		hi = math.MaxFloat64
	}
	for !ok(hi) {
		if hi > math.MaxFloat64/2 {
			return 0, fmt.Errorf("analytic gaussian sigma: %w: no finite sigma meets eps = %v, delta = %v", ErrInvalid, eps, delta)
		}
		hi *= 2
	}
	lo := hi / 2
	for lo > 0 && ok(lo) {
		hi, lo = lo, lo/2
	}
	s := bisectMin(lo, hi, ok)
	if !ok(s) {
		return 0, fmt.Errorf("analytic gaussian sigma: postcondition failed at sigma = %v (eps %v, delta %v)", s, eps, delta)
	}
	return s, nil
}
