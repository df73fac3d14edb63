package accountant

import (
	"math"
	"testing"
)

// TestBinomialUnitMuEnvelope: above binomialExactMax noise bits the tight
// accountant uses the envelope (1 + C/s)/s; the exact mu_1 (enumerated, as
// below the limit) stays under it at and beyond the limit, and mu_1 s
// decreases towards 1 (the Gaussian limit) with N.
func TestBinomialUnitMuEnvelope(t *testing.T) {
	prev := math.Inf(1)
	for _, n := range []int64{1000, 30_000, 1_000_000, binomialExactMax, 20_000_000} {
		unitMuCache.Delete(n)
		exact, err := binomialUnitMuExact(n)
		if err != nil {
			t.Fatal(err)
		}
		s := math.Sqrt(float64(n) * VecSumP * (1 - VecSumP))
		env := (1 + binomialEnvelopeC/s) / s
		t.Logf("N %d: mu_1 s = %.6f, envelope %.6f", n, exact*s, env*s)
		if n >= binomialExactMax && exact > env {
			t.Errorf("N %d: exact mu_1 %v above the envelope %v", n, exact, env)
		}
		if !(exact*s < prev) || exact*s < 1 {
			t.Errorf("N %d: mu_1 s = %v, want decreasing and >= 1 (was %v)", n, exact*s, prev)
		}
		prev = exact * s
	}
}

// binomialPMF returns Binomial(n, VecSumP)'s probabilities on [lo, hi]
// (lo = the first index), from log space.
func binomialPMF(n int64) (lo int64, pmf []float64) {
	p := VecSumP
	nf := float64(n)
	s := math.Sqrt(nf * p * (1 - p))
	lo = int64(math.Max(0, math.Floor(nf*p-40*s)))
	hi := int64(math.Min(nf, math.Ceil(nf*p+50*s)))
	a, _ := math.Lgamma(nf + 1)
	for k := lo; k <= hi; k++ {
		b, _ := math.Lgamma(float64(k) + 1)
		c, _ := math.Lgamma(nf - float64(k) + 1)
		pmf = append(pmf, math.Exp(a-b-c+float64(k)*math.Log(p)+(nf-float64(k))*math.Log(1-p)))
	}
	return lo, pmf
}

// exactHockey is the exact hockey-stick divergence at eps between the
// outputs (k1 + s1, k2 + s2) of two independent binomial entries (n1 and
// n2 bits) for shifts (0, 0) against (d1, d2): sum over outcomes of
// (P(o) - e^eps Q(o))_+, by direct summation.
func exactHockey(n1, n2 int64, d1, d2 int, eps float64) float64 {
	lo1, p1 := binomialPMF(n1)
	lo2, p2 := binomialPMF(n2)
	at := func(p []float64, i int) float64 {
		if i < 0 || i >= len(p) {
			return 0
		}
		return p[i]
	}
	_, _ = lo1, lo2
	e := math.Exp(eps)
	var sum float64
	for i := -abs(d1); i < len(p1)+abs(d1); i++ {
		for j := -abs(d2); j < len(p2)+abs(d2); j++ {
			if v := at(p1, i)*at(p2, j) - e*at(p1, i-d1)*at(p2, j-d2); v > 0 {
				sum += v
			}
		}
	}
	return sum
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestVecSumGDPSound checks the tight accountant against exact privacy
// curves computed independently (direct summation over outcomes):
//   - two binomial entries of a small configuration (1000 and 3000 noise
//     bits, shifts 3 and -5, both directions): the exact delta(eps) is
//     below the Gaussian-DP profile of mu = sqrt((3 mu_1(1000))^2 +
//     (5 mu_1(3000))^2) at every eps tried;
//   - the worst pair of a small P_TVec configuration (d = 1, one silo,
//     B = 4, one level, both streams): the largest encoding distances a
//     pair of users and their coupled roundings reach (a grid), whose
//     exact eps at delta never exceeds the accountant's delivered eps at
//     the calibrated sigma.
func TestVecSumGDPSound(t *testing.T) {
	m1, err := binomialUnitMu(1000)
	if err != nil {
		t.Fatal(err)
	}
	m2, err := binomialUnitMu(3000)
	if err != nil {
		t.Fatal(err)
	}
	mu := math.Hypot(3*m1, 5*m2)
	for _, dir := range [][2]int{{3, -5}, {-3, 5}} {
		for _, eps := range []float64{0, 0.25, 0.5, 1, 2} {
			exact := exactHockey(1000, 3000, dir[0], dir[1], eps)
			bound := gdpDelta(mu, eps) + vecSumGDPSlack
			if exact > bound {
				t.Errorf("shifts %v, eps %v: exact delta %.6g above the Gaussian-DP bound %.6g (mu %.4g)", dir, eps, exact, bound, mu)
			}
			if eps == 0.5 {
				t.Logf("shifts %v, eps %v: exact delta %.6g, bound %.6g (mu %.4g)", dir, eps, exact, bound, mu)
			}
		}
	}

	// A small configuration: d = 1 (one Gram entry x^2, one bias entry
	// x y), M = 1, B = T = 4, delta 0.01, eps 1.
	r := Request{Model: ModelSDPVec, Preset: PresetExact, Eps: 1, Delta: 0.01, M: 1, B: 4, T: 4, D: 1, R: 0.5, Crs: 1}
	c, err := Calibrate(r)
	if err != nil {
		t.Fatal(err)
	}
	node := VecSumParams(c.Request, c.Sigma, 4)
	g := node.G
	// The worst pair on a grid of x, x' in [-1, 1] (y = y' = 1) and the
	// coupled roundings: the largest ||(Delta_gram, Delta_bias)||.
	var best [2]int
	var bestN float64
	for i := 0; i <= 400; i++ {
		x := -1 + float64(i)/200
		for j := 0; j <= 400; j++ {
			xp := -1 + (float64(j)+0.37)/200.5
			dg, db := g*(x*x-xp*xp), g*(x-xp)
			for _, a := range []float64{math.Floor(dg), math.Ceil(dg)} {
				for _, b := range []float64{math.Floor(db), math.Ceil(db)} {
					if n := math.Hypot(a, b); n > bestN {
						bestN, best = n, [2]int{int(a), int(b)}
					}
				}
			}
		}
	}
	N := int64(node.N) * node.Draws
	// The exact eps at delta, to 1e-4 (upper end of the bracket).
	lo, hi := 0.0, 4.0
	for hi-lo > 1e-4 {
		e := (lo + hi) / 2
		if exactHockey(N, N, best[0], best[1], e) <= r.Delta && exactHockey(N, N, -best[0], -best[1], e) <= r.Delta {
			hi = e
		} else {
			lo = e
		}
	}
	exactEps := hi
	t.Logf("d = 1, B = 4: sigma %.4f, N = %d bits, g %v; worst pair Delta %v (||.|| %.3f); exact eps %.4f, delivered %.4f (conservative bound %.4f)",
		c.Sigma, N, g, best, bestN, exactEps, c.DeliveredEps, mustVecSumBound(t, c))
	if exactEps > c.DeliveredEps {
		t.Errorf("the worst pair's exact eps %v exceeds the delivered %v", exactEps, c.DeliveredEps)
	}
}

func mustVecSumBound(t *testing.T, c *Calibration) float64 {
	e, err := VecSumBound(c.Request, c.Sigma, c.Kappa)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// conservativeVecSumSigma is the smallest sigma the conservative bound
// (VecSumBound) alone certifies: the exact preset's calibration before the
// tight accountant.
func conservativeVecSumSigma(t *testing.T, r Request, kappa int) float64 {
	ok := func(s float64) bool {
		e, err := VecSumBound(r, s, kappa)
		return err == nil && e <= r.Eps
	}
	hi := 1.0
	for !ok(hi) {
		hi *= 2
	}
	return bisectMin(0, hi, ok)
}

// TestVecSumTight is the tight accountant's benchmark (docs/privacy.md
// 3.6, T = 10,000, B = 25, d = 10, delta = 0.01): the exact preset's sigma
// against the conservative bound's, at least 1.25x smaller at eps 1,
// M = 100 (the privacy review's figures: 20.34 conservative, 13.94 enough
// for the exact curve of the worst pair); the delivered eps equals the
// target within 1e-3 (the noise bits per user are an integer) and never
// exceeds it.
func TestVecSumTight(t *testing.T) {
	for _, c := range []struct {
		m   int
		eps float64
	}{{10, 1}, {100, 0.2}, {100, 1}, {100, 5}, {1000, 1}} {
		r := Request{Model: ModelSDPVec, Preset: PresetExact, Eps: c.eps, Delta: 0.01, M: c.m, B: 25, T: 10000, D: 10, R: 0.5, Crs: 1}
		cal, err := Calibrate(r)
		if err != nil {
			t.Fatal(err)
		}
		cons := conservativeVecSumSigma(t, cal.Request, cal.Kappa)
		t.Logf("| %d | %g | %.2f | %.2f | %.2fx | %.5f |", c.m, c.eps, cons, cal.Sigma, cons/cal.Sigma, cal.DeliveredEps)
		if cal.DeliveredEps > c.eps || cal.DeliveredEps < c.eps*(1-1e-3) {
			t.Errorf("M %d eps %g: delivered %v, want within a relative 1e-3 below the target", c.m, c.eps, cal.DeliveredEps)
		}
		if c.m == 100 && c.eps == 1 && !(cons/cal.Sigma >= 1.25) {
			t.Errorf("M 100 eps 1: sigma %v against the conservative %v: want at least 1.25x smaller", cal.Sigma, cons)
		}
		// Both accountants are upper bounds on the exact curve of the
		// worst pair, which at these sizes lies within 3% of the tight one
		// (encoding distances reached to 0.5%, mu_1 within 1% of the
		// Gaussian's): the conservative bound cannot be below 0.97 times
		// the tight one (its S^2 / 4, mutation M6, is).
		tight, err := VecSumGDPEps(cal.Request, cal.Sigma, cal.Kappa)
		if err != nil {
			t.Fatal(err)
		}
		if e, err := VecSumBound(cal.Request, cal.Sigma, cal.Kappa); err != nil || e < 0.97*tight {
			t.Errorf("M %d eps %g: the conservative bound %v at sigma %v is below the tight accountant's %v", c.m, c.eps, e, cal.Sigma, tight)
		}
		if math.Abs(cons-20.34) > 0.01 && c.m == 100 && c.eps == 1 {
			t.Errorf("conservative sigma %v, the review's figure is 20.34", cons)
		}
	}
}
