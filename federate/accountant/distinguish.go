package accountant

import (
	"math"

	"github.com/fedbandit/fedbandit/internal/fmath"
)

// DistinguishableMu is the largest Gaussian-DP mu that an audit of n
// releases per dataset can show at false-alarm rate alpha (one side).
// Two releases at mu are told apart by a threshold half way between them
// with error Phi(-mu/2) on each side; when no release of either dataset
// crosses it, n trials bound that error by 1 - alpha^(1/n) (the exact
// one-sided bound at zero events) and so show at most mu = -2 Phi^-1(1 -
// alpha^(1/n)). Above it, the releases of a mechanism with no privacy at
// all (never overlapping) look to n trials as the claim's would: a
// measured mu there rests on the noise's Gaussian shape alone, not on
// anything the trials show, so an audit of such a claim is inconclusive,
// never a pass. The bco and linear audits both decide with it.
func DistinguishableMu(n int, alpha float64) float64 {
	p := -fmath.Expm1(fmath.Log(alpha) / float64(n))
	return 2 * math.Sqrt2 * math.Erfcinv(2*p)
}

// TrialsToDistinguish is the fewest releases per dataset whose
// DistinguishableMu at alpha exceeds mu: n > ln(alpha) / ln(1 -
// Phi(-mu/2)). +Inf where Phi(-mu/2) underflows (mu above about 75).
func TrialsToDistinguish(mu, alpha float64) float64 {
	p := 0.5 * fmath.Erfc(mu/2/math.Sqrt2)
	return math.Floor(fmath.Log(alpha)/fmath.Log1p(-p)) + 1
}
