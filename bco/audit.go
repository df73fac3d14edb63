package bco

import (
	"fmt"
	"math"

	"github.com/fedbandit/fedbandit/federate/accountant"
)

// AuditResult is the outcome of an empirical audit of a private spec's
// report: the worst-case neighbouring pair (a user whose loss is at the
// top of the class's range against one at the bottom, at the same points)
// pushed through the production randomiser many times.
type AuditResult struct {
	Trials    int     // releases per dataset
	Sens      float64 // the pair's distance: the report's sensitivity
	Sigma     float64 // the noise standard deviation the run records
	SigmaEmp  float64 // pooled sample standard deviation of the releases
	MuEmp     float64 // |mean difference| / SigmaEmp: the pair's Gaussian DP mu
	MuSE      float64 // standard error of MuEmp
	MuClaim   float64 // the mu that the target (eps, delta) allows (Gaussian DP)
	Violation bool    // MuEmp exceeds MuClaim by more than Z standard errors
	NoiseOff  bool    // SigmaEmp differs from Sigma by more than Z standard errors
}

// AuditZ is the audit's threshold in standard errors: a one-sided normal
// false-alarm rate of 1e-5 per check.
const AuditZ = 4.265

// Audit releases the worst-case pair of a private spec's first user
// (silo 0, round 1) trials times each through the production randomiser
// (problem.noisy, the function Round uses) and compares the pair's
// empirical Gaussian DP mu with what the target (eps, delta) allows. A
// halved noise scale doubles mu and is a violation; a recorded sigma that
// is not the one drawn is flagged as NoiseOff.
func Audit(s Spec, trials int, sigmaScale float64) (*AuditResult, error) {
	if trials < 100 || trials > 100_000_000 {
		return nil, fmt.Errorf("trials = %d: need 100 to 1e8", trials)
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
	C, G, _ := p.g.bounds()
	// One-point: loss C against -C at the same point; two-point: the
	// difference 2 G rho against -2 G rho at the same pair of points.
	norm, hi := 1.0, C
	if p.alg.Points == 2 {
		norm = 2 * p.tu.delta
		hi = G * norm
	}
	si := &p.silos[0]
	recorded := p.sigma * norm
	// The mutation control (sigmaScale != 1): the randomiser draws sigma
	// times sigmaScale while the run records the calibrated sigma.
	p.sigma *= sigmaScale
	var s0, s1, q0, q1 float64
	for range trials {
		a := p.noisy(si, hi, norm)
		b := p.noisy(si, -hi, norm)
		s0, q0 = s0+a, q0+float64(a*a)
		s1, q1 = s1+b, q1+float64(b*b)
	}
	n := float64(trials)
	m0, m1 := s0/n, s1/n
	v := ((q0 - float64(n*m0*m0)) + (q1 - float64(n*m1*m1))) / (float64(2*n) - 2)
	r := &AuditResult{Trials: trials, Sens: 2 * hi, Sigma: recorded, SigmaEmp: math.Sqrt(v)}
	if !(r.SigmaEmp > 0) {
		return nil, fmt.Errorf("audit: degenerate releases (sample sd %v): nothing was randomised", r.SigmaEmp)
	}
	r.MuEmp = math.Abs(m0-m1) / r.SigmaEmp
	// The difference of two means of n draws has sd sigma sqrt(2/n); the
	// sd estimate's error is second order for mu of order 1.
	r.MuSE = math.Sqrt(2/n) * math.Sqrt(1+float64(r.MuEmp*r.MuEmp/4))
	mu, err := accountant.GDPMu(s.Eps, s.Delta)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	r.MuClaim = mu
	r.Violation = r.MuEmp > r.MuClaim+float64(AuditZ*r.MuSE)
	// The sample sd of 2n normals has standard error about sigma / sqrt(4n).
	r.NoiseOff = math.Abs(r.SigmaEmp-r.Sigma) > AuditZ*r.Sigma/math.Sqrt(4*n)
	if math.IsNaN(r.MuEmp) || math.IsNaN(r.MuClaim) {
		return nil, fmt.Errorf("audit: NaN statistics (mu %v, claim %v)", r.MuEmp, r.MuClaim)
	}
	return r, nil
}

// Pass reports whether the audit found nothing.
func (r *AuditResult) Pass() bool { return !r.Violation && !r.NoiseOff }
