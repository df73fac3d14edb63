package accountant

import (
	"fmt"
	"math"

	"github.com/fedbandit/fedbandit/internal/fmath"
	"github.com/fedbandit/fedbandit/internal/mutation"
)

// ModelSDPVec is shuffle DP through the vector-sum protocol P_TVec (paper
// Algorithm 5, Theorem 5.5): the tree of protocol P whose every node is
// the noisy sum of its n single data points computed by P_Vec (Cheu,
// Joseph, Mao & Peng 2021) over all silos' users.
const ModelSDPVec = "sdp-vec"

// VecSumP is the probability of one noise bit of P_Vec (p = 1/4 in Cheu et
// al. and in the published code).
const VecSumP = 0.25

// VecSumNode holds P_Vec's parameters for one tree node of N single data
// points (users) with entries in [-1, 1] (L = 1).
type VecSumNode struct {
	N int // data points in the node
	// G is the fixed-point scale g = max(2 sqrt(N), d, 4): each user
	// encodes w = v + 1 in [0, 2] as floor(w G) + Bernoulli(frac(w G)).
	G float64
	// B is the number of noise bits per user the analyser subtracts,
	// (G/N)(sum - p B N) - N; Draws the number each user actually draws
	// (Binomial(Draws, p)). They are equal except under reference-code,
	// whose published code draws floor(B) bits but decodes with the real
	// B (a bias of -p (B - floor B) N / G per entry).
	B     float64
	Draws int64
}

// VecSumParams returns P_Vec's parameters for a node of n data points of
// a run r calibrated at sigma (ModelSDPVec's Calibration.Sigma, the
// target standard deviation of the decoded noise per entry and node):
//
//   - reference-code: the published code's b = g^2 ln^2(d^2/delta) /
//     (eps^2 n) (its scale = 1), drawn as floor(b) bits;
//   - exact and paper: the smallest integer b with n b p (1-p) / g^2 >= sigma^2.
func VecSumParams(r Request, sigma float64, n int) VecSumNode {
	nf := float64(n)
	g := math.Max(math.Max(2*math.Sqrt(nf), float64(r.D)), 4)
	if r.Preset == PresetReferenceCode {
		l := fmath.Log(float64(r.D) * float64(r.D) / r.Delta)
		b := g * g * l * l / (r.Eps * r.Eps * nf)
		return VecSumNode{N: n, G: g, B: b, Draws: int64(math.Floor(b))}
	}
	b := math.Ceil(sigma * sigma * g * g / (nf * VecSumP * (1 - VecSumP)))
	return VecSumNode{N: n, G: g, B: b, Draws: int64(b)}
}

// ReferenceVecSumSigma is the decoded noise standard deviation per entry
// of the published code's P_Vec (real b): sqrt(p (1-p)) ln(d^2/delta)/eps.
func ReferenceVecSumSigma(eps, delta float64, d int) float64 {
	return math.Sqrt(VecSumP*(1-VecSumP)) * fmath.Log(float64(d)*float64(d)/delta) / eps
}

// ReferenceVecSumLambda is the published code's regulariser for P_TVec:
// sqrt(N) sigma' (sqrt(N + ln(1/alpha)) + sqrt(d)) with
// sigma' = sqrt(N ln(1/delta)) ln(N d^2/delta) / eps (no sqrt(M): one noise
// draw per entry for all silos).
func ReferenceVecSumLambda(eps, delta float64, n, d int, alpha float64) float64 {
	N := float64(n)
	s := math.Sqrt(N*fmath.Log(1/delta)) * fmath.Log(N*float64(d)*float64(d)/delta) / eps
	return ReferenceLambda(s, n, 1, d, alpha)
}

// shuffleVec is ModelSDPVec. Its guarantee is computed by VecSumBound
// (docs/privacy.md 3.6): a bound on the privacy loss of the binomial
// noise of every P_Vec run that contains one user, under replacement of
// her data (the shuffle model's neighbouring relation, whatever the
// run's relation says).
type shuffleVec struct{}

func (shuffleVec) private() bool { return true }

// terms: one noise draw per entry and node for all silos together.
func (shuffleVec) terms(_ Request, levels int) int { return levels }

func (shuffleVec) referenceSigma(r Request, _ int) float64 {
	return ReferenceVecSumSigma(r.Eps, r.Delta, r.D)
}

// paperSigma is the paper's construction (Theorem 5.5's proof): each
// stream gets (eps/2, delta/2), split over its kappa P_Vec runs by
// advanced composition as eps0 = (eps/2) / (2 sqrt(2 kappa ln(4/delta))),
// delta0 = delta/(4 kappa); each run must then be (eps0, delta0)-DP. The
// paper takes P_Vec's parameters for that from Cheu et al.'s Lemma 3.1,
// whose constant we have not verified, so each run is calibrated by this
// package's bound for one run instead (the smallest sigma for which every
// level's run meets (eps0, delta0)).
func (shuffleVec) paperSigma(r Request, kappa int) (float64, string, error) {
	k := float64(kappa)
	eps0 := r.Eps / 2 / (2 * math.Sqrt(2*k*fmath.Log(4/r.Delta)))
	delta0 := r.Delta / (4 * k)
	ok := func(sigma float64) bool {
		return vecSumRuns(r, sigma, kappa, func(entries float64) float64 { return delta0 / 1000 / entries },
			func(a, s2 float64) bool {
				e, err := hockeyEps(a, s2, delta0-delta0/1000)
				return err == nil && e <= eps0
			})
	}
	hi := 1.0
	for !ok(hi) {
		if hi *= 2; hi > 1e12 {
			return 0, "", fmt.Errorf("%w: no P_Vec noise meets the paper's per-run budget (eps0 %v, delta0 %v)", ErrInvalid, eps0, delta0)
		}
	}
	s := bisectMin(0, hi, ok)
	return s, fmt.Sprintf("paper Theorem 5.5's budget split (each P_Vec run (%.4g, %.3g)-DP by advanced composition), each run calibrated by this package's binomial bound instead of Cheu et al.'s unverified constant", eps0, delta0), nil
}

// vecStreams are P_TVec's two streams for dimension d: their entries and
// the L2 distance of one user's summand between two datasets (sqrt 2 for
// the packed Gram x x^T, 2 for the bias x y).
func vecStreams(d int) []struct{ entries, dv float64 } {
	df := float64(d)
	return []struct{ entries, dv float64 }{{float64(df * (df + 1) / 2), math.Sqrt2}, {df, 2}}
}

func (shuffleVec) exactSigma(r Request, kappa int) (float64, string, error) {
	ok := func(s float64) bool {
		e, _, _, err := shuffleVec{}.delivered(r, s, kappa)
		return err == nil && e <= r.Eps
	}
	// Bracket the answer near the Gaussian limit of the tight accountant
	// (mu = sqrt(sum (d2/g)^2)/sigma), so that the bisection enumerates
	// few binomial CDFs; any bracket with ok(lo) false and ok(hi) true
	// gives the same answer.
	lo, hi := 0.0, 1.0
	if m, err := GDPMu(r.Eps, r.Delta); err == nil && m > 0 {
		var q float64
		for l := 0; l < kappa; l++ {
			node := VecSumParams(r, 1, (1<<l)*r.B*r.M)
			for _, st := range vecStreams(r.D) {
				_, d2 := encodingDistance(node.G, st.dv, st.entries)
				q += d2 * d2 / (node.G * node.G)
			}
		}
		if g := math.Sqrt(q) / m; g > 0 && !ok(0.95*g) {
			lo, hi = 0.95*g, 1.05*g
		}
	}
	for !ok(hi) {
		if lo, hi = hi, 2*hi; hi > 1e12 {
			return 0, "", fmt.Errorf("%w: no P_Vec noise certifies eps %v, delta %v", ErrInvalid, r.Eps, r.Delta)
		}
	}
	s := bisectMin(lo, hi, ok)
	if !ok(s) {
		return 0, "", fmt.Errorf("exact P_TVec sigma: postcondition failed at sigma = %v", s)
	}
	return s, "", nil
}

// relation: the shuffle model's neighbouring datasets differ in one
// user's data, whatever the request says.
func (shuffleVec) relation() string { return ReplaceOne }

// sources: the shuffled node is one noisy sum for all silos.
func (shuffleVec) sources(Request) int { return 1 }

// lambda is the published formula under reference-code, else the
// reference formula at sigma with one noise source.
func (shuffleVec) lambda(r Request, sigma float64, levels int) float64 {
	if r.Preset == PresetReferenceCode {
		return ReferenceVecSumLambda(r.Eps, r.Delta, levels, r.D, r.Alpha)
	}
	return ReferenceLambda(sigma, levels, 1, r.D, r.Alpha)
}

// delivered is the smaller of the two accountants' eps: the tight one
// (VecSumGDPEps: the exact Gaussian-DP parameter of the binomial's unit
// shift, composed) and the conservative tail bound (VecSumBound). Both are
// upper bounds; the tight one is the smaller except with very few noise
// bits.
func (shuffleVec) delivered(r Request, sigma float64, kappa int) (float64, bool, string, error) {
	cons, err := VecSumBound(r, sigma, kappa)
	if err != nil {
		return 0, false, "", err
	}
	tight, err := VecSumGDPEps(r, sigma, kappa)
	if err != nil {
		return 0, false, "", err
	}
	if tight <= cons {
		return tight, false, "P_TVec: Gaussian-DP of the binomial noise's unit shift (exact from its CDF), group privacy over the encodings' distance and composition over the kappa P_Vec runs of both streams that contain a user, one user replaced (docs/privacy.md 3.6)", nil
	}
	note := "P_TVec: binomial-noise tail bound over the kappa P_Vec runs of both streams that contain a user, one user replaced (docs/privacy.md 3.6)"
	if math.IsInf(cons, 1) {
		note += "; too few noise bits per node for the bound: no finite guarantee"
	}
	return cons, false, note, nil
}

// mu: binomial noise has no Gaussian-DP parameter.
func (shuffleVec) mu(float64, int, string) (float64, error) { return math.NaN(), nil }

// kearnsSaul is the optimal sub-Gaussian variance proxy of a centred
// Bernoulli(p) (Kearns & Saul 1998; Berend & Kontorovich 2013):
// (1 - 2p) / (2 ln((1-p)/p)), 1/4 at p = 1/2.
func kearnsSaul(p float64) float64 {
	if p == 0.5 {
		return 0.25
	}
	return (1 - 2*p) / (2 * fmath.Log((1-p)/p))
}

// VecSumBound returns an eps, at r.Delta, that P_TVec certifies with noise
// sigma (VecSumParams) on a kappa-level tree of r.M silos and batch r.B,
// for one user replaced. The level-l node holds n = 2^l B M users and each
// user is in at most one node per level, so she is in at most kappa P_Vec
// runs per stream. For one run, with N = n Draws noise bits per entry,
// the output entry is s + k, k ~ Binomial(N, p), and her encodings under
// the two datasets differ by Delta_e per entry, |Delta_e| <= ceil(2g),
// ||Delta||_2 <= g ||v - v'||_2 + sqrt(D) (v: her D entries; sqrt 2 for the
// Gram, 2 for the bias). The privacy loss of the entry is a sum of
// |Delta_e| consecutive values of r(m) = ln((N-m+1) p / (m (1-p))), which
// is decreasing and convex: on the window |k - Np| <= tau it lies below
// its chord (Delta_e > 0), and -r below its tangent at Np everywhere
// (Delta_e < 0). So the loss of all entries of all runs is at most
// A + sum_e B_e (k_e - N p) with |B_e| <= a1 |Delta_e|, a sum of centred
// binomials G that is sub-Gaussian (Kearns-Saul proxy ks per bit,
// S^2 = sum_runs N ks a1^2 ||Delta||^2). With exits from the windows
// budgeted at delta/1000, eps is the smallest A + c with
//
//	exits + sqrt(2 pi) S e^(c + S^2/2) Phi-bar(c/S + S) <= delta,
//
// a bound on the hockey-stick divergence E[(1 - e^(eps - L))_+] from the
// sub-Gaussian tail of G.
// The user's own randomised rounding is handled by conditioning on it
// (the bound holds for every pair of encodings; (eps, delta)-DP is closed
// under mixtures), and adaptivity by the independence of each run's noise
// from the past. It returns +Inf when a window leaves [1, N-1].
func VecSumBound(r Request, sigma float64, kappa int) (float64, error) {
	if r.D < 1 || r.M < 1 || r.B < 1 || kappa < 1 {
		return 0, fmt.Errorf("%w: P_TVec bound needs d, M, B, kappa >= 1 (got %d, %d, %d, %d)", ErrInvalid, r.D, r.M, r.B, kappa)
	}
	if err := checkDelta("delta", r.Delta); err != nil {
		return 0, err
	}
	streams := vecStreams(r.D)
	coords := float64(float64(kappa) * (streams[0].entries + streams[1].entries))
	exits := r.Delta / 1000
	var a, s2 float64
	fits := vecSumRuns(r, sigma, kappa, func(float64) float64 { return exits / coords }, func(ra, rs2 float64) bool {
		a += ra
		s2 += rs2
		return true
	})
	if !fits {
		return math.Inf(1), nil
	}
	if mutation.On("M6") {
		s2 /= 4
	}
	return hockeyEps(a, s2, r.Delta-exits)
}

// vecSumRuns bounds the loss of every P_Vec run that contains one user
// (each level's node, each stream) with binomialLoss, the window of a run
// of D entries at exit probability eta(D) per entry, and hands each run's
// (a, s2) to use; it stops early when use returns false. It reports
// whether every run's window fit and use accepted every run.
func vecSumRuns(r Request, sigma float64, kappa int, eta func(entries float64) float64, use func(a, s2 float64) bool) bool {
	for l := 0; l < kappa; l++ {
		node := VecSumParams(r, sigma, (1<<l)*r.B*r.M)
		N := float64(node.N) * float64(node.Draws)
		for _, st := range vecStreams(r.D) {
			dm, d2 := encodingDistance(node.G, st.dv, st.entries)
			a, s2, fits := binomialLoss(N, dm, math.Sqrt(st.entries)*d2, d2, eta(st.entries))
			if !fits || !use(a, s2) {
				return false
			}
		}
	}
	return true
}

// encodingDistance bounds how far one user's encodings of a stream (D
// entries, scale g) can be apart between two datasets whose summands are
// dv apart in L2: |Delta_e| <= dm = ceil(2g) per entry and
// ||Delta||_2 <= d2 = min(g dv + sqrt(D), dm sqrt(D)).
//
// The sqrt(D) is the rounding term, and it needs a coupling (docs/privacy.md
// 3.6): floor(a) + Bernoulli(frac(a)) has the distribution of floor(a + U),
// U uniform on [0, 1), so the mechanism's output under either dataset is a
// mixture over the user's U_e; the hockey-stick divergence is jointly
// convex, so the two mixtures are as close as the worst pair of components
// with the SAME U (any coupling of the two roundings may be used). With a
// common U_e, |floor(a+U) - floor(a'+U) - (a - a')| < 1, hence
// ||Delta - g (v - v')||_2 < sqrt(D). Independent roundings would allow
// |Delta_e - g (v_e - v'_e)| < 2 and a 2 sqrt(D) term.
// TestEncodingDistanceSound enumerates pairs and roundings against it.
func encodingDistance(g, dv, entries float64) (dm, d2 float64) {
	dm = math.Ceil(2 * g)
	rounding := math.Sqrt(entries)
	if mutation.On("M5") {
		rounding = 0
	}
	return dm, math.Min(float64(g*dv)+rounding, dm*math.Sqrt(entries))
}

// binomialLoss bounds the privacy loss of one run of the binomial
// mechanism: entries get independent Binomial(N, p) noise and two
// neighbouring inputs differ by a vector of integers with |Delta_e| <= dm,
// sum |Delta_e| <= d1 and ||Delta||_2 <= d2. Outside an event of
// probability eta per entry (|k - Np| > tau), the loss is at most a + G,
// G = sum_e B_e (k_e - Np) sub-Gaussian with variance proxy s2. ok is
// false when the window does not fit in [1, N-1].
func binomialLoss(N, dm, d1, d2, eta float64) (a, s2 float64, ok bool) {
	if !(N > 0) {
		return 0, 0, false
	}
	p, q := VecSumP, 1-VecSumP
	ks := kearnsSaul(p)
	mu := float64(N * p)
	tau := math.Sqrt(2 * N * ks * fmath.Log(2/eta))
	lo, hi := mu-tau-dm, mu+tau
	if lo < 1 || mu+tau+dm > N-1 {
		return 0, 0, false
	}
	rr := func(m float64) float64 { return fmath.Log((N-m+1)*p) - fmath.Log(m*q) }
	c := (rr(hi) - rr(lo)) / (hi - lo) // chord slope, < 0
	chordMu := rr(lo) + float64((mu-lo)*c)
	cp := 1/(N-mu+1) + 1/mu // -r'(mu)
	a1 := math.Max(-c, cp)
	a0 := math.Max(math.Max(chordMu, -rr(mu)), 0)
	return float64(a0*d1) + float64(a1*(float64(d2*d2)+d1)/2), N * ks * a1 * a1 * d2 * d2, true
}

// hockeyEps is the smallest eps = a + c (c >= 0) whose hockey-stick
// bound from a sub-Gaussian G of variance proxy s2 is within budget.
func hockeyEps(a, s2, budget float64) (float64, error) {
	// delta(eps) = E[(1 - e^(eps - L))_+] <= exits + E[(1 - e^(c - G))_+],
	// c = eps - A, and E[(1 - e^(c-G))_+] = int_c^inf e^(c-x) P(G > x) dx
	// <= sqrt(2 pi) S e^(c + S^2/2) Phi-bar(c/S + S) for c >= 0.
	sd := math.Sqrt(s2)
	ok := func(c float64) bool { return subGaussianHockey(c, sd) <= budget }
	hi := sd * math.Sqrt(2*fmath.Log(1/budget)) // P(G > hi) <= budget
	if !ok(hi) {
		return 0, fmt.Errorf("P_TVec bound: no eps found (S = %v, A = %v)", sd, a)
	}
	return up(a + bisectMin(0, hi, ok)), nil
}

// subGaussianHockey bounds E[(1 - e^(c - G))_+] for G sub-Gaussian with
// variance proxy s^2 and c >= 0: sqrt(2 pi) s e^(c + s^2/2) Phi-bar(c/s + s),
// with Phi-bar(z) <= phi(z)/z (Mills) once erfc underflows.
func subGaussianHockey(c, s float64) float64 {
	z := c/s + s
	if z < 30 {
		return math.Sqrt(2*math.Pi) * s * fmath.Exp(c+float64(s*s/2)) * fmath.Erfc(z/math.Sqrt2) / 2
	}
	return s * fmath.Exp(c+float64(s*s/2)-float64(z*z/2)) / z
}
