package accountant

import (
	"fmt"
	"math"

	"github.com/fedbandit/fedbandit/internal/fmath"
	"github.com/fedbandit/fedbandit/internal/mutation"
)

// Noise samplers a Request can be calibrated for (Request.Noise).
const (
	// NoiseGaussian is the floating-point Gaussian (the empty Noise means
	// it): its guarantee is the mechanism's in exact arithmetic only, not
	// a secure deployment (floating-point attacks, docs/privacy.md).
	NoiseGaussian = "gaussian"
	// NoiseDiscrete is the discrete Gaussian on the grid Grid(sigma), drawn
	// by an exact integer sampler (internal/dpnoise, Canonne, Kamath &
	// Steinke 2020), each user's contribution rounded to the grid before it
	// is summed: its guarantee (DiscreteRho, converted by CKSEps) covers
	// this implementation too.
	NoiseDiscrete = "discrete"
)

// GridBits sets the grid of the discrete Gaussian: Grid(sigma) is the
// power of two with sigma/Grid(sigma) in [2^GridBits, 2^(GridBits+1)).
// At 20 bits the grid is a millionth of the noise scale (the rounding
// inflates the sensitivity by at most Grid(sigma) d, i.e. ~1e-6 sigma d),
// the sampler's variance parameter (sigma/gamma)^2 < 2^42 keeps its
// acceptance test on its math/big path cheap (about 1 microsecond a draw),
// and a node sum stays exact below 2^52 gamma >= 2^31 sigma.
const GridBits = 20

// Grid returns the grid gamma = 2^(floor(log2 sigma) - GridBits) of the
// discrete Gaussian of scale sigma > 0: chosen from the noise scale only,
// never from data (Google's granularity principle, privacy.md 2.2).
func Grid(sigma float64) float64 {
	return math.Ldexp(1, gridExp(sigma))
}

// gridExp is the exponent k of Grid(sigma) = 2^k.
func gridExp(sigma float64) int {
	_, e := math.Frexp(sigma) // sigma = f 2^e, f in [1/2, 1)
	return e - 1 - GridBits
}

// DiscreteSensitivities returns the L2 sensitivities of one user's
// contribution to the Gram and bias streams after each of its entries is
// rounded to the nearest multiple of gamma, for feature dimension d
// (docs/privacy.md, "The discrete Gaussian"). Rounding moves each entry by
// at most gamma/2, so a rounded contribution is within (gamma/2) sqrt(n)
// of the exact one in L2 over n entries; the Gram stream's norm is the
// Frobenius norm of the full d x d matrix (its Mahalanobis norm under
// either Gram-noise convention, privacy.md 3.8), n <= d^2, and the bias
// stream has n = d. Add/remove compares a rounded contribution with
// nothing: Delta + (gamma/2) sqrt(n); replace-one compares two rounded
// contributions: Delta + gamma sqrt(n). Rounded up.
func DiscreteSensitivities(relation string, gamma float64, d int) (gram, bias float64, err error) {
	g, b, err := Sensitivities(relation)
	if err != nil {
		return 0, 0, err
	}
	if err := checkNonNeg("gamma", gamma); err != nil {
		return 0, 0, err
	}
	if d < 1 {
		return 0, 0, fmt.Errorf("%w: d = %d, want >= 1", ErrInvalid, d)
	}
	c := 0.5
	if relation == ReplaceOne {
		c = 1
	}
	if mutation.On("M18") { // the rounding not charged
		c = 0
	}
	if mutation.On("N18") { // the Gram's inflation over sqrt(d(d+1)/2) packed entries, not d
		return up(g + float64(c*gamma*math.Sqrt(float64(d*(d+1)/2)))), up(b + float64(c*gamma*math.Sqrt(float64(d)))), nil
	}
	return up(g + float64(c*gamma*float64(d))), up(b + float64(c*gamma*math.Sqrt(float64(d)))), nil
}

// DiscreteRho returns the zCDP rho of one run's releases with discrete
// Gaussian noise of scale sigma on the grid Grid(sigma) (r.Noise is
// NoiseDiscrete): per release the multivariate discrete Gaussian's
// sum_j Delta_j^2/(2 sigma_j^2) over its entries, exactly (Canonne, Kamath
// & Steinke 2020, Proposition 5 and Theorem 14: every shift is an integer
// multiple of the grid, so no tau term arises; no sum of discrete
// Gaussians is ever treated as one), composed over the releases that
// contain a user: kappa tree nodes of both streams (silo-level LDP, also
// SDP-amp's unamplified guarantee, the super agent's central tree,
// FedUCB), or one report (user-level LDP,
// replace-one, its sensitivity sqrt(2 + 4) or sqrt(2 + 4 + 4) with the
// gradient). Rounded up.
func DiscreteRho(r Request, sigma float64, kappa int) (float64, error) {
	if err := checkPos("sigma", sigma); err != nil {
		return 0, fmt.Errorf("discrete rho: %w", err)
	}
	if kappa < 1 {
		return 0, fmt.Errorf("discrete rho: %w: kappa = %d, want >= 1", ErrInvalid, kappa)
	}
	gamma := Grid(sigma)
	switch r.Model {
	case ModelLDP, ModelCentral, ModelFedUCB, ModelSDPAmp:
		g, b, err := DiscreteSensitivities(r.Relation, gamma, r.D)
		if err != nil {
			return 0, fmt.Errorf("discrete rho: %w", err)
		}
		if mutation.On("N17") { // kappa - 1 releases composed
			kappa--
		}
		return up(float64(kappa) * up(float64(g*g)+float64(b*b)) / (2 * sigma * sigma)), nil
	case ModelUserLDP, ModelUserLDPGLM:
		g, b, err := DiscreteSensitivities(ReplaceOne, gamma, r.D)
		if err != nil {
			return 0, fmt.Errorf("discrete rho: %w", err)
		}
		s := float64(g*g) + float64(b*b)
		if r.Model == ModelUserLDPGLM {
			s += float64(b * b) // the gradient (g(x.theta) - y) x: norm <= 1, rounded like x y
		}
		return up(up(s) / (2 * sigma * sigma)), nil
	}
	return 0, fmt.Errorf("discrete rho: %w: %s", ErrInvalid, discreteUnsupported(r.Model))
}

// discreteUnsupported says why a model has no discrete-Gaussian
// accounting ("" if it has one).
func discreteUnsupported(model string) string {
	switch model {
	case ModelLDP, ModelSDPAmp, ModelCentral, ModelFedUCB, ModelUserLDP, ModelUserLDPGLM:
		return ""
	case ModelSDPVec:
		return "P_TVec's noise is binomial, already on an integer grid"
	case ModelNone:
		return "a non-private model draws no noise"
	}
	return fmt.Sprintf("model %q", model)
}

// discreteDelivered is the eps at r.Delta of discrete noise sigma: the
// Canonne-Kamath-Steinke conversion of DiscreteRho; under SDP-amp the
// smaller of that and the amplification accountant's
// (ShuffleTreeDiscrete), as for the Gaussian.
func discreteDelivered(r Request, sigma float64, kappa int) (float64, bool, string, error) {
	rho, err := DiscreteRho(r, sigma, kappa)
	if err != nil {
		return 0, false, "", err
	}
	eps, err := CKSEps(rho, r.Delta)
	if err != nil {
		return 0, false, "", err
	}
	note := discreteNote(r, sigma, rho)
	if r.Model != ModelSDPAmp {
		return eps, false, note, nil
	}
	amp, err := ShuffleTreeDiscrete(sigma, kappa, r.M, r.B, r.D, r.Delta, r.Relation)
	if err != nil {
		return 0, false, "", err
	}
	if amp.Eps < eps {
		if amp.Releases < 2*kappa {
			note = join(note, fmt.Sprintf("shuffle amplification applied to %d of %d releases: %s", amp.Releases, 2*kappa, amp.Reason))
		}
		return amp.Eps, true, note, nil
	}
	reason := amp.Reason
	if reason == "" {
		reason = fmt.Sprintf("amplified bound %.4g is no better than the silo-level LDP bound", amp.Eps)
	}
	return eps, false, join(note, "shuffle amplification does not apply, delivered guarantee is the unamplified silo-level LDP one: "+reason), nil
}

// discreteCertifies reports whether discrete noise sigma certifies
// (r.Eps, r.Delta): CKSDelta at r.Eps, free of the eps bisection's
// tolerance.
func discreteCertifies(r Request, sigma float64, kappa int) (bool, error) {
	rho, err := DiscreteRho(r, sigma, kappa)
	if err != nil {
		return false, err
	}
	if cksDelta(rho, r.Eps) <= r.Delta {
		return true, nil
	}
	if r.Model != ModelSDPAmp {
		return false, nil
	}
	eps, amp, _, err := discreteDelivered(r, sigma, kappa)
	return err == nil && amp && eps <= r.Eps, err
}

// DiscreteNote is in the note of every calibration for NoiseDiscrete:
// a run's record (its calibration note) says by it that its noise was
// discrete.
const DiscreteNote = "discrete Gaussian noise (exact integer sampler, CKS20)"

// discreteNote states the discrete mechanism's grid and accounting.
func discreteNote(r Request, sigma, rho float64) string {
	return fmt.Sprintf(DiscreteNote+" on the grid gamma = 2^%d, every user's contribution rounded to it before summation; accounted as %.6g-zCDP with the rounding-inflated sensitivities, converted by CKS20: certified for the mechanism and this implementation", gridExp(sigma), rho)
}

// exactDiscreteTreeSigma returns the smallest sigma (on the safe side)
// for which DiscreteRho with the CKS conversion certifies (r.Eps,
// r.Delta), without amplification. The postcondition is checked.
func exactDiscreteTreeSigma(r Request, kappa int) (float64, error) {
	if err := checkPos("eps", r.Eps); err != nil {
		return 0, fmt.Errorf("exact discrete sigma: %w", err)
	}
	if err := checkDelta("delta", r.Delta); err != nil {
		return 0, fmt.Errorf("exact discrete sigma: %w", err)
	}
	if why := discreteUnsupported(r.Model); why != "" {
		return 0, fmt.Errorf("exact discrete sigma: %w: %s", ErrInvalid, why)
	}
	// The largest rho whose CKS delta at eps is at most delta: CKSDelta
	// increases with rho.
	// Both bracket searches are bounded (attack round 3, H1: eps^2/2 is
	// +Inf from eps = 1.9e154 on, and doubling +Inf never ends): doubling
	// stops at MaxFloat64, where rho is taken as MaxFloat64 (a smaller rho
	// than allowed: more noise, on the safe side), halving at 1e-300.
	ok := func(rho float64) bool { return cksDelta(rho, r.Eps) <= r.Delta }
	hi := math.Min(math.Max(r.Eps*r.Eps/2, 1e-300), math.MaxFloat64)
	for ok(hi) && hi < math.MaxFloat64 {
		hi = math.Min(2*hi, math.MaxFloat64)
	}
	rhoMax := hi
	if !ok(hi) {
		lo := hi / 2
		for !ok(lo) {
			lo /= 2
			if lo < 1e-300 {
				return 0, fmt.Errorf("exact discrete sigma: %w: no noise level certifies eps = %v, delta = %v", ErrInvalid, r.Eps, r.Delta)
			}
		}
		// bisectMin finds the smallest feasible x of an upward-closed set;
		// rho is feasible downward, so search over -rho.
		rhoMax = -bisectMin(-hi, -lo, func(x float64) bool { return ok(-x) })
	}
	// sigma from rho at the uninflated sensitivity, then raised until the
	// inflated one (whose grid depends on sigma) certifies.
	unit, err := DiscreteRho(r, 1, kappa)
	if err != nil {
		return 0, fmt.Errorf("exact discrete sigma: %w", err)
	}
	sigma := math.Sqrt(unit / rhoMax)
	// unit's grid is that of sigma = 1; below 1 the grid is finer and the
	// inflation smaller: settle sigma on its own grid first (a fixed point
	// of sigma = sigma sqrt(rho(sigma)/rhoMax), from above), else a sigma
	// below 1 is not the smallest that certifies (1e-6 above it at eps 8:
	// TestDiscreteGoldenMpmath).
	for i := 0; i < 8; i++ {
		rho, err := DiscreteRho(r, sigma, kappa)
		if err != nil {
			return 0, fmt.Errorf("exact discrete sigma: %w", err)
		}
		s := sigma * math.Sqrt(rho/rhoMax)
		if !(s < sigma) {
			break
		}
		sigma = s
	}
	for i := 0; i < 200; i++ {
		rho, err := DiscreteRho(r, sigma, kappa)
		if err != nil {
			return 0, fmt.Errorf("exact discrete sigma: %w", err)
		}
		if cksDelta(rho, r.Eps) <= r.Delta {
			return sigma, nil
		}
		sigma = math.Max(up(sigma*math.Sqrt(rho/rhoMax)), up(sigma))
		if !finite(sigma) {
			break
		}
	}
	// The rounding to the grid (a fixed fraction 2^-GridBits of sigma)
	// keeps rho above a floor however large sigma is: a target whose rho
	// is below it cannot be met by the discrete mechanism.
	return 0, fmt.Errorf("exact discrete sigma: %w: no discrete noise level certifies eps = %v, delta = %v (kappa %d): the rounding to the grid keeps rho above %.3g, and it needs at most %.3g", ErrInvalid, r.Eps, r.Delta, kappa, discreteRhoFloor(r, kappa), rhoMax)
}

// discreteRhoFloor is DiscreteRho at a huge sigma: the rounding's share
// of the sensitivity, which no amount of noise removes.
func discreteRhoFloor(r Request, kappa int) float64 {
	rho, err := DiscreteRho(r, math.Ldexp(1, 900), kappa)
	if err != nil {
		return math.NaN()
	}
	return rho
}

// ExactDiscreteSigma returns the smallest sigma (on the safe side) for
// which the discrete Gaussian mechanism of r certifies (r.Eps, r.Delta):
// the zCDP accounting of DiscreteRho with the CKS conversion, and under
// SDP-amp the smallest sigma (bisection, upper bracket) at which the
// amplification accountant (ShuffleTreeDiscrete) does, when it does better
// than the unamplified one. The postcondition is checked.
func ExactDiscreteSigma(r Request, kappa int) (float64, error) {
	sl, err := exactDiscreteTreeSigma(r, kappa)
	if err != nil || r.Model != ModelSDPAmp {
		return sl, err
	}
	ok := func(s float64) bool {
		e, a, _, err := discreteDelivered(r, s, kappa)
		return err == nil && a && e <= r.Eps
	}
	if !ok(sl) {
		return sl, nil
	}
	lo := sl / 2
	for ok(lo) && lo > 1e-300 {
		lo /= 2
	}
	s := bisectMin(lo, sl, ok)
	if !ok(s) {
		return 0, fmt.Errorf("exact discrete sigma: postcondition failed at sigma = %v (amplified)", s)
	}
	return s, nil
}

// DiscreteGaussianDelta returns the exact delta at eps of the
// one-dimensional discrete Gaussian mechanism with variance parameter
// sigma2 and integer sensitivity sens (Canonne, Kamath & Steinke 2020,
// Theorem 7; their cdp2adp.py dg_delta):
//
//	delta = P[X >= l] - e^eps P[X >= u],  l = floor(eps sigma2/sens - sens/2) + 1,
//	u = floor(eps sigma2/sens + sens/2) + 1,
//
// X ~ N_Z(0, sigma2), the probabilities summed term by term to 40 standard
// deviations beyond the mode (the rest is below 1e-300 of the total).
// Rounded up with a margin relative to the two tails. The accounting of
// runs uses the zCDP bound (DiscreteRho), which dominates it; this is the
// tight reference its tests compare against.
func DiscreteGaussianDelta(sigma2, eps float64, sens int) (float64, error) {
	if err := checkPos("sigma2", sigma2); err != nil {
		return 0, fmt.Errorf("discrete Gaussian delta: %w", err)
	}
	if err := checkNonNeg("eps", eps); err != nil {
		return 0, fmt.Errorf("discrete Gaussian delta: %w", err)
	}
	if sens < 1 || sigma2 > 1e8 {
		return 0, fmt.Errorf("discrete Gaussian delta: %w: sensitivity %d, sigma2 %v (want >= 1 and <= 1e8)", ErrInvalid, sens, sigma2)
	}
	d := float64(sens)
	l := math.Floor(eps*sigma2/d-d/2) + 1
	u := math.Floor(eps*sigma2/d+d/2) + 1
	lim := math.Ceil(40*math.Sqrt(sigma2)) + 2
	// Tails P[X >= a] (unnormalised) and the normaliser, summed from the
	// far ends inwards.
	var z, tl, tu float64
	for m := lim; m >= 0; m-- {
		ks := []float64{m, -m}
		if m == 0 {
			ks = ks[:1]
		}
		for _, k := range ks {
			v := fmath.Exp(-k * k / (2 * sigma2))
			z += v
			if k >= l {
				tl += v
			}
			if k >= u {
				tu += v
			}
		}
	}
	delta := (tl - fmath.Exp(eps)*tu) / z
	margin := (tl + fmath.Exp(eps)*tu) / z * safety * 4
	return math.Min(1, math.Max(0, up(delta+margin))), nil
}
