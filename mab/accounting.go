package mab

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/fmath"
	"github.com/fedbandit/fedbandit/internal/mutation"
)

// Relation is the neighbouring relation of every claim of the family (a
// token of core.Relations); RelationNote says it in words.
const Relation = core.RelationReplaceOne

// RelationNote is the family's relation in words.
const RelationNote = "one user's reward replaced by any value in [0, 1]; each user contributes once, to one arm in one batch, " +
	"so the batches compose in parallel and the run's guarantee is its worst batch's"

// batchClaim is the guarantee of one batch of n users per arm: eps at the
// claim's delta (0 for the pure entries) of the noise actually drawn, and
// the target it is held to.
type batchClaim struct {
	n      int64
	target float64
	eps    float64
}

// ledger is what the accountant certifies for a run: the parameter its
// noise is drawn at (eps for every entry but a calibrated Renyi or
// concentrated one) and the claim of every batch the schedule can give
// within T rounds, for any number of active arms (batches compose in
// parallel: the run's guarantee is the worst batch's). The run and the
// audit read it; the schedule is the one the run plays.
type ledger struct {
	noiseEps float64
	paper    bool // eps is the paper's Renyi / zCDP parameter (paper_eps = 1)
	batches  []batchClaim
	// arms is the instance's K, over which (and every batch) the SecAgg
	// accuracy tau is union-bounded; maxBatch is the schedule's last
	// batch index within T (the one fits checks).
	arms     int64
	maxBatch int
}

// worst is the batch with the largest delivered eps.
func (l ledger) worst() batchClaim {
	w := l.batches[0]
	for _, b := range l.batches[1:] {
		if b.eps > w.eps {
			w = b
		}
	}
	return w
}

// at returns the claim of the batch of n users per arm.
func (l ledger) at(n int64) (batchClaim, bool) {
	for _, b := range l.batches {
		if b.n == n {
			return b, true
		}
	}
	return batchClaim{}, false
}

// batchSizes lists the distinct batch sizes of the schedule within T for
// 1..arms active arms, increasing; the batch of T itself is included
// (conservative: it can complete only when it is the first).
func batchSizes(alg Algorithm, eps float64, params map[string]float64, T, arms int) []int64 {
	seen := map[int64]bool{}
	var out []int64
	for b := 1; b <= 4096; b++ {
		done := true
		for k := 1; k <= max(arms, 1); k++ {
			n := int64(capSize(alg.Schedule(b, k, eps, params), T))
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
			done = done && n >= int64(T)
		}
		if done {
			break
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// newLedger runs the accountant over the run's batches. For a Renyi or
// concentrated entry without paper_eps = 1, eps is the target (eps,
// delta)-DP and the noise parameter is the largest (the least noise) for
// which every batch certifies it (calibrate).
func newLedger(alg Algorithm, spec Spec, params map[string]float64, arms int) (ledger, error) {
	sizes := batchSizes(alg, spec.Eps, params, spec.T, arms)
	l := ledger{noiseEps: spec.Eps, paper: params["paper_eps"] == 1, arms: int64(max(arms, 1)), maxBatch: len(sizes)}
	switch alg.Model {
	case "":
		return l, nil
	case "pure":
		epsDown := math.Floor(spec.Eps*(1<<epsBits)) / (1 << epsBits)
		for _, n := range sizes {
			l.batches = append(l.batches, batchClaim{n: n, target: spec.Eps, eps: epsDown})
		}
		return l, nil
	}
	if !l.paper {
		e, err := calibrate(alg, spec, params, sizes)
		if err != nil {
			return l, err
		}
		l.noiseEps = e
	}
	for _, n := range sizes {
		t, d, err := batchRDP(alg, l.noiseEps, spec.Delta, params, n)
		if err != nil {
			return l, err
		}
		if !l.paper {
			t = spec.Eps
		}
		if mutation.On("N9") && n == sizes[0] { // the first batch skipped
			continue
		}
		l.batches = append(l.batches, batchClaim{n: n, target: t, eps: d})
	}
	if mutation.On("I42-mab-cal") && !l.paper { // the noise parameter raised after the batches were charged
		l.noiseEps *= 1.25
	}
	return l, nil
}

var calibrated sync.Map // calibrate's results: the search is the same for every seed

// calibrate returns the largest noise parameter e (to 2^-40 relative) at
// which every batch of sizes delivers at most spec.Eps at spec.Delta: the
// smallest noise that certifies the target. The search is bounded: e in
// [2^-19, 2^20]; a target no e in range certifies is an error naming eps.
func calibrate(alg Algorithm, spec Spec, params map[string]float64, sizes []int64) (float64, error) {
	key := fmt.Sprint(alg.Name, spec.Eps, spec.Delta, sizes, params)
	if mutation.On("P5-11") { // the params left out of the cache key
		key = fmt.Sprint(alg.Name, spec.Eps, spec.Delta, sizes)
	}
	if v, ok := calibrated.Load(key); ok {
		return v.(float64), nil
	}
	ok := func(e float64) bool {
		for _, n := range sizes {
			_, d, err := batchRDP(alg, e, spec.Delta, params, n)
			if err != nil || !(d <= spec.Eps) {
				return false
			}
		}
		return true
	}
	lo, hi := math.Ldexp(1, -19), math.Max(spec.Eps, 1)
	if !ok(lo) {
		return 0, fmt.Errorf("eps = %v: no noise %s can draw certifies (eps, delta) = (%v, %v) at S = %v (the least noise tried, parameter 2^-19, delivers more); raise eps or delta, or set paper_eps = 1",
			spec.Eps, alg.Noise.Mechanism, spec.Eps, spec.Delta, params["S"])
	}
	for ok(hi) && hi < 1<<20 {
		lo, hi = hi, 2*hi
	}
	for range 60 {
		mid := lo + float64((hi-lo)/2)
		if mid <= lo || mid >= hi {
			break
		}
		if ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	calibrated.Store(key, lo)
	return lo, nil
}

// account returns the privacy claim of a run: what the noise it will draw
// guarantees over every batch the schedule can give within T rounds. Its
// sampler is a short name (core.Sampler*); how the sampler draws ends the
// note ("sampler: ...").
func account(alg Algorithm, spec Spec, params map[string]float64, l ledger) (p core.Privacy) {
	p = core.Privacy{Trust: alg.Trust, Relation: Relation, RelationNote: RelationNote, Mechanism: alg.Noise.Mechanism, Sampler: alg.Noise.Sampler}
	how := alg.Noise.SamplerNote
	defer func() {
		if p.Trust != core.TrustNone && how != "" {
			p.Note = strings.TrimPrefix(p.Note+"; sampler: "+how, "; ")
		}
	}()
	if alg.Trust == core.TrustNone {
		p.Mechanism = "none"
		return p
	}
	p.TargetEps = spec.Eps
	notCertified := func(why string) core.Privacy {
		p.Certified, p.DeliveredEps = false, math.Inf(1)
		p.Note = why // the record prefixes "not certified: " (runner.fillPrivacy)
		return p
	}
	ref := params["reference_code"] == 1
	switch {
	case ref && alg.Noise.Kind == NoiseLaplaceGrid:
		p.Mechanism, p.Sampler, how = "laplace-shared-reference-code", core.SamplerLaplace, "floating point: math/rand's ziggurat ExpFloat64 with a random sign"
		return notCertified("reference_code = 1 adds one floating-point Laplace(1/eps) draw to every arm's sum of a batch, as the authors' script does; " +
			"a comparison of arms is then noiseless, and the released vector of sums is not eps-DP")
	case ref && alg.Noise.Kind == NoisePolya:
		p.Mechanism, p.Sampler, how = "polya-secagg-reference-code", core.SamplerPolya, "Polya shares: Poisson of a floating-point Gamma of the authors' script's scale"
		return notCertified("reference_code = 1 draws the Polya shares with the authors' script's Gamma scale (1-p)/p, " +
			"so the total noise is DLap(1-p) instead of DLap(p) with p = exp(-eps/g): orders of magnitude too small")
	}
	w := l.worst()
	if alg.Model == "pure" {
		epsDown := w.eps
		p.DeliveredEps, p.Certified = epsDown, true
		if alg.Noise.Kind == NoisePolya && params["per_user"] == 1 {
			// The floating-point policy of every family (docs/privacy.md):
			// certified for the mechanism in exact arithmetic, the note
			// saying what the sampler is.
			p.Sampler, how = core.SamplerPolya, "Polya shares: Poisson of a floating-point Gamma (Marsaglia & Tsang)"
			p.Note = fmt.Sprintf("discrete Laplace with parameter exp(-eps'/g) on an integer sum of sensitivity g, eps' = eps rounded down to a multiple of 2^-%d = %v, "+
				"as the sum of every user's Polya share; covers the mechanism in exact arithmetic: each share is drawn through a floating-point Gamma variate, "+
				"which is not a secure sampler (per_user = 0 draws the total exactly)", epsBits, epsDown) + decodeNote(l, params)
			return p
		}
		if alg.Noise.Kind == NoiseLaplaceGrid {
			p.Note = fmt.Sprintf("Laplace(1/eps') on a grid: every reward encoded as a multiple of 2^-%d by unbiased randomised rounding, each arm's integer batch sum "+
				"(sensitivity exactly 2^%d) given discrete Laplace noise with parameter exp(-eps'/2^%d), eps' = eps rounded down to a multiple of 2^-%d = %v; "+
				"exact integer sampler (CKS20), no floating point in the noise", dpseGridBits, dpseGridBits, dpseGridBits, epsBits, epsDown)
			return p
		}
		p.Note = fmt.Sprintf("discrete Laplace with parameter exp(-eps'/g) on an integer sum of sensitivity g, eps' = eps rounded down to a multiple of 2^-%d = %v; exact integer sampler", epsBits, epsDown)
		if alg.Noise.Placement == PlaceLocal {
			p.Note += "; every user's message is eps'-DP on its own (local model)"
		}
		if alg.Noise.Kind == NoisePolya {
			p.Note += "; the batch's total noise drawn once from its exact law (the sum of the Polya shares)"
		}
		p.Note += decodeNote(l, params)
		return p
	}
	// Renyi and concentrated DP: stated as (eps, delta)-DP at spec.Delta.
	p.TargetDelta, p.DeliveredDelta = spec.Delta, spec.Delta
	if mutation.On("N12") {
		p.DeliveredDelta = 0
	}
	target := w.target
	for _, b := range l.batches {
		target = math.Max(target, b.target)
	}
	p.TargetEps, p.DeliveredEps = target, w.eps
	p.Certified = core.WithinTarget(w.eps, p.DeliveredDelta, target, p.TargetDelta)
	param := fmt.Sprintf("eps = %v is the target (eps, delta)-DP at delta = %v; the noise is calibrated to it: the largest %s parameter eps_R = %.10g (the least noise) at which every batch certifies it",
		spec.Eps, spec.Delta, map[string]string{"rdp": "Renyi", "zcdp": "concentrated-DP"}[alg.Model], l.noiseEps)
	if l.paper {
		param = fmt.Sprintf("paper_eps = 1: eps = %v is the paper's %s parameter (the preset of the paper's figures); target %.6g = its nominal curve as (eps, delta)-DP at delta = %v",
			spec.Eps, map[string]string{"rdp": "Renyi (Theorem 2)", "zcdp": "concentrated-DP (rho = eps^2/2, Appendix E)"}[alg.Model], target, spec.Delta)
	}
	if alg.Model == "rdp" {
		p.Note = fmt.Sprintf("%s; delivered %.6g = AKL21 Theorem 3.5's curve for the Skellam variance actually drawn as (eps, delta)-DP (CKS20 conversion, integer alpha; "+
			"shares rounded up to multiples of 2^-%d; worst batch n = %d); exact integer sampler", param, w.eps, varBits, w.n)
	} else {
		p.Note = fmt.Sprintf("%s; delivered %.6g = KLS21 Proposition 14 for the sum of n discrete Gaussian shares actually drawn (variance rounded up to multiples of 2^-%d; worst batch n = %d); exact integer sampler",
			param, w.eps, varBits, w.n)
	}
	p.Note += decodeNote(l, params)
	if !p.Certified {
		return notCertified(fmt.Sprintf("the bound the noise gives, (%.6g, %v), is above the target; %s", w.eps, spec.Delta, p.Note))
	}
	return p
}

// decodeNote states a SecAgg run's decode-error bound: tau is
// union-bounded over its K arms and every batch.
func decodeNote(l ledger, params map[string]float64) string {
	return fmt.Sprintf("; SecAgg accuracy tau at conf/(K b^2 pi^2/6) in batch b, K = %d: P(any decode error in the run) <= conf = %v", l.arms, params["conf"])
}

// batchRDP returns the nominal (Theorem 2's, or rho = e^2/2) and the
// delivered eps at delta of one batch of n users per arm of a Renyi or
// concentrated entry whose noise is drawn at parameter e.
func batchRDP(alg Algorithm, e, delta float64, params map[string]float64, n int64) (nominal, delivered float64, err error) {
	kind, err := secaggKind(alg.Noise)
	if err != nil {
		return 0, 0, err
	}
	proto, err := newSecagg(kind, e, params["conf"], params["S"], false, nil, nil)
	if err != nil {
		return 0, 0, err
	}
	if err := proto.fits(n, 1); err != nil {
		return 0, 0, err
	}
	g, _ := proto.params(n, 1)
	num, den := shareVariance(g, n, e)
	if kind == noiseSkellam {
		nom := float64(g) * float64(g) / (e * e)
		drawn := float64(n) * float64(num) / float64(den)
		return rdpToDP(skellamRDP(nom, float64(g)), delta, true), rdpToDP(skellamRDP(drawn, float64(g)), delta, true), nil
	}
	return rdpToDP(func(a float64) float64 { return a * e * e / 2 }, delta, false),
		rdpToDP(dgaussSumRDP(float64(g), float64(num)/float64(den), n), delta, false), nil
}

// skellamRDP is the RDP curve of Skellam noise of variance mu on an integer
// query of l1 and l2 sensitivity d (Agarwal, Kairouz & Liu 2021, Theorem
// 3.5; privacy.md 3.5), for integer alpha:
// alpha d^2/(2 mu) + min(((2 alpha - 1) d^2 + 6 d)/(4 mu^2), 3 d/(2 mu)).
func skellamRDP(mu, d float64) func(alpha float64) float64 {
	return func(a float64) float64 {
		if mutation.On("N14") { // without its min(...) term
			return a * d * d / (2 * mu)
		}
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
			if !mutation.On("P5-03") { // the terms beyond 10^5 not bounded
				tau += float64(float64(n-1-k) * term)
			}
			break
		}
	}
	tau *= 10
	if mutation.On("N11") { // KLS's slack dropped
		tau = 0
	}
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
		if mutation.On("N10") { // the classic conversion (conservative)
			e = curve(a) + fmath.Log(1/delta)/(a-1)
		}
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

// policyClaim is the claim of a Policy entry's run: the family's
// non-private claim, or, for a private entry, what its policy states its
// noise delivers (a PrivatePolicy), through the one certification rule
// (core.Privacy.Certify), its sampler named as every claim's is.
func policyClaim(alg Algorithm, spec Spec, params map[string]float64, pol Policy) (core.Privacy, error) {
	if alg.Trust == core.TrustNone {
		return account(alg, spec, params, ledger{}), nil
	}
	pp, ok := pol.(PrivatePolicy)
	if !ok {
		return core.Privacy{}, fmt.Errorf("algorithm = %q: a private policy entry whose policy states no claim (not a mab.PrivatePolicy): no accountant covers it", alg.Name)
	}
	p := pp.Claim(core.Privacy{Trust: alg.Trust, Relation: Relation,
		Mechanism: alg.Noise.Mechanism, Sampler: alg.Noise.Sampler, TargetEps: spec.Eps}).Certify()
	if how := alg.Noise.SamplerNote; how != "" {
		p.Note = strings.TrimPrefix(p.Note+"; sampler: "+how, "; ")
	}
	return p, nil
}
