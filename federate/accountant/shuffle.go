package accountant

import (
	"fmt"
	"math"

	"github.com/fedbandit/fedbandit/internal/fmath"
)

// checkShuffle validates the arguments shared by the amplification bounds.
func checkShuffle(eps0 float64, n int, delta float64) error {
	if err := checkPos("eps0", eps0); err != nil {
		return err
	}
	if n < 1 {
		return fmt.Errorf("%w: n = %d shuffled messages, want >= 1", ErrInvalid, n)
	}
	return checkDelta("delta", delta)
}

// FMTRegime returns the largest local epsilon eps0 for which the
// closed-form shuffle bounds apply with n messages at the given delta:
// ln(n/(16 ln(2/delta))) for Theorem 3.1 of Feldman, McMillan & Talwar
// (strict = false) and Apple's stricter ln(n/(16 ln(4/delta))) (strict =
// true). A value <= 0 means no eps0 qualifies: too few messages.
func FMTRegime(n int, delta float64, strict bool) float64 {
	l := fmath.Log(2 / delta)
	if strict {
		l = fmath.Log(4 / delta)
	}
	return fmath.Log(float64(n) / (16 * l))
}

// FMTShuffleEps returns the central epsilon of shuffling n messages, each
// from an eps0-DP local randomiser, by the closed form of Feldman, McMillan
// & Talwar (FOCS 2021) Theorem 3.1:
//
//	eps = ln(1 + (e^eps0-1)/(e^eps0+1) (8 sqrt(e^eps0 ln(4/delta))/sqrt(n) + 8 e^eps0/n)).
//
// Outside its regime eps0 <= ln(n/(16 ln(2/delta))) it returns eps0 (no
// amplification) and amplified = false. The result is rounded up and never
// exceeds eps0.
func FMTShuffleEps(eps0 float64, n int, delta float64) (eps float64, amplified bool, err error) {
	if err := checkShuffle(eps0, n, delta); err != nil {
		return 0, false, fmt.Errorf("FMT shuffle eps: %w", err)
	}
	if eps0 > FMTRegime(n, delta, false) {
		return eps0, false, nil
	}
	e0 := fmath.Exp(eps0)
	nf := float64(n)
	x := (e0 - 1) / (e0 + 1) * (8*math.Sqrt(e0*fmath.Log(4/delta))/math.Sqrt(nf) + 8*e0/nf)
	eps = up(fmath.Log1p(x))
	if eps >= eps0 {
		return eps0, false, nil
	}
	return eps, true, nil
}

// AppleShuffleEps is the more conservative closed form of Apple's
// reference implementation (ml-shuffling-amplification, closedformanalysis):
// a = 8 sqrt(e^eps0 ln(4/delta))/sqrt(n), c = 8 e^eps0/n, e = ln(1+a+c),
// eps = ln(1 + (1-e^-eps0)/(1+e^(-eps0-e)) (a+c)), valid for
// eps0 <= ln(n/(16 ln(4/delta))). Outside the regime it returns eps0 and
// amplified = false. Rounded up; never exceeds eps0.
func AppleShuffleEps(eps0 float64, n int, delta float64) (eps float64, amplified bool, err error) {
	if err := checkShuffle(eps0, n, delta); err != nil {
		return 0, false, fmt.Errorf("Apple shuffle eps: %w", err)
	}
	if eps0 > FMTRegime(n, delta, true) {
		return eps0, false, nil
	}
	nf := float64(n)
	a := 8 * math.Sqrt(fmath.Exp(eps0)*fmath.Log(4/delta)) / math.Sqrt(nf)
	c := 8 * fmath.Exp(eps0) / nf
	e := fmath.Log1p(a + c)
	eps = up(fmath.Log1p((-fmath.Expm1(-eps0)) / (1 + fmath.Exp(-eps0-e)) * (a + c)))
	if eps >= eps0 {
		return eps0, false, nil
	}
	return eps, true, nil
}

// ShuffleDeltaExtension returns the extra delta of shuffling n messages from
// (eps0, delta0)-DP local randomisers (FMT Theorem 3.8, as transcribed in
// privacy.md 3.7; the paper's Lemma F.2 has the same term): the shuffled
// protocol is (eps, delta + (e^eps+1)(1+e^-eps0/2) n delta0)-DP where eps is
// the pure-DP bound for eps0 at delta. Rounded up.
func ShuffleDeltaExtension(eps, eps0, delta0 float64, n int) (float64, error) {
	if err := checkNonNeg("eps", eps); err != nil {
		return 0, fmt.Errorf("shuffle delta extension: %w", err)
	}
	if err := checkPos("eps0", eps0); err != nil {
		return 0, fmt.Errorf("shuffle delta extension: %w", err)
	}
	if !finite(delta0) || delta0 < 0 || delta0 >= 1 {
		return 0, fmt.Errorf("shuffle delta extension: %w: delta0 = %v, want 0 <= delta0 < 1", ErrInvalid, delta0)
	}
	if n < 1 {
		return 0, fmt.Errorf("shuffle delta extension: %w: n = %d, want >= 1", ErrInvalid, n)
	}
	return up((fmath.Exp(eps) + 1) * (1 + fmath.Exp(-eps0)/2) * float64(n) * delta0), nil
}

// AdvancedComposition returns the (eps, delta) of the adaptive composition
// of k mechanisms that are each (epsS, deltaS)-DP (Dwork, Rothblum &
// Vadhan): eps = sqrt(2k ln(1/deltaP)) epsS + k epsS (e^epsS - 1),
// delta = k deltaS + deltaP. It returns the smaller of that eps and the basic
// composition k epsS (whose delta k deltaS is no larger). Rounded up.
func AdvancedComposition(epsS, deltaS float64, k int, deltaP float64) (eps, delta float64, err error) {
	if err := checkNonNeg("epsS", epsS); err != nil {
		return 0, 0, fmt.Errorf("advanced composition: %w", err)
	}
	if !finite(deltaS) || deltaS < 0 || deltaS >= 1 {
		return 0, 0, fmt.Errorf("advanced composition: %w: deltaS = %v, want 0 <= deltaS < 1", ErrInvalid, deltaS)
	}
	if k < 1 {
		return 0, 0, fmt.Errorf("advanced composition: %w: k = %d, want >= 1", ErrInvalid, k)
	}
	if err := checkDelta("deltaP", deltaP); err != nil {
		return 0, 0, fmt.Errorf("advanced composition: %w", err)
	}
	kf := float64(k)
	adv := float64(math.Sqrt(2*kf*fmath.Log(1/deltaP))*epsS) + float64(kf*epsS*fmath.Expm1(epsS))
	return up(math.Min(adv, kf*epsS)), up(float64(kf*deltaS) + deltaP), nil
}

// AmplifiedTree is the result of the shuffle-amplification accountant for
// protocol P with a shuffler (model SDP-amp).
type AmplifiedTree struct {
	// Eps is the central epsilon at the requested delta (+Inf when no
	// release was amplified: use the unamplified LDP guarantee then).
	Eps float64
	// Releases is the number of releases (of 2 kappa: kappa levels times
	// two streams) whose epsilon amplification improved.
	Releases int
	// Regime is the largest local eps0 the closed form accepts with M
	// messages at the per-release delta (<= 0: too few silos).
	Regime float64
	// Reason explains why some levels were not amplified ("" if all were).
	Reason string
}

// ShuffleTree accounts for protocol P behind a shuffler: at every release
// (tree node of one stream) the server sees the multiset of the M silos'
// noisy nodes. The accountant is sound for silos holding many users:
//
//  1. Hiding among clones needs every silo's randomiser to be (eps0,
//     delta0)-DP for ARBITRARY local data, not only for neighbours (the
//     point of the paper's Lemma F.2). A level-l node holds n = 2^l B users
//     per silo, so the clone sensitivity is 2n+1 (bias) and sqrt(2)(n+1)
//     (Gram) whatever the relation; eps0 is the exact Balle-Wang epsilon of
//     the Gaussian at that sensitivity and delta0.
//  2. Amplification over the M messages uses Apple's closed form with its
//     regime guard and the (eps0, delta0) extension; outside the regime the
//     release keeps its unamplified epsilon (exact Gaussian, neighbour
//     sensitivity of the relation).
//  3. The 2 kappa releases containing a user are composed by advanced
//     composition (or basic, when smaller).
//
// The delta budget is split as: delta/2 for composition slack, delta/(2k)
// per release (k = 2 kappa), half of it for the closed form and half for the
// delta0 extension term.
func ShuffleTree(sigma float64, kappa, m, b int, delta float64, relation string) (AmplifiedTree, error) {
	return shuffleTree(sigma, kappa, m, b, delta, relation, 0)
}

// ShuffleTreeDiscrete is ShuffleTree for the discrete Gaussian of scale
// sigma on the grid Grid(sigma) in dimension d (docs/privacy.md 2.4):
// every release's epsilon, neighbouring and clone alike, is the CKS
// conversion of its zCDP rho = Delta'^2/(2 sigma^2), with the sensitivities
// inflated by the rounding: Delta + c gamma sqrt(n) as DiscreteSensitivities
// for neighbours, and for clones (two arbitrary node sums of N = n+1 users
// each, every user's entries rounded by at most gamma/2) the clone
// sensitivity plus N gamma d (Gram) or N gamma sqrt(d) (bias).
func ShuffleTreeDiscrete(sigma float64, kappa, m, b, d int, delta float64, relation string) (AmplifiedTree, error) {
	if d < 1 {
		return AmplifiedTree{}, fmt.Errorf("shuffle tree: %w: d = %d, want >= 1", ErrInvalid, d)
	}
	return shuffleTree(sigma, kappa, m, b, delta, relation, d)
}

// shuffleTree is ShuffleTree, for the discrete Gaussian in dimension d
// when d > 0.
func shuffleTree(sigma float64, kappa, m, b int, delta float64, relation string, d int) (AmplifiedTree, error) {
	var res AmplifiedTree
	if err := checkPos("sigma", sigma); err != nil {
		return res, fmt.Errorf("shuffle tree: %w", err)
	}
	if kappa < 1 || m < 1 || b < 1 {
		return res, fmt.Errorf("shuffle tree: %w: kappa = %d, M = %d, B = %d, want all >= 1", ErrInvalid, kappa, m, b)
	}
	if kappa > 62 {
		return res, fmt.Errorf("shuffle tree: %w: kappa = %d is too large", ErrInvalid, kappa)
	}
	if err := checkDelta("delta", delta); err != nil {
		return res, fmt.Errorf("shuffle tree: %w", err)
	}
	g, bs, err := Sensitivities(relation)
	if err != nil {
		return res, fmt.Errorf("shuffle tree: %w", err)
	}
	// releaseEps is one release's epsilon at sensitivity sens and delta.
	releaseEps := func(sens, dl float64) float64 { return gdpEps(sens/sigma, dl) }
	var gamma float64
	if d > 0 {
		gamma = Grid(sigma)
		if g, bs, err = DiscreteSensitivities(relation, gamma, d); err != nil {
			return res, fmt.Errorf("shuffle tree: %w", err)
		}
		releaseEps = func(sens, dl float64) float64 {
			e, err := CKSEps(up(sens*sens/(2*sigma*sigma)), dl)
			if err != nil {
				return math.Inf(1)
			}
			return e
		}
	}
	k := 2 * kappa
	deltaS := delta / (2 * float64(k))
	deltaAmp := deltaS / 2
	res.Regime = FMTRegime(m, deltaAmp, true)
	res.Eps = math.Inf(1)
	if res.Regime <= 0 {
		res.Reason = fmt.Sprintf("too few silos for amplification: M = %d <= 16 ln(4/delta') = %.0f", m, 16*fmath.Log(4/deltaAmp))
		return res, nil
	}
	// Any eps actually used is <= Regime, so this delta0 keeps the extension
	// term (e^eps+1)(1+e^-eps0/2) M delta0 <= deltaS/2.
	delta0 := deltaS / 2 / ((fmath.Exp(res.Regime) + 1) * 1.5 * float64(m))
	epsMax := 0.0
	for l := 0; l < kappa; l++ {
		n := float64(float64(b) * math.Exp2(float64(l)))
		clones := [...]float64{float64(math.Sqrt2 * (n + 1)), float64(2*n) + 1}
		if d > 0 {
			clones[0] = up(clones[0] + float64((n+1)*gamma*float64(d)))
			clones[1] = up(clones[1] + float64((n+1)*gamma*math.Sqrt(float64(d))))
		}
		for _, s := range [...]struct{ adj, clone float64 }{{g, clones[0]}, {bs, clones[1]}} { // Gram, bias
			unamp := releaseEps(s.adj, deltaS)
			eps0 := releaseEps(s.clone, delta0)
			e := unamp
			if eps0 > 0 && eps0 <= res.Regime {
				amp, ok, err := AppleShuffleEps(eps0, m, deltaAmp)
				if err != nil {
					return res, fmt.Errorf("shuffle tree: level %d: %w", l, err)
				}
				if ok && amp < e {
					e = amp
					res.Releases++
				}
			} else if res.Reason == "" {
				res.Reason = fmt.Sprintf("sigma = %.4g is too small for a level-%d node of %.0f users per silo to be eps0 <= %.3g-DP for arbitrary local data (needed to hide among the other silos' messages); it is %.3g-DP", sigma, l, n, res.Regime, eps0)
			}
			epsMax = math.Max(epsMax, e)
		}
	}
	if res.Releases == 0 {
		return res, nil
	}
	eps, _, err := AdvancedComposition(epsMax, deltaS, k, delta/2)
	if err != nil {
		return res, fmt.Errorf("shuffle tree: %w", err)
	}
	res.Eps = eps
	return res, nil
}

// Delivered returns the epsilon, at the given delta, that noise sigma per
// entry and per tree node actually guarantees for one user under the
// neighbouring relation, for a tree of kappa levels, M silos and batch size
// B (the node populations):
//
//   - ModelLDP: exact, from the Gaussian-DP view of both streams of the
//     whole tree, mu = sqrt(kappa) sqrt(DeltaG^2+Deltab^2)/sigma.
//   - ModelSDPAmp: the smaller of the LDP guarantee (shuffling is
//     post-processing) and the amplification accountant ShuffleTree;
//     amplified reports whether amplification improved on LDP, and note
//     explains why not when it did not (typically too few silos).
//   - ModelNone: +Inf with the note "no privacy" (sigma is ignored).
func Delivered(model string, sigma float64, kappa, m, b int, delta float64, relation string) (eps float64, amplified bool, note string, err error) {
	return DeliveredFor(Request{Model: model, M: m, B: b, Delta: delta, Relation: relation}, sigma, kappa)
}

// DeliveredFor is Delivered for the run r describes (its Model, M, B, D,
// Delta, Relation, and for ModelSDPVec its Preset and Eps, which choose
// the protocol's parameters): the form every privacy model accepts.
func DeliveredFor(r Request, sigma float64, kappa int) (eps float64, amplified bool, note string, err error) {
	mech, err := lookupMechanism(r.Model)
	if err != nil {
		return 0, false, "", fmt.Errorf("delivered: %w", err)
	}
	if !mech.private() {
		return mech.delivered(r, sigma, kappa)
	}
	if err := checkDelta("delta", r.Delta); err != nil {
		return 0, false, "", fmt.Errorf("delivered: %w", err)
	}
	if r.Noise == NoiseDiscrete {
		eps, amplified, note, err = discreteDelivered(r, sigma, kappa)
	} else {
		eps, amplified, note, err = mech.delivered(r, sigma, kappa)
	}
	if err != nil {
		return 0, false, "", fmt.Errorf("delivered: %w", err)
	}
	return eps, amplified, note, nil
}

// Certifies reports whether noise sigma certifies (eps, delta) under the
// model and relation, with the same accountant as Delivered but checked at
// eps directly (delta(eps) <= delta), free of the bisection tolerance of an
// eps search.
func Certifies(model string, sigma float64, kappa, m, b int, eps, delta float64, relation string) (bool, error) {
	return CertifiesFor(Request{Model: model, M: m, B: b, Eps: eps, Delta: delta, Relation: relation}, sigma, kappa)
}

// CertifiesFor is Certifies for the run r describes, at (r.Eps, r.Delta).
func CertifiesFor(r Request, sigma float64, kappa int) (bool, error) {
	if mech, err := lookupMechanism(r.Model); err != nil {
		return false, fmt.Errorf("certifies: %w", err)
	} else if !mech.private() {
		return false, nil
	}
	if err := checkPos("eps", r.Eps); err != nil {
		return false, fmt.Errorf("certifies: %w", err)
	}
	if r.Noise == NoiseDiscrete {
		ok, err := discreteCertifies(r, sigma, kappa)
		if err != nil {
			return false, fmt.Errorf("certifies: %w", err)
		}
		return ok, nil
	}
	got, _, _, err := DeliveredFor(r, sigma, kappa)
	if err != nil {
		return false, fmt.Errorf("certifies: %w", err)
	}
	if got <= r.Eps {
		return true, nil
	}
	mu, err := MuOf(r.Model, sigma, kappa, r.Relation)
	if err != nil {
		return false, fmt.Errorf("certifies: %w", err)
	}
	if math.IsNaN(mu) { // no Gaussian-DP view (binomial noise)
		return false, nil
	}
	return gdpDelta(mu, r.Eps) <= r.Delta, nil
}

// ExactSDPSigma returns the smallest sigma (bisection, upper bracket) for
// which the SDP-amp accountant of Delivered certifies (eps, delta). When
// amplification cannot beat the exact LDP noise it returns ExactLDPSigma
// with amplified = false and a note saying why.
func ExactSDPSigma(eps, delta float64, kappa, m, b int, relation string) (sigma float64, amplified bool, note string, err error) {
	sl, err := ExactLDPSigma(eps, delta, kappa, relation)
	if err != nil {
		return 0, false, "", fmt.Errorf("exact SDP sigma: %w", err)
	}
	ok := func(s float64) bool {
		e, a, _, err := Delivered(ModelSDPAmp, s, kappa, m, b, delta, relation)
		return err == nil && a && e <= eps
	}
	if !ok(sl) {
		_, _, n, err := Delivered(ModelSDPAmp, sl, kappa, m, b, delta, relation)
		if err != nil {
			return 0, false, "", fmt.Errorf("exact SDP sigma: %w", err)
		}
		return sl, false, n, nil
	}
	lo := sl / 2
	for ok(lo) && lo > 1e-300 {
		lo /= 2
	}
	s := bisectMin(lo, sl, ok)
	if !ok(s) {
		return 0, false, "", fmt.Errorf("exact SDP sigma: postcondition failed at sigma = %v", s)
	}
	return s, true, "", nil
}
