package mab

import (
	"fmt"
	"math"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/fmath"
)

// Relation is the neighbouring relation of every claim of the family.
const Relation = "one user's reward replaced by any value in [0, 1]; each user contributes once, to one arm in one batch, " +
	"so the batches compose in parallel and the run's guarantee is its worst batch's"

// account returns the privacy claim of a run: what the noise it will draw
// guarantees over every batch that can complete within T rounds (batch
// sizes growth^b do not depend on the data, so the claim does not either).
func account(alg Algorithm, spec Spec, params map[string]float64) (core.Privacy, error) {
	p := core.Privacy{Trust: alg.Trust, Relation: Relation}
	if alg.Trust == core.TrustNone {
		p.Mechanism = "none"
		return p, nil
	}
	p.TargetEps = spec.Eps
	epsDown := math.Floor(spec.Eps*(1<<epsBits)) / (1 << epsBits)
	switch alg.Name {
	case "dp-se":
		p.Mechanism = "laplace-central"
		if params["reference_code"] == 1 {
			p.Mechanism, p.DeliveredEps = "laplace-shared-reference-code", math.Inf(1)
			p.Note = "not certified: reference_code = 1 adds one Laplace(1/eps) draw to every arm's sum of a batch, as the authors' script does; " +
				"a comparison of arms is then noiseless, and the released vector of sums is not eps-DP"
			return p, nil
		}
		p.DeliveredEps, p.Certified = spec.Eps, true
		p.Note = "Laplace(1/eps) on each arm's batch sum (sensitivity 1): eps-DP for the mechanism in exact arithmetic; " +
			"the sampler is floating point (inverse CDF on a 53-bit uniform), not a secure deployment (Mironov 2012)"
		return p, nil
	case "cdp-se", "ldp-se", "dist-dp-se":
		p.Mechanism = map[string]string{"cdp-se": "dlap-central-secagg", "ldp-se": "dlap-local", "dist-dp-se": "polya-secagg"}[alg.Name]
		p.DeliveredEps, p.Certified = epsDown, true
		p.Note = fmt.Sprintf("discrete Laplace with parameter exp(-eps'/g) on an integer sum of sensitivity g, eps' = eps rounded down to a multiple of 2^-%d = %v; exact integer sampler", epsBits, epsDown)
		if alg.Name == "ldp-se" {
			p.Note += "; every user's message is eps'-DP on its own (local model)"
		}
		if alg.Name == "dist-dp-se" {
			if params["reference_code"] == 1 {
				p.Mechanism, p.Certified, p.DeliveredEps = "polya-secagg-reference-code", false, math.Inf(1)
				p.Note = "not certified: reference_code = 1 draws the Polya shares with the authors' script's Gamma scale (1-p)/p, " +
					"so the total noise is DLap(1-p) instead of DLap(p) with p = exp(-eps/g): orders of magnitude too small"
				return p, nil
			}
			if params["per_user"] == 1 {
				p.Certified = false
				p.DeliveredEps = math.Inf(1)
				p.Note = "per_user = 1: every user's Polya share is drawn through a floating-point Gamma variate, so the sum of shares " +
					"is a discrete Laplace only in exact arithmetic (eps' = " + fmt.Sprint(epsDown) + " for that law); per_user = 0 draws the total exactly"
			} else {
				p.Note += "; the batch's total noise drawn once from its exact law (the sum of the Polya shares)"
			}
		}
		return p, nil
	}
	// Renyi and concentrated DP: stated as (eps, delta)-DP at spec.Delta.
	p.TargetDelta, p.DeliveredDelta = spec.Delta, spec.Delta
	var target, delivered float64
	var worst int64
	for b := 1; ; b++ {
		n := int64(powCap(params["growth"], b, spec.T))
		t, d, err := batchClaim(alg, spec.Eps, spec.Delta, params, n)
		if err != nil {
			return p, err
		}
		if d > delivered {
			delivered, worst = d, n
		}
		target = math.Max(target, t)
		if n >= int64(spec.T) {
			break
		}
	}
	p.TargetEps, p.DeliveredEps = target, delivered
	p.Certified = delivered <= target*(1+1e-9)
	if alg.Name == "dist-rdp-se" {
		p.Mechanism = "skellam-secagg"
		p.Note = fmt.Sprintf("eps = %v is Theorem 2's Renyi parameter: (alpha, alpha eps^2/2 + min(...))-RDP per batch (AKL21, integer alpha); "+
			"target %.6g = that curve as (eps, delta)-DP at delta = %v; delivered %.6g = the same for the Skellam variance actually drawn "+
			"(shares rounded up to multiples of 2^-%d; worst batch n = %d); exact integer sampler", spec.Eps, target, spec.Delta, delivered, varBits, worst)
	} else {
		p.Mechanism = "dgauss-secagg"
		p.Note = fmt.Sprintf("eps = %v is the concentrated-DP parameter: rho = eps^2/2 per batch, the continuous Gaussian's rate; target %.6g = that as (eps, delta)-DP at delta = %v; "+
			"delivered %.6g = KLS21 Proposition 14 for the sum of n discrete Gaussian shares actually drawn (variance rounded up to multiples of 2^-%d; worst batch n = %d); exact integer sampler",
			spec.Eps, target, spec.Delta, delivered, varBits, worst)
	}
	if !p.Certified {
		p.Note = "not certified: delivered above target; " + p.Note
	}
	return p, nil
}

// batchClaim returns the target and delivered eps at delta of one batch of
// n users per arm of an RDP or zCDP entry.
func batchClaim(alg Algorithm, eps, delta float64, params map[string]float64, n int64) (target, delivered float64, err error) {
	kind := map[string]string{"dist-rdp-se": noiseSkellam, "dist-cdp-se": noiseDGauss}[alg.Name]
	proto, err := newSecagg(kind, eps, params["conf"], params["S"], false, nil, nil)
	if err != nil {
		return 0, 0, err
	}
	g, _ := proto.params(n)
	num, den := shareVariance(g, n, eps)
	if kind == noiseSkellam {
		nominal := float64(g) * float64(g) / (eps * eps)
		drawn := float64(n) * float64(num) / float64(den)
		return rdpToDP(skellamRDP(nominal, float64(g)), delta, true), rdpToDP(skellamRDP(drawn, float64(g)), delta, true), nil
	}
	return rdpToDP(func(a float64) float64 { return a * eps * eps / 2 }, delta, false),
		rdpToDP(dgaussSumRDP(float64(g), float64(num)/float64(den), n), delta, false), nil
}

// skellamRDP is the RDP curve of Skellam noise of variance mu on an integer
// query of l1 and l2 sensitivity d (Agarwal, Kairouz & Liu 2021, Theorem
// 3.5; privacy.md 3.5), for integer alpha:
// alpha d^2/(2 mu) + min(((2 alpha - 1) d^2 + 6 d)/(4 mu^2), 3 d/(2 mu)).
func skellamRDP(mu, d float64) func(alpha float64) float64 {
	return func(a float64) float64 {
		return a*d*d/(2*mu) + math.Min((float64((float64(2*a)-1)*d*d)+float64(6*d))/(4*mu*mu), 3*d/(2*mu))
	}
}

// dgaussSumRDP is the RDP curve of the sum of n independent discrete
// Gaussians of variance parameter s2 each on a scalar integer query of
// sensitivity d (Kairouz, Liu & Steinke 2021, Proposition 14 with
// dimension 1): with sigma^2 = n s2 and
// tau = 10 sum_{k=1}^{n-1} exp(-2 pi^2 s2 k/(k+1)),
// min((alpha/2)(d/sigma)^2 + tau, (alpha/2)(d/sigma + tau)^2).
func dgaussSumRDP(d, s2 float64, n int64) func(alpha float64) float64 {
	// The terms decrease with k: past 10^5 terms, or once a term is
	// negligible, the rest are bounded by the last one summed.
	var tau float64
	for k := int64(1); k < n; k++ {
		term := fmath.Exp(-2 * math.Pi * math.Pi * s2 * float64(k) / float64(k+1))
		tau += term
		if k == 100000 || term < 1e-300 {
			tau += float64(float64(n-1-k) * term)
			break
		}
	}
	tau *= 10
	r := d / math.Sqrt(float64(n)*s2)
	return func(a float64) float64 {
		return math.Min(float64(a/2*r*r)+tau, a/2*(r+tau)*(r+tau))
	}
}

// rdpToDP converts an RDP curve to eps at delta (Canonne, Kamath & Steinke
// 2020, Proposition 12; privacy.md 3.1):
// min over alpha of curve(alpha) + (ln(1/delta) + (alpha-1) ln(1-1/alpha) - ln alpha)/(alpha-1),
// over alpha in {2, ..., 256} when integer, else over a geometric grid of
// alpha in (1.01, 10^4] (any alpha gives a valid bound, so the grid only
// costs tightness).
func rdpToDP(curve func(float64) float64, delta float64, integer bool) float64 {
	best := math.Inf(1)
	eval := func(a float64) {
		e := curve(a) + (fmath.Log(1/delta)+float64((a-1)*fmath.Log1p(-1/a))-fmath.Log(a))/(a-1)
		best = math.Min(best, math.Max(e, 0))
	}
	if integer {
		for a := 2; a <= 256; a++ {
			eval(float64(a))
		}
		return best
	}
	for a := 1.01; a <= 1e4; a = 1 + float64((a-1)*1.002) {
		eval(a)
	}
	return best
}
