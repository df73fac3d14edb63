package accountant

import (
	"fmt"
	"github.com/fedbandit/fedbandit/internal/mutation"
	"math"
	"math/bits"
	"strings"

	"github.com/fedbandit/fedbandit/internal/fmath"
)

// DefaultAlpha is the UCB confidence level used when Request.Alpha is 0.
const DefaultAlpha = 0.01

// NumBatches returns K = ceil(T/B), the number of synchronisations.
func NumBatches(t, b int) int { return (t + b - 1) / b }

// Kappa returns 1 + floor(log2 k): the number of tree nodes that contain a
// given batch (tight at batch 1), for k >= 1 batches. The logarithm is base
// 2; a natural logarithm under-counts the nodes (privacy.md 0.2).
func Kappa(k int) int {
	if k < 1 {
		return 0
	}
	if mutation.On("P5-13") && k&(k-1) == 0 && k > 1 { // one short when k is a power of 2
		return bits.Len(uint(k)) - 1
	}
	return bits.Len(uint(k))
}

// FieldError is an error of Request.Validate: the field at fault and
// why. It wraps ErrInvalid.
type FieldError struct {
	Field string // the Request field, e.g. "Eps"
	Msg   string // the message, which names the field, e.g. "eps = 0, want a finite value > 0"
}

func (e *FieldError) Error() string { return ErrInvalid.Error() + ": " + e.Msg }

// Unwrap returns ErrInvalid.
func (e *FieldError) Unwrap() error { return ErrInvalid }

// Validate checks a request and returns it with defaults filled in (empty
// Relation = AddRemove, Alpha 0 = DefaultAlpha). Every error is a
// *FieldError (wrapping ErrInvalid) naming the offending field. These are
// the rules of every parameter the accountant reads; federate.Spec's
// validation relies on them rather than repeating them.
func (r Request) Validate() (Request, error) {
	bad := func(field, format string, a ...any) (Request, error) {
		return r, &FieldError{Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	switch r.Preset {
	case PresetPaper, PresetReferenceCode, PresetExact:
	default:
		return bad("Preset", "preset %q, want %q, %q or %q", r.Preset, PresetPaper, PresetReferenceCode, PresetExact)
	}
	mech, err := lookupMechanism(r.Model)
	if err != nil {
		return bad("Model", "%s", strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": "))
	}
	if r.Relation == "" {
		r.Relation = AddRemove
	}
	if r.Relation != AddRemove && r.Relation != ReplaceOne {
		return bad("Relation", "relation %q, want %q or %q", r.Relation, AddRemove, ReplaceOne)
	}
	if mech.private() {
		if !finite(r.Eps) || r.Eps <= 0 {
			return bad("Eps", "eps = %v, want a finite value > 0", r.Eps)
		}
		if !finite(r.Delta) || r.Delta <= 0 || r.Delta >= 1 {
			return bad("Delta", "delta = %v, want 0 < delta < 1", r.Delta)
		}
	}
	switch r.Noise {
	case "", NoiseGaussian:
	case NoiseDiscrete:
		if why := discreteUnsupported(r.Model); why != "" {
			return bad("Noise", "noise %q with model %q: %s", r.Noise, r.Model, why)
		}
	default:
		return bad("Noise", "noise %q, want %q or %q", r.Noise, NoiseGaussian, NoiseDiscrete)
	}
	if r.M < 1 {
		return bad("M", "M = %d silos, want >= 1", r.M)
	}
	if r.B < 1 {
		return bad("B", "B = %d, want batch size >= 1", r.B)
	}
	if r.T < r.B {
		return bad("T", "T = %d < B = %d: no synchronisation would happen", r.T, r.B)
	}
	if r.D < 1 {
		return bad("D", "D = %d, want feature dimension >= 1", r.D)
	}
	if r.Alpha == 0 {
		r.Alpha = DefaultAlpha
	}
	if !finite(r.Alpha) || r.Alpha <= 0 || r.Alpha >= 1 {
		return bad("Alpha", "alpha = %v, want 0 < alpha < 1", r.Alpha)
	}
	if !finite(r.R) || r.R <= 0 {
		return bad("R", "R = %v, want a finite reward-noise scale > 0", r.R)
	}
	if !finite(r.Crs) || r.Crs <= 0 {
		return bad("Crs", "Crs = %v, want a finite multiplier > 0", r.Crs)
	}
	if !finite(r.S) || r.S < 0 {
		return bad("S", "S = %v, want a finite bound >= 0 (0 = preset default)", r.S)
	}
	return r, nil
}

// Calibrate validates req and returns the noise scale, regulariser,
// confidence width and delivered privacy of a run. Sigma is chosen by the
// preset; DeliveredEps is always computed by the exact accountant (see
// Delivered) at DeliveredDelta = req.Delta, so a preset whose formula is
// loose or wrong is reported as such rather than trusted.
func Calibrate(req Request) (*Calibration, error) {
	r, err := req.Validate()
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	c := &Calibration{Request: r}
	c.K = NumBatches(r.T, r.B)
	c.Kappa = Kappa(c.K)
	c.CodeN = Kappa(r.T / r.B)

	switch r.Preset {
	case PresetReferenceCode:
		err = c.referenceCode()
	case PresetPaper:
		err = c.paper()
	case PresetExact:
		err = c.exact()
	}
	if err != nil {
		return nil, fmt.Errorf("calibrate (%s, %s): %w", r.Preset, r.Model, err)
	}
	c.BetaT = c.Beta(r.T)
	if !finite(c.Sigma) || c.Sigma < 0 || !finite(c.Lambda) || c.Lambda <= 0 || !finite(c.BetaT) || c.BetaT <= 0 {
		return nil, fmt.Errorf("calibrate (%s, %s): %w: no usable calibration (sigma %v, Lambda %v, beta_T %v) for eps %v, delta %v",
			r.Preset, r.Model, ErrInvalid, c.Sigma, c.Lambda, c.BetaT, r.Eps, r.Delta)
	}

	if !mechanisms[r.Model].private() {
		c.DeliveredEps, c.DeliveredDelta = math.Inf(1), 0
		c.Note = join(c.Note, "no privacy: non-private FedLinUCB adds no noise")
		return c, nil
	}
	c.Mu, err = MuFor(r, c.Sigma, c.Kappa)
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	eps, amp, note, err := DeliveredFor(r, c.Sigma, c.Kappa)
	if err != nil {
		return nil, fmt.Errorf("calibrate: delivered guarantee: %w", err)
	}
	c.DeliveredEps, c.DeliveredDelta, c.Amplified = eps, r.Delta, amp
	c.Note = join(c.Note, note)
	if eps > r.Eps {
		// The bisection for eps stops within 1e-15 relative of the exact
		// value, on the safe side; a sigma that certifies the target
		// exactly (preset exact) may land a few ulps above it.
		ok, err := CertifiesFor(r, c.Sigma, c.Kappa)
		if err != nil {
			return nil, fmt.Errorf("calibrate: %w", err)
		}
		if ok {
			c.DeliveredEps = r.Eps
		}
	}
	if c.DeliveredEps > r.Eps {
		c.Note = join(c.Note, fmt.Sprintf("the %s sigma does NOT certify the target: delivered eps %.6g > requested %.6g at delta %g", r.Preset, eps, r.Eps, r.Delta))
	}
	if mutation.On("I42-lin-cal") { // the sigma lowered after its guarantee was computed
		c.Sigma *= 0.9
	}
	return c, nil
}

// join appends sentence b to a.
func join(a, b string) string {
	switch {
	case b == "":
		return a
	case a == "":
		return b
	}
	return a + "; " + b
}

// defaultS returns r.S, or def when r.S is 0.
func defaultS(s, def float64) float64 {
	if s == 0 {
		return def
	}
	return s
}

// ReferenceLDPSigma is the published code's silo-level LDP noise
// sigma = sqrt(N (ln(1/delta) + eps)) / eps (protocol.md section 3).
func ReferenceLDPSigma(eps, delta float64, n int) float64 {
	return math.Sqrt(float64(n)*(fmath.Log(1/delta)+eps)) / eps
}

// ReferenceSDPSigma is the published code's amplification noise
// sigma = sqrt(N ln(1/delta) ln(1 + N/(T delta)) ln(M N/delta)) / (eps sqrt(M)).
func ReferenceSDPSigma(eps, delta float64, n, m, t int) float64 {
	N, M, T := float64(n), float64(m), float64(t)
	return math.Sqrt(N*fmath.Log(1/delta)*fmath.Log1p(N/(T*delta))*fmath.Log(M*N/delta)) / (eps * math.Sqrt(M))
}

// ReferenceLambda is the published code's regulariser: sqrt(M) without
// noise, sqrt(M N) sigma (sqrt(N + ln(1/alpha)) + sqrt(d)) with noise sigma.
func ReferenceLambda(sigma float64, n, m, d int, alpha float64) float64 {
	if sigma == 0 {
		return math.Sqrt(float64(m))
	}
	N := float64(n)
	return math.Sqrt(float64(m)*N) * sigma * (math.Sqrt(N+fmath.Log(1/alpha)) + math.Sqrt(float64(d)))
}

// referenceWidth is the published code's beta_t:
// crs [ sqrt(Lambda) S + R sqrt(d ln(1 + t M L^2/(d Lambda)) + ln(1/alpha)) ], L = 1.
func referenceWidth(r Request, lambda float64) Width {
	return Width{Crs: r.Crs, R: r.R, S: defaultS(r.S, math.Sqrt(float64(r.D))),
		C0: fmath.Log(1 / r.Alpha), LamMin: lambda, LamMax: lambda, D: r.D, M: r.M}
}

// referenceCode fills sigma, Lambda and beta_t as the published code does,
// with its node count N = CodeN.
func (c *Calibration) referenceCode() error {
	r := c.Request
	c.Sigma = mechanisms[r.Model].referenceSigma(r, c.CodeN)
	c.Lambda = presetLambda(r, c.Sigma, mechanisms[r.Model].terms(r, c.CodeN))
	c.Width = referenceWidth(r, c.Lambda)
	if c.CodeN != c.Kappa {
		c.Note = fmt.Sprintf("reference code counts N = 1+floor(log2(T div B)) = %d tree levels but the last partial batch makes ceil(T/B) = %d batches and kappa = %d", c.CodeN, c.K, c.Kappa)
	}
	return nil
}

// PaperLDPSigma is Theorem 5.1's per-entry noise of silo-level LDP:
// sigma0 = sqrt(8 kappa (ln(2/delta) + eps)) / eps, with sensitivity L = 1
// per stream (add/remove one user).
func PaperLDPSigma(eps, delta float64, kappa int) float64 {
	return math.Sqrt(8*float64(kappa)*(fmath.Log(2/delta)+eps)) / eps
}

// PaperSDPSigma is Theorem 5.3's per-entry noise under shuffle DP by
// amplification, sigma0^2 = 2 kappa ln(1/delta) ln(kappa/(delta T))
// ln(M kappa/delta) / (eps^2 M), with the O(.) constant of the theorem taken
// as 1 (the paper gives no value). The formula is only meaningful in the
// theorem's regime delta <= kappa/(C2 T); outside it (kappa/(delta T) <= 1,
// or M kappa/delta <= 1) it has no positive value and an error is returned.
func PaperSDPSigma(eps, delta float64, kappa, m, t int) (float64, error) {
	K, M, T := float64(kappa), float64(m), float64(t)
	l2 := fmath.Log(K / (delta * T))
	l3 := fmath.Log(M * K / delta)
	if !(l2 > 0) || !(l3 > 0) {
		return 0, fmt.Errorf("%w: paper Theorem 5.3 sigma needs delta < kappa/T = %.3g (got delta = %g): outside the theorem's regime; use the %q or %q preset",
			ErrInvalid, K/T, delta, PresetReferenceCode, PresetExact)
	}
	return math.Sqrt(2*K*fmath.Log(1/delta)*l2*l3) / (eps * math.Sqrt(M)), nil
}

// PaperWidth returns the regulariser and confidence width of Lemmas C.2
// and C.4 for a per-entry, per-node noise sigma0 (0 without privacy), with
// every absolute constant of the lemmas set to 1:
//
//	sigma_tot = sigma0 sqrt(M kappa)             (Appendix E.1: M(1+log K) sigma0^2; 1 for one noise source, sources)
//	Sigma     = sigma_tot (sqrt(d) + sqrt(ln(K/alpha)))
//	lambda    = max(1, 2 Sigma), lambda_max = lambda + Sigma, lambda_min = lambda - Sigma
//	nu        = Sigma / sqrt(lambda_min)
//	beta_t    = R sqrt(2 ln(1/alpha) + d ln(1 + M t/(d lambda_min))) + S sqrt(lambda_max) + nu
//
// with S = ||theta*|| bound (1 in the paper's Assumption 4.1 unless
// Request.S says otherwise).
func PaperWidth(r Request, sigma0 float64, kappa, k int) (lambda float64, w Width) {
	sigTot := sigma0 * math.Sqrt(float64(sources(r))*float64(kappa))
	big := float64(sigTot * (math.Sqrt(float64(r.D)) + math.Sqrt(fmath.Log(float64(k)/r.Alpha))))
	lambda = math.Max(1, 2*big)
	lamMin := lambda - big
	w = Width{Crs: 1, R: r.R, S: defaultS(r.S, 1), C0: 2 * fmath.Log(1/r.Alpha),
		LamMin: lamMin, LamMax: lambda + big, Nu: big / math.Sqrt(lamMin), D: r.D, M: r.M}
	return lambda, w
}

// paper fills sigma from Theorem 5.1 or 5.3 and lambda, beta_t from
// Lemma C.4.
func (c *Calibration) paper() error {
	r := c.Request
	mech := mechanisms[r.Model]
	var err error
	if c.Sigma, c.Note, err = mech.paperSigma(r, c.Kappa); err != nil {
		return err
	}
	c.Lambda, c.Width = PaperWidth(r, c.Sigma, mech.terms(r, c.Kappa), c.K)
	_, ownRelation := mech.(interface{ relation() string })
	if r.Relation == ReplaceOne && mech.private() && !ownRelation {
		c.Note = join(c.Note, "the paper's sigma assumes add/remove sensitivity 1 per stream; under replace-one the delivered guarantee is weaker")
	}
	return nil
}

// ExactLDPSigma returns the smallest sigma (rounded to the safe side) for
// which the whole tree of both streams, viewed as one Gaussian-DP mechanism
// with mu = sqrt(kappa) sqrt(DeltaG^2+Deltab^2)/sigma, is (eps, delta)-DP
// under the relation. The postcondition is checked.
func ExactLDPSigma(eps, delta float64, kappa int, relation string) (float64, error) {
	if err := checkPos("eps", eps); err != nil {
		return 0, fmt.Errorf("exact LDP sigma: %w", err)
	}
	if err := checkDelta("delta", delta); err != nil {
		return 0, fmt.Errorf("exact LDP sigma: %w", err)
	}
	if kappa < 1 {
		return 0, fmt.Errorf("exact LDP sigma: %w: kappa = %d, want >= 1", ErrInvalid, kappa)
	}
	g, b, err := Sensitivities(relation)
	if err != nil {
		return 0, fmt.Errorf("exact LDP sigma: %w", err)
	}
	mu := gdpMu(eps, delta)
	if mu == 0 {
		return 0, fmt.Errorf("exact LDP sigma: %w: no noise level certifies eps = %v, delta = %v", ErrInvalid, eps, delta)
	}
	sigma := up(math.Sqrt(float64(kappa)) * math.Sqrt(float64(g*g)+float64(b*b)) / mu)
	// TreeMu rounds mu up, which can push the largest feasible mu just over
	// the edge: step sigma up by a few ulps until the postcondition holds.
	for i := 0; i < 64; i++ {
		m, _ := TreeMu(sigma, kappa, relation)
		if gdpDelta(m, eps) <= delta {
			return sigma, nil
		}
		sigma = up(sigma)
	}
	return 0, fmt.Errorf("exact LDP sigma: postcondition failed at sigma = %v (eps %v, delta %v, kappa %d)", sigma, eps, delta, kappa)
}

// exact fills the smallest certified sigma and evaluates the
// reference-code Lambda and beta_t at it (with N = Kappa).
func (c *Calibration) exact() error {
	r := c.Request
	var err error
	if r.Noise == NoiseDiscrete {
		c.Sigma, err = ExactDiscreteSigma(r, c.Kappa)
	} else {
		c.Sigma, c.Note, err = mechanisms[r.Model].exactSigma(r, c.Kappa)
	}
	if err != nil {
		return err
	}
	c.Lambda = presetLambda(r, c.Sigma, mechanisms[r.Model].terms(r, c.Kappa))
	c.Width = referenceWidth(r, c.Lambda)
	return nil
}

// presetLambda is the regulariser of the reference-code and exact presets:
// ReferenceLambda at sigma with `levels` noise terms per source and
// sources(r) sources, unless the model has its own formula (P_TVec's
// published one).
func presetLambda(r Request, sigma float64, levels int) float64 {
	if m, ok := mechanisms[r.Model].(interface {
		lambda(r Request, sigma float64, levels int) float64
	}); ok {
		return m.lambda(r, sigma, levels)
	}
	return ReferenceLambda(sigma, levels, sources(r), r.D, r.Alpha)
}

// sources is the number of independent noise draws in each entry of a
// published node: one per silo (M), or 1 for a model whose node is one
// noisy sum for all silos (the super agent's curator, P_TVec's shuffler).
func sources(r Request) int {
	if m, ok := mechanisms[r.Model].(interface{ sources(Request) int }); ok {
		return m.sources(r)
	}
	return r.M
}
