package bco

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/federate/accountant"
	"github.com/fedbandit/fedbandit/internal/fmath"
	"github.com/fedbandit/fedbandit/internal/mutation"
)

// Verdicts of an audit (AuditResult.Verdict).
const (
	VerdictPass         = "pass"
	VerdictViolation    = "VIOLATION"    // the release leaks more than the claim allows
	VerdictNoiseScale   = "NOISE SCALE"  // the noise drawn is not the noise recorded
	VerdictInconclusive = "inconclusive" // the claim is above what the trials can distinguish
)

// ErrNothingToCertify is the error of an audit of a run whose claim is
// not certified and states no finite bound: there is no claim to test.
var ErrNothingToCertify = errors.New("nothing to certify")

// AuditResult is the outcome of an empirical audit of a private spec's
// report: the worst-case neighbouring pair (a user whose loss is at the
// top of the class's range against one at the bottom, at the same points)
// pushed through the production randomiser many times.
type AuditResult struct {
	Trials   int     // releases per dataset
	Sens     float64 // the pair's distance: the report's sensitivity
	Sigma    float64 // the noise standard deviation the run records
	SigmaEmp float64 // pooled sample standard deviation of the releases
	MuEmp    float64 // |mean difference| / SigmaEmp: the pair's Gaussian DP mu
	MuSE     float64 // standard error of MuEmp

	// Claim is the privacy claim the run records (New). The audit tests
	// (ClaimEps, ClaimDelta): the claim's delivered (eps, delta) when it
	// is certified; otherwise the eps the accountant found for the noise
	// drawn, which the claim's note states, at the claim's delta.
	Claim      core.Privacy
	ClaimEps   float64
	ClaimDelta float64
	MuClaim    float64 // the largest Gaussian DP mu that is (ClaimEps, ClaimDelta)-DP
	// MuMax is AuditMuMax(Trials): the largest mu these trials can
	// distinguish; a MuClaim at or above it makes the audit inconclusive.
	MuMax float64
	// TrialsNeeded is AuditTrialsNeeded(MuClaim): the fewest trials per
	// dataset whose MuMax exceeds the claim (a float: it can exceed any
	// integer type).
	TrialsNeeded float64

	Violation bool   // MuEmp exceeds MuClaim by more than AuditZ standard errors
	NoiseOff  bool   // SigmaEmp differs from Sigma by more than AuditZ standard errors
	Verdict   string // one of the Verdict constants
}

// AuditZ is the audit's threshold in standard errors: a one-sided normal
// false-alarm rate of 1e-5 per check.
const AuditZ = 4.265

// auditAlpha is the one-sided normal tail at AuditZ (about 1e-5).
var auditAlpha = 0.5 * fmath.Erfc(AuditZ/math.Sqrt2)

// AuditMuMax is the largest Gaussian DP mu that trials releases per
// dataset can distinguish at AuditZ (accountant.DistinguishableMu, the
// rule the linear audit decides with too): above it the audit is
// inconclusive.
func AuditMuMax(trials int) float64 { return accountant.DistinguishableMu(trials, auditAlpha) }

// AuditTrialsNeeded is the fewest trials per dataset whose AuditMuMax
// exceeds mu (accountant.TrialsToDistinguish).
func AuditTrialsNeeded(mu float64) float64 { return accountant.TrialsToDistinguish(mu, auditAlpha) }

// MinAuditTrials and MaxAuditTrials bound Audit's trials per dataset
// (`run audit --trials` states the first).
const (
	MinAuditTrials = 100
	MaxAuditTrials = 100_000_000
)

// Audit releases the worst-case pair of a private spec's first user
// (silo 0, round 1) trials times each through the run's own Round (its
// one randomiser, sendReport, on the run's privacy stream) and compares the pair's
// empirical Gaussian DP mu with the claim the run records (auditedClaim).
// A halved noise scale doubles mu and is a violation; a recorded sigma
// that is not the one drawn is flagged as NoiseOff; a claim whose mu the
// trials cannot distinguish (AuditMuMax) is inconclusive, never a pass.
// A not-certified run that states no bound is refused with
// ErrNothingToCertify.
func Audit(s Spec, trials int, sigmaScale float64) (*AuditResult, error) {
	if trials < MinAuditTrials || trials > MaxAuditTrials {
		return nil, fmt.Errorf("trials = %d: need %d to %d", trials, MinAuditTrials, MaxAuditTrials)
	}
	if !(sigmaScale > 0 && sigmaScale <= 1000) {
		return nil, fmt.Errorf("sigma scale = %v: need a multiplier of the noise drawn in (0, 1000]", sigmaScale)
	}
	p, err := newProblem(s)
	if err != nil {
		return nil, err
	}
	if !p.alg.Private() {
		return nil, fmt.Errorf("algorithm %q is not private: nothing to audit", p.alg.Name)
	}
	r := &AuditResult{Trials: trials, Claim: p.claim, MuMax: AuditMuMax(trials)}
	if r.ClaimEps, r.ClaimDelta, err = auditedClaim(p.claim, p.bound); err != nil {
		return nil, err
	}
	if r.MuClaim, err = accountant.GDPMu(r.ClaimEps, r.ClaimDelta); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	C, G, _ := p.g.bounds()
	// One-point: loss C against -C at the same point; two-point: the
	// difference 2 G rho against -2 G rho at the same pair of points
	// (G rho at the first point, -G rho at the second, or the reverse).
	norm, hi := 1.0, C
	if p.alg.Points == 2 {
		norm = 2 * p.tu.delta
		hi = G * norm
	}
	r.Sens, r.Sigma = 2*hi, p.sigma*norm
	// The mutation control (sigmaScale != 1): the randomiser draws sigma
	// times sigmaScale while the run records the calibrated sigma.
	p.sigma *= sigmaScale
	// Every release is the report silo 0's user sends in the run's own
	// Round (sendReport, the one randomiser), her loss replaced by the
	// pair's: the report's scale, stream and noise are the run's.
	var sign float64
	p.hooks.loss = func(j int, _ []float64) float64 {
		if p.alg.Points == 2 {
			return sign * float64(hi/2) * float64(1-2*j) // f1 - f2 = sign hi
		}
		return sign * hi
	}
	var got float64
	p.hooks.sent = func(i int, report, _ float64) {
		if i == 0 {
			got = report
		}
	}
	release := func(s float64) float64 {
		sign = s
		p.Round(1)
		return got
	}
	var s0, s1, q0, q1 float64
	for range trials {
		a := release(1)
		b := release(-1)
		s0, q0 = s0+a, q0+float64(a*a)
		s1, q1 = s1+b, q1+float64(b*b)
	}
	n := float64(trials)
	m0, m1 := s0/n, s1/n
	r.SigmaEmp = math.Sqrt(((q0 - float64(n*m0*m0)) + (q1 - float64(n*m1*m1))) / (float64(2*n) - 2))
	if !(r.SigmaEmp > 0) {
		return nil, fmt.Errorf("audit: degenerate releases (sample sd %v): nothing was randomised", r.SigmaEmp)
	}
	r.MuEmp = math.Abs(m0-m1) / r.SigmaEmp
	if mutation.On("P5-20") { // the empirical mu divided by sqrt 2 again
		r.MuEmp /= math.Sqrt2
	}
	if math.IsNaN(r.MuEmp) {
		return nil, fmt.Errorf("audit: NaN statistics (mu %v, claim %v)", r.MuEmp, r.MuClaim)
	}
	// The difference of two means of n draws has sd sigma sqrt(2/n); the
	// sd estimate adds mu^2/4 to the relative variance (delta method).
	r.MuSE = math.Sqrt(2/n) * math.Sqrt(1+float64(r.MuEmp*r.MuEmp/4))
	r.Violation = r.MuEmp > r.MuClaim+float64(AuditZ*r.MuSE)
	// The sample sd of 2n normals has standard error about sigma / sqrt(4n).
	r.NoiseOff = math.Abs(r.SigmaEmp-r.Sigma) > AuditZ*r.Sigma/math.Sqrt(4*n)
	switch {
	case r.Violation:
		r.Verdict = VerdictViolation
	case r.NoiseOff:
		r.Verdict = VerdictNoiseScale
	case !(r.MuClaim < r.MuMax):
		r.Verdict = VerdictInconclusive
		r.TrialsNeeded = AuditTrialsNeeded(r.MuClaim)
	default:
		r.Verdict = VerdictPass
	}
	return r, nil
}

// auditedClaim is the (eps, delta) an audit tests, read from a run's
// recorded claim: its delivered (eps, delta) when certified; when not,
// bound (the eps the accountant found for the noise drawn, which the
// claim's note states) at the claim's delta, or ErrNothingToCertify
// when bound is not finite. The delta must be in (0, 1).
func auditedClaim(claim core.Privacy, bound float64) (eps, delta float64, err error) {
	delta = claim.DeliveredDelta
	if !(delta > 0 && delta < 1) {
		return 0, 0, fmt.Errorf("delta = %v: the claim's delta must be in (0, 1) (no Gaussian mechanism is (eps, 0)-DP, and delta >= 1 claims nothing)", delta)
	}
	eps = claim.DeliveredEps
	if !claim.Certified {
		eps = bound
	}
	if !(eps > 0) || math.IsInf(eps, 1) {
		if !claim.Certified {
			return 0, 0, fmt.Errorf("not certified: %s; the accountant states no finite eps for this noise, so there is %w (analytic = 1 calibrates a certified sigma)", NotCertifiedReason(claim), ErrNothingToCertify)
		}
		return 0, 0, fmt.Errorf("audit: the certified claim records eps %v: want a finite eps > 0", eps)
	}
	return eps, delta, nil
}

// NotCertifiedReason is a not-certified claim's reason: its note without
// the leading "NOT CERTIFIED: ".
func NotCertifiedReason(claim core.Privacy) string {
	return strings.TrimPrefix(claim.Note, "NOT CERTIFIED: ")
}

// Pass reports whether the audit found nothing and could have.
func (r *AuditResult) Pass() bool { return r.Verdict == VerdictPass }
