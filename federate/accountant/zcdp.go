package accountant

import (
	"fmt"
	"math"

	"github.com/fedbandit/fedbandit/internal/fmath"
)

// GaussianRho returns the zCDP parameter rho = sens^2/(2 sigma^2) of the
// Gaussian mechanism with L2 sensitivity sens and noise N(0, sigma^2 I)
// (Bun & Steinke 2016, Proposition 1.6). Rounded up.
func GaussianRho(sens, sigma float64) (float64, error) {
	if err := checkNonNeg("sensitivity", sens); err != nil {
		return 0, fmt.Errorf("gaussian rho: %w", err)
	}
	if err := checkPos("sigma", sigma); err != nil {
		return 0, fmt.Errorf("gaussian rho: %w", err)
	}
	return up(sens * sens / (2 * sigma * sigma)), nil
}

// ComposeRho returns the zCDP parameter of the adaptive composition of
// rho_i-zCDP mechanisms: the sum (Bun & Steinke Lemma 2.3). Rounded up.
func ComposeRho(rhos ...float64) (float64, error) {
	s := 0.0
	for i, r := range rhos {
		if err := checkNonNeg(fmt.Sprintf("rho[%d]", i), r); err != nil {
			return 0, fmt.Errorf("compose rho: %w", err)
		}
		s += r
	}
	return up(s), nil
}

// PureToRho returns the zCDP parameter eps^2/2 implied by eps-DP.
func PureToRho(eps float64) (float64, error) {
	if err := checkNonNeg("eps", eps); err != nil {
		return 0, fmt.Errorf("pure to rho: %w", err)
	}
	return up(eps * eps / 2), nil
}

// checkRho validates rho > 0 (finite).
func checkRho(rho float64) error { return checkPos("rho", rho) }

// BSEps returns the Bun-Steinke (Proposition 1.3) epsilon of a rho-zCDP
// mechanism at delta: rho + 2 sqrt(rho ln(1/delta)). Rounded up.
func BSEps(rho, delta float64) (float64, error) {
	if err := checkRho(rho); err != nil {
		return 0, fmt.Errorf("BS eps: %w", err)
	}
	if err := checkDelta("delta", delta); err != nil {
		return 0, fmt.Errorf("BS eps: %w", err)
	}
	return bsEps(rho, delta), nil
}

func bsEps(rho, delta float64) float64 {
	return up(rho + 2*math.Sqrt(rho*fmath.Log(1/delta)))
}

// BSDelta returns the Bun-Steinke delta of a rho-zCDP mechanism at eps:
// exp(-(eps-rho)^2/(4 rho)) for eps >= rho, and 1 below. Rounded up.
func BSDelta(rho, eps float64) (float64, error) {
	if err := checkRho(rho); err != nil {
		return 0, fmt.Errorf("BS delta: %w", err)
	}
	if err := checkNonNeg("eps", eps); err != nil {
		return 0, fmt.Errorf("BS delta: %w", err)
	}
	if eps <= rho {
		return 1, nil
	}
	return math.Min(1, up(fmath.Exp(-(eps-rho)*(eps-rho)/(4*rho)))), nil
}

// BSRho returns the largest rho for which the Bun-Steinke conversion
// certifies (eps, delta): rho* = (sqrt(ln(1/delta)+eps) - sqrt(ln(1/delta)))^2,
// computed without cancellation as eps^2/(sqrt(ln(1/delta)+eps)+sqrt(ln(1/delta)))^2
// and rounded down.
func BSRho(eps, delta float64) (float64, error) {
	if err := checkPos("eps", eps); err != nil {
		return 0, fmt.Errorf("BS rho: %w", err)
	}
	if err := checkDelta("delta", delta); err != nil {
		return 0, fmt.Errorf("BS rho: %w", err)
	}
	l := fmath.Log(1 / delta)
	s := math.Sqrt(l+eps) + math.Sqrt(l)
	return down(eps * eps / (s * s)), nil
}

// BSRhoSimple returns the convenient sufficient value
// eps^2/(4(ln(1/delta)+eps)) <= BSRho(eps, delta) used in the paper's proof
// of Theorem 5.1 (Remark 15 of Steinke 2022). Rounded down.
func BSRhoSimple(eps, delta float64) (float64, error) {
	if err := checkPos("eps", eps); err != nil {
		return 0, fmt.Errorf("BS rho simple: %w", err)
	}
	if err := checkDelta("delta", delta); err != nil {
		return 0, fmt.Errorf("BS rho simple: %w", err)
	}
	return down(eps * eps / (4 * (fmath.Log(1/delta) + eps))), nil
}

// cksLogDelta returns the log of the CKS bound at order alpha > 1:
// (alpha-1)(alpha rho - eps) + alpha ln(1-1/alpha) - ln(alpha-1).
func cksLogDelta(rho, eps, alpha float64) float64 {
	return float64((alpha-1)*(float64(alpha*rho)-eps)) + float64(alpha*fmath.Log1p(-1/alpha)) - fmath.Log(alpha-1)
}

// CKSDelta returns the Canonne-Kamath-Steinke (2020, Proposition 7 / §2.3)
// delta of a rho-zCDP mechanism at eps:
//
//	delta = inf_{alpha>1} exp((alpha-1)(alpha rho - eps)) (1-1/alpha)^alpha / (alpha-1).
//
// The optimal alpha solves (2 alpha - 1) rho - eps + ln(1 - 1/alpha) = 0 and
// is found by bisection on [1+1e-9, (eps+1)/(2 rho) + 2]; any alpha gives a
// valid bound, so an imprecise root only loosens it. Capped at 1 and
// rounded up.
func CKSDelta(rho, eps float64) (float64, error) {
	if err := checkRho(rho); err != nil {
		return 0, fmt.Errorf("CKS delta: %w", err)
	}
	if err := checkNonNeg("eps", eps); err != nil {
		return 0, fmt.Errorf("CKS delta: %w", err)
	}
	return cksDelta(rho, eps), nil
}

func cksDelta(rho, eps float64) float64 {
	g := func(a float64) bool { return float64((float64(2*a)-1)*rho)-eps+fmath.Log1p(-1/a) >= 0 }
	lo, hi := 1+1e-9, (eps+1)/(2*rho)+2
	a := hi
	if g(lo) {
		a = lo
	} else {
		a = bisectMin(lo, hi, g)
	}
	ld := cksLogDelta(rho, eps, a)
	// The log-space terms can be large and of opposite signs: margin
	// relative to their magnitude.
	mag := math.Abs((a-1)*(a*rho)) + math.Abs((a-1)*eps) + math.Abs(a*fmath.Log1p(-1/a)) + math.Abs(fmath.Log(a-1))
	ld += float64(mag * safety)
	if ld >= 0 {
		return 1
	}
	return up(fmath.Exp(ld))
}

// CKSEps returns the smallest eps for which CKSDelta(rho, eps) <= delta,
// by bisection on [0, BSEps(rho, delta)] returning the upper bracket.
func CKSEps(rho, delta float64) (float64, error) {
	if err := checkRho(rho); err != nil {
		return 0, fmt.Errorf("CKS eps: %w", err)
	}
	if err := checkDelta("delta", delta); err != nil {
		return 0, fmt.Errorf("CKS eps: %w", err)
	}
	ok := func(e float64) bool { return cksDelta(rho, e) <= delta }
	hi := bsEps(rho, delta)
	for i := 0; !ok(hi); i++ { // the BS bound always qualifies; guard rounding anyway
		if i == 64 || !finite(hi) {
			return 0, fmt.Errorf("CKS eps: %w: no eps found for rho = %v, delta = %v", ErrInvalid, rho, delta)
		}
		hi = up(hi * 2)
	}
	if ok(0) {
		return 0, nil
	}
	return bisectMin(0, hi, ok), nil
}

// RDPToDP converts an (alpha, tau)-RDP guarantee to (eps, delta)-DP with
// the improved conversion
// eps = tau + [ln(1/delta) + (alpha-1) ln(1-1/alpha) - ln(alpha)]/(alpha-1)
// (Canonne, Kamath & Steinke 2020; Balle et al. 2020). Rounded up, and
// never below 0.
func RDPToDP(alpha, tau, delta float64) (float64, error) {
	if !finite(alpha) || alpha <= 1 {
		return 0, fmt.Errorf("RDP to DP: %w: alpha = %v, want > 1", ErrInvalid, alpha)
	}
	if err := checkNonNeg("tau", tau); err != nil {
		return 0, fmt.Errorf("RDP to DP: %w", err)
	}
	if err := checkDelta("delta", delta); err != nil {
		return 0, fmt.Errorf("RDP to DP: %w", err)
	}
	e := tau + (fmath.Log(1/delta)+(alpha-1)*fmath.Log1p(-1/alpha)-fmath.Log(alpha))/(alpha-1)
	return math.Max(0, up(e)), nil
}

// RDPToDPClassic is Mironov's looser conversion eps = tau + ln(1/delta)/(alpha-1).
func RDPToDPClassic(alpha, tau, delta float64) (float64, error) {
	if !finite(alpha) || alpha <= 1 {
		return 0, fmt.Errorf("RDP to DP (classic): %w: alpha = %v, want > 1", ErrInvalid, alpha)
	}
	if err := checkNonNeg("tau", tau); err != nil {
		return 0, fmt.Errorf("RDP to DP (classic): %w", err)
	}
	if err := checkDelta("delta", delta); err != nil {
		return 0, fmt.Errorf("RDP to DP (classic): %w", err)
	}
	return up(tau + fmath.Log(1/delta)/(alpha-1)), nil
}
