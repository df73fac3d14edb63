package accountant

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fedbandit/fedbandit/internal/fmath"
)

// The tight accountant of P_TVec (docs/privacy.md 3.6): the binomial
// mechanism's unit shift is, up to events of probability below 1e-300,
// mu_1-Gaussian-DP with mu_1 computed exactly from the binomial's CDF
// (binomialUnitMu); a shift by Delta_e is then |Delta_e| mu_1-GDP (group
// privacy of Gaussian DP: the tradeoff functions of a chain of unit shifts
// compose to G_{|Delta| mu_1}); independent entries and runs compose as
// sqrt of the sum of squares, adaptively (Dong, Roth & Su 2022). So the
// whole release of one user (kappa runs per stream) is mu-GDP with
//
//	mu^2 = sum over levels l and streams s of mu_1(N_l)^2 d2_{l,s}^2,
//
// d2 the encodings' L2 distance (encodingDistance, with the rounding
// coupling), and its eps at delta is GDPEps(mu, delta - vecSumGDPSlack).

// vecSumGDPSlack is the delta reserved for the events the unit-shift check
// does not evaluate (tail probabilities below binomialTailFloor, at most
// a few million per run and stream).
const vecSumGDPSlack = 1e-250

// binomialTailFloor is the smallest tail probability whose test
// binomialUnitMu checks (about the limit of float64's normal quantile in
// log space).
const binomialTailFloor = 1e-300

// binomialExactMax is the largest number of noise bits N for which
// binomialUnitMu enumerates the CDF; above it the envelope
// (1 + binomialEnvelopeC/s)/s, s = sqrt(N p (1-p)), is used, checked
// against the exact value by TestBinomialUnitMuEnvelope.
const (
	binomialExactMax  = 4_000_000
	binomialEnvelopeC = 8.0
)

var unitMuCache sync.Map // int64 N -> float64 mu_1

// binomialUnitMu returns mu_1(N): the smallest mu such that the tests of
// Binomial(N, p) against Binomial(N, p) + 1 (p = VecSumP) meet the
// Gaussian-DP tradeoff G_mu at every threshold whose error rates are both
// at least binomialTailFloor. The privacy loss of the unit shift is
// monotone in the outcome, so the optimal tests are thresholds and the
// condition at threshold k is w(k) - w(k-1) <= mu with
// w(k) = Phi^-1(F(k)), F the binomial CDF: mu_1 is the largest increment
// of the normal scores of the CDF. Computed in log space (both tails),
// rounded up by a relative 1e-9. Above binomialExactMax bits the
// envelope is returned.
func binomialUnitMu(N int64) (float64, error) {
	if N < 2 {
		return 0, fmt.Errorf("%w: binomial mechanism with %d noise bits", ErrInvalid, N)
	}
	p, q := VecSumP, 1-VecSumP
	s := math.Sqrt(float64(N) * p * q)
	if N > binomialExactMax {
		return (1 + binomialEnvelopeC/s) / s, nil
	}
	if v, ok := unitMuCache.Load(N); ok {
		return v.(float64), nil
	}
	mu, err := binomialUnitMuExact(N)
	if err == nil {
		unitMuCache.Store(N, mu)
	}
	return mu, err
}

// binomialUnitMuExact is binomialUnitMu by enumeration, at any N.
func binomialUnitMuExact(N int64) (float64, error) {
	p, q := VecSumP, 1-VecSumP
	s := math.Sqrt(float64(N) * p * q)
	nf := float64(N)
	mean := float64(nf * p)
	lo := int64(math.Max(0, math.Floor(mean-float64(45*s))))
	hi := int64(math.Min(nf, math.Ceil(mean+float64(60*s))))
	n := int(hi - lo + 1)
	logp := make([]float64, n)
	a, _ := math.Lgamma(nf + 1)
	b, _ := math.Lgamma(float64(lo) + 1)
	c, _ := math.Lgamma(nf - float64(lo) + 1)
	logp[0] = a - b - c + float64(float64(lo)*fmath.Log(p)) + float64((nf-float64(lo))*fmath.Log(q))
	for i := 1; i < n; i++ {
		k := float64(lo) + float64(i)
		logp[i] = logp[i-1] + fmath.Log((nf-k+1)*p/(k*q))
	}
	// left[i] = log F(lo+i), right[i] = log P(K >= lo+i).
	left, right := make([]float64, n), make([]float64, n)
	acc := math.Inf(-1)
	for i := range logp {
		acc = logAdd(acc, logp[i])
		left[i] = acc
	}
	acc = math.Inf(-1)
	for i := n - 1; i >= 0; i-- {
		acc = logAdd(acc, logp[i])
		right[i] = acc
	}
	floor := fmath.Log(binomialTailFloor)
	// w(i) = Phi^-1(F(lo+i)) from the smaller tail.
	w := func(i int) float64 {
		if left[i] < -math.Ln2 {
			return normalQuantileLog(left[i])
		}
		return -normalQuantileLog(right[i+1])
	}
	mu := 0.0
	prev := math.NaN()
	for i := 0; i+1 < n; i++ {
		if left[i] < floor || right[i+1] < floor {
			prev = math.NaN()
			continue
		}
		cur := w(i)
		if !math.IsNaN(prev) {
			mu = math.Max(mu, cur-prev)
		}
		prev = cur
	}
	if !(mu > 0) {
		return 0, fmt.Errorf("binomial unit mu: no threshold evaluated for N = %d", N)
	}
	return mu * (1 + 1e-9), nil
}

// logAdd returns log(e^a + e^b).
func logAdd(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	return a + fmath.Log1p(fmath.Exp(b-a))
}

// normalQuantileLog returns Phi^-1(e^l) for l <= log(1/2) (down to about
// -700): gonum's quantile (Wichura's AS 241, relative error about 1e-16)
// where e^l is a normal float64, else Newton's method on log Phi from the
// tail asymptote, to a relative 1e-13. The error of an increment
// w(k) - w(k-1) (at least 1e-3 at the sizes enumerated) is then below a
// relative 1e-10, within binomialUnitMu's rounding up.
func normalQuantileLog(l float64) float64 {
	if l > -700 {
		if z := distuv.UnitNormal.Quantile(fmath.Exp(l)); !math.IsInf(z, 0) {
			return z
		}
	}
	z := -math.Sqrt(-2 * l)
	for range 60 {
		lp := fmath.Log(0.5 * fmath.Erfc(-z/math.Sqrt2))
		dl := fmath.Exp(float64(-z*z/2) - float64(0.5*fmath.Log(2*math.Pi)) - lp) // d log Phi / dz
		step := (lp - l) / dl
		z -= step
		if math.Abs(step) < 1e-13*math.Max(1, math.Abs(z)) {
			break
		}
	}
	return z
}

// VecSumGDPMu returns the Gaussian-DP mu of one user's whole P_TVec release
// (kappa levels, both streams, one user replaced) with noise sigma
// (VecSumParams) for r's silos, batch and dimension: the tight accountant.
func VecSumGDPMu(r Request, sigma float64, kappa int) (float64, error) {
	if r.D < 1 || r.M < 1 || r.B < 1 || kappa < 1 {
		return 0, fmt.Errorf("%w: P_TVec needs d, M, B, kappa >= 1 (got %d, %d, %d, %d)", ErrInvalid, r.D, r.M, r.B, kappa)
	}
	var mu2 float64
	for l := 0; l < kappa; l++ {
		node := VecSumParams(r, sigma, (1<<l)*r.B*r.M)
		m1, err := binomialUnitMu(int64(node.N) * node.Draws)
		if err != nil {
			return 0, err
		}
		for _, st := range vecStreams(r.D) {
			_, d2 := encodingDistance(node.G, st.dv, st.entries)
			mu2 += float64(m1 * m1 * d2 * d2)
		}
	}
	return up(math.Sqrt(mu2)), nil
}

// VecSumGDPEps is the eps at r.Delta of VecSumGDPMu (delta less the slack
// of the unchecked tails).
func VecSumGDPEps(r Request, sigma float64, kappa int) (float64, error) {
	if err := checkDelta("delta", r.Delta); err != nil {
		return 0, err
	}
	mu, err := VecSumGDPMu(r, sigma, kappa)
	if err != nil {
		return 0, err
	}
	return GDPEps(mu, r.Delta-vecSumGDPSlack)
}
