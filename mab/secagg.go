package mab

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/internal/dpnoise"
	"github.com/fedbandit/fedbandit/internal/fmath"
	"github.com/fedbandit/fedbandit/internal/mutation"
)

// Noise of a SecAgg protocol (the paper's Algorithms 2-7).
const (
	noiseCentral = "dlap-central" // CDP-SE: no user noise; the analyser adds DLap after decoding
	noiseLocal   = "dlap-local"   // LDP-SE: every user adds DLap(e^(-eps/g)) (local pure DP)
	noisePolya   = "polya"        // Dist-DP-SE: Polya shares; DLap(e^(-eps/g)) in total
	noiseSkellam = "skellam"      // Dist-RDP-SE: Skellam(g^2/(n eps^2)) shares; Skellam(g^2/eps^2) in total
	noiseDGauss  = "dgauss"       // Dist-CDP-SE: discrete Gaussian shares of variance g^2/(n eps^2)
)

// Fixed-point denominators of the noise parameters. The discrete
// Laplace's eps is rounded down to a multiple of 2^-20 and a share's
// variance up to a multiple of 2^-16: both only add noise, and the
// accountant certifies the values actually used.
const (
	epsBits = 20
	varBits = 16
)

// Stats counts what the analyser saw over a run's releases.
type Stats struct {
	Releases int64 // arm sums released (one per active arm per completed batch)
	// Underflows counts releases whose modular sum lay above n g + tau, so
	// that the analyser subtracted the modulus (the noisy sum was negative
	// and wrapped around).
	Underflows int64
	// DecodeErrors counts releases whose noisy sum lay outside
	// [-tau, n g + tau], so that the decoded value differs from it (the
	// protocol's accuracy event failed).
	DecodeErrors int64
}

// secagg simulates the paper's template protocol exactly in integers. Per
// batch of n users per arm: precision g, accuracy tau, modulus
// m = n g + 2 tau + 1. A user encodes x in [0, 1] as x_hat = floor(x g) +
// Bernoulli(x g - floor(x g)) in {0..g}, adds her noise share eta and sends
// (x_hat + eta) mod m; SecAgg reveals only the sum of the messages mod m;
// the analyser decodes S as S (or S - m when S > n g + tau) and divides by
// g. In aggregate mode the users' shares are not drawn one by one: the
// batch's total noise is drawn once from the law of the sum of the shares
// (exact for Polya, whose shares sum to a discrete Laplace, and for
// Skellam, closed under addition), which gives the same view.
type secagg struct {
	kind    string
	eps     float64
	epsNum  uint64 // eps rounded down: epsNum / 2^epsBits
	conf    float64
	scale   float64 // S
	perUser bool
	enc     *rand.Rand  // the users' randomised rounding
	src     rand.Source // noise shares, totals and the analyser's noise
	weaken  uint64      // >1 only in tests: divides the noise's scale (an audit's mutation)
	boost   uint64      // >1 only in the audit's power tests: multiplies it (scale boost/weaken; 0 means 1)
	// arms is the K tau is union-bounded over (with the batches); 0 gives
	// the paper's per-release tau (tests of the formulas).
	arms int64
	// inverted reproduces the authors' script's Polya sampler, whose Gamma
	// scale (1-p)/p is the inverse of the one whose shares sum to DLap(p):
	// its shares are Polya(1/n, 1-p) and sum to DLap(1-p), a spread orders
	// of magnitude too small. Never certified.
	inverted bool

	// per batch
	n, g, tau, m   int64
	lapNum, lapDen uint64 // discrete Laplace scale g/eps as lapNum/lapDen
	varNum, varDen uint64 // a share's variance (Skellam, discrete Gaussian)
	polyaP         float64
	shared         *int64  // only under the mutation N23: the batch's one shared total
	acc            []int64 // per slot: modular sum of messages (per user) or sum of x_hat (aggregate)
	xhat, eta      []int64 // per slot: true sum of x_hat and of the noise (to detect decode errors)
	stats          Stats
}

func newSecagg(kind string, eps, conf, scale float64, perUser bool, enc *rand.Rand, src rand.Source) (*secagg, error) {
	e := math.Floor(eps * (1 << epsBits))
	if mutation.On("N13") { // the sampler's eps rounded up (the claim stays rounded down)
		e = math.Ceil(eps * (1 << epsBits))
	}
	if !(e >= 1) || e > 1<<40 {
		return nil, fmt.Errorf("eps = %v: need a value in [2^-%d, 2^%d]", eps, epsBits, 40-epsBits)
	}
	return &secagg{kind: kind, eps: eps, epsNum: uint64(e), conf: conf, scale: scale, perUser: perUser, enc: enc, src: src, weaken: 1}, nil
}

// params returns g and tau of batch b of n users per arm (the paper's
// Theorems 1, 2, 4, 5, 6 with the script's choices where it has them).
// build refuses a spec whose largest batch does not fit (fits).
func (s *secagg) params(n int64, b int) (g, tau int64) {
	gf, tf := s.paramsF(n, b)
	return int64(gf), int64(tf)
}

// paramsF is params in float64 (whole numbers), before any conversion.
// The accuracy tau is the paper's with conf replaced by conf/(K b^2
// pi^2/6): union-bounded over the K arms and every batch b = 1, 2, ...
// (sum 1/b^2 = pi^2/6), so that a run decodes every release exactly with
// probability at least 1 - conf whatever its horizon, and a batch's tau
// does not depend on T.
func (s *secagg) paramsF(n int64, b int) (g, tau float64) {
	sq := math.Sqrt(float64(n))
	r := 1.0
	if s.arms > 0 {
		r = float64(s.arms) * float64(b) * float64(b) * math.Pi * math.Pi / 6
	}
	l := fmath.Log(2 * r / s.conf)
	if mutation.On("N6") { // the accuracy tau at ln(1/conf)
		l = fmath.Log(r / s.conf)
	}
	switch s.kind {
	case noiseSkellam:
		g = math.Ceil(s.scale * s.eps * sq)
		tau = math.Ceil(2*g*l/s.eps + float64(math.Sqrt2*l))
	case noiseDGauss:
		g = math.Ceil(s.scale * s.eps * sq)
		tau = math.Ceil(g * math.Sqrt(2*l) / s.eps)
	case noiseLocal:
		g = math.Ceil(s.eps * sq)
		tau = math.Ceil(g / s.eps * (2*math.Sqrt(2*float64(n)*l) + 2*l))
	default: // central, polya
		g = math.Ceil(s.eps * sq)
		tau = math.Ceil(g * l / s.eps)
	}
	return max(g, 1), tau
}

// maxInt is the bound every integer of the protocol must stay within:
// 2^62, so that sums of two stay in int64.
const maxInt = 1 << 62

// fits reports whether batch b of n users per arm keeps every integer of
// the protocol within 2^62: the modulus n g + 2 tau + 1 (which bounds
// every message, sum and decoded value) and g^2 (the share variance's
// numerator). The error names the keys that set them.
func (s *secagg) fits(n int64, b int) error {
	g, tau := s.paramsF(n, b)
	// float64 rounding is far below the margin 2^62 leaves to 2^63.
	if m := float64(float64(n)*g) + 2*tau + 1; m > maxInt || g*g > maxInt {
		return fmt.Errorf("eps = %v: at a batch of n = T = %d users (S = %v) the precision g = %.4g makes the modulus n g + 2 tau + 1 = %.4g or g^2 = %.4g exceed 2^62; lower eps, S or T",
			s.eps, n, s.scale, g, m, g*g)
	}
	return nil
}

func (s *secagg) start(b, n, k int) {
	s.n = int64(n)
	s.g, s.tau = s.params(s.n, b)
	s.m = s.n*s.g + 2*s.tau + 1
	if mutation.On("N5") { // modulus off by one
		s.m--
	}
	// discrete Laplace with parameter exp(-epsNum/(2^epsBits g)): scale g 2^epsBits / epsNum
	boost := max(s.boost, 1)
	s.lapNum, s.lapDen = uint64(s.g)<<epsBits*boost, s.epsNum*s.weaken
	if mutation.On("N15") { // the scale in the wrong units: 1/eps instead of g/eps
		s.lapNum = uint64(1) << epsBits
	}
	s.polyaP = fmath.Exp(-float64(s.epsNum) / float64(uint64(s.g)<<epsBits) * float64(s.weaken) / float64(boost))
	if s.inverted {
		// DLap(1-p): scale -1/ln(1-p), rounded to a multiple of 2^-20.
		s.polyaP = -fmath.Expm1(-float64(s.epsNum) / float64(uint64(s.g)<<epsBits))
		s.lapNum, s.lapDen = uint64(max(1, math.Round(-1/fmath.Log(s.polyaP)*(1<<epsBits)))), 1<<epsBits
	}
	if s.kind == noiseSkellam || s.kind == noiseDGauss {
		s.varNum, s.varDen = shareVariance(s.g, s.n, s.eps)
		s.varNum *= boost * boost
		s.varDen *= s.weaken * s.weaken
		if mutation.On("N3") { // the share variance divided by n again (the accountant unchanged)
			s.varDen *= uint64(s.n)
		}
	}
	if mutation.On("N22") && len(s.acc) == k { // slot sums not reset between batches
		return
	}
	s.acc, s.xhat, s.eta = resetI(s.acc, k), resetI(s.xhat, k), resetI(s.eta, k)
	s.shared = nil
}

// shareVariance returns g^2/(n eps^2), the variance of a user's share,
// rounded up to a multiple of 2^-varBits, as num/2^varBits (exactly:
// eps is the float64's exact rational value).
func shareVariance(g, n int64, eps float64) (num, den uint64) {
	v := new(big.Rat).SetInt64(g * g)
	e := new(big.Rat).SetFloat64(eps)
	v.Quo(v, e).Quo(v, e)
	if !mutation.On("N20") { // the share variance not divided by n
		v.Quo(v, new(big.Rat).SetInt64(n))
	}
	v.Mul(v, new(big.Rat).SetInt64(1<<varBits))
	q, r := new(big.Int).QuoRem(v.Num(), v.Denom(), new(big.Int))
	if r.Sign() > 0 && !mutation.On("P5-09") { // P5-09: the share variance rounded down
		q.Add(q, big.NewInt(1))
	}
	return q.Uint64(), 1 << varBits
}

// share draws one user's noise share.
func (s *secagg) share() int64 {
	switch s.kind {
	case noiseLocal:
		if mutation.On("N21") { // local noise at scale 1/eps instead of g/eps
			return dpnoise.DiscreteLaplace(s.src, 1<<epsBits, s.lapDen)
		}
		return dpnoise.DiscreteLaplace(s.src, s.lapNum, s.lapDen)
	case noisePolya:
		r := 1 / float64(s.n)
		return int64(dpnoise.Polya(s.src, r, s.polyaP)) - int64(dpnoise.Polya(s.src, r, s.polyaP))
	case noiseSkellam:
		if mutation.On("P5-04") { // a user's share at half the variance
			return dpnoise.Skellam(s.src, s.varNum, 2*s.varDen)
		}
		return dpnoise.Skellam(s.src, s.varNum, s.varDen)
	case noiseDGauss:
		return dpnoise.DiscreteGaussian(s.src, s.varNum, s.varDen)
	}
	return 0
}

// total draws a batch's total noise at once, where its law is exact.
func (s *secagg) total() int64 {
	switch s.kind {
	case noisePolya:
		return dpnoise.DiscreteLaplace(s.src, s.lapNum, s.lapDen)
	case noiseSkellam:
		return dpnoise.Skellam(s.src, s.totalVarNum(), s.varDen)
	}
	panic("mab: no exact aggregate law for noise " + s.kind)
}

// totalVarNum is the numerator (over varDen) of the variance of a batch's
// total Skellam noise: n shares' worth, n varNum.
func (s *secagg) totalVarNum() uint64 {
	if mutation.On("N19") { // the total from n - 1 shares
		return uint64(s.n-1) * s.varNum
	}
	return uint64(s.n) * s.varNum
}

// aggregate reports whether users' shares are replaced by one total draw.
func (s *secagg) aggregate() bool {
	return !s.perUser && (s.kind == noisePolya || s.kind == noiseSkellam)
}

func (s *secagg) add(i int, x float64) {
	xh := encode(s.enc, x, s.g)
	if s.aggregate() || s.kind == noiseCentral {
		s.xhat[i] += xh
		s.acc[i] += xh // reduced mod m at release: the same modular sum
		return
	}
	s.submit(i, xh, s.share())
}

// message is the local model's view of one user's turn: her message
// (x_hat + eta) mod m, decoded as the analyser decodes a sum (a
// post-processing), without entering a slot. The audit of LDP-SE releases
// it at the production g of the batch.
func (s *secagg) message(x float64) int64 {
	xh := encode(s.enc, x, s.g)
	return s.decode(mod(xh+s.share(), s.m))
}

// submit is one user's message (x_hat + eta) mod m entering SecAgg's
// modular sum of slot i.
func (s *secagg) submit(i int, xh, eta int64) {
	s.xhat[i] += xh
	s.eta[i] += eta
	s.acc[i] = mod(s.acc[i]+mod(xh+eta, s.m), s.m)
}

// sum is the analyser's view of slot i: the modular sum, decoded.
func (s *secagg) sum(i int) float64 {
	sm := s.acc[i]
	if s.aggregate() && !(mutation.On("N4") && i != 0) { // N4: only slot 0 noised
		eta := s.total()
		if mutation.On("N23") { // one total noise per batch, shared by every slot
			if s.shared == nil {
				s.shared = &eta
			}
			eta = *s.shared
		}
		s.eta[i] += eta
		sm += eta
	}
	sm = mod(sm, s.m)
	v := s.decode(sm)
	s.stats.Releases++
	if v != s.xhat[i]+s.eta[i] {
		s.stats.DecodeErrors++
	}
	if s.kind == noiseCentral {
		v += dpnoise.DiscreteLaplace(s.src, s.lapNum, s.lapDen)
	}
	return float64(v) / float64(s.g)
}

// decode is the analyser's underflow correction (paper Algorithm 3).
func (s *secagg) decode(sm int64) int64 {
	if sm > s.n*s.g+s.tau || mutation.On("P5-08") && sm == s.n*s.g+s.tau { // P5-08: >= at the edge
		s.stats.Underflows++
		return sm - s.m
	}
	return sm
}

// width is the template's sqrt(ln(4 k b^2/conf)/(2n)) + sg sqrt(ln(2 k
// b^2/conf))/n + h ln(2 k b^2/conf)/n, with the noise's tail constants:
// Theorem 1 (sg = sqrt2/eps, h = 1/eps) for the Laplace family, Theorem 2
// (sg = 2/eps + sqrt2/(S eps), h = 1/(S eps)) for Skellam; for the
// discrete Gaussian, sub-Gaussian noise of variance 1/eps^2 plus rounding
// of variance 1/(4 S^2 eps^2) (sg = sqrt2/eps + 1/(sqrt2 S eps), h = 0);
// for local noise, n discrete Laplace of variance about 2/eps^2 through
// Bernstein (sg = 2 sqrt(2n)/eps, h = 2/eps). The paper's Appendices E and
// G leave these constants unstated; these are ours.
func (s *secagg) width(b, n, k int) float64 {
	var sg, h float64
	switch s.kind {
	case noiseSkellam:
		sg, h = 2/s.eps+math.Sqrt2/(s.scale*s.eps), 1/(s.scale*s.eps)
	case noiseDGauss:
		sg, h = math.Sqrt2/s.eps+1/(math.Sqrt2*s.scale*s.eps), 0
	case noiseLocal:
		sg, h = 2*math.Sqrt(2*float64(n))/s.eps, 2/s.eps
	default:
		sg, h = math.Sqrt2/s.eps, 1/s.eps
	}
	l := logTerm(2, k, b, s.conf)
	return hoeffding(b, n, k, s.conf) + sg*math.Sqrt(l)/float64(n) + h*l/float64(n)
}

func mod(a, m int64) int64 {
	a %= m
	if a < 0 {
		a += m
	}
	return a
}
