package mab

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/internal/dpnoise"
	"github.com/fedbandit/fedbandit/internal/fmath"
	"github.com/fedbandit/fedbandit/internal/mutation"
)

// protocol is how a batch's rewards reach the server: each user's turn
// (add) and, at the batch's end, the server's view of each active arm's sum
// (sum). The elimination (Run) sees nothing else, so a privacy model is one
// more implementation.
type protocol interface {
	// start begins batch b with n users on each of k active arms.
	start(b, n, k int)
	// add is one user's turn: her reward x in [0, 1] for arm slot i.
	add(i int, x float64)
	// sum is the server's estimate of slot i's sum of rewards.
	sum(i int) float64
	// width is the confidence width (before the multiplier crs) of a mean
	// over n users in batch b with k active arms.
	width(b, n, k int) float64
}

// logTerm is ln(c k b^2 / conf), the union bound over arms and batches in
// every width of the paper.
func logTerm(c float64, k, b int, conf float64) float64 {
	return fmath.Log(c * float64(k) * float64(b) * float64(b) / conf)
}

// hoeffding is the width of a mean of n rewards in [0, 1]:
// sqrt(ln(4 k b^2 / conf) / (2 n)).
func hoeffding(b, n, k int, conf float64) float64 {
	return math.Sqrt(logTerm(4, k, b, conf) / (2 * float64(n)))
}

// plain is the non-private protocol: the server sees the exact sums.
type plain struct {
	conf float64
	sums []float64
}

func (p *plain) start(b, n, k int) { p.sums = resetF(p.sums, k) }
func (p *plain) add(i int, x float64) {
	p.sums[i] += x
}
func (p *plain) sum(i int) float64 { return p.sums[i] }
func (p *plain) width(b, n, k int) float64 {
	return hoeffding(b, n, k, p.conf)
}

// dpseGridBits sets DP-SE's grid: every reward is encoded as an integer
// multiple of 2^-dpseGridBits (unbiased randomised rounding, as the SecAgg
// entries encode theirs), so that an arm's batch sum is an integer of
// sensitivity g = 2^dpseGridBits and its noise an exact discrete Laplace.
const dpseGridBits = 20

// centralLaplace is DP-SE's protocol (Sajed & Sheffet 2019): a trusted
// server adds Laplace(1/eps) noise to each arm's sum of rewards
// (sensitivity 1). It is drawn exactly on a grid: rewards are encoded as
// x_hat in {0..g}, g = 2^dpseGridBits (x_hat = floor(x g) + Bernoulli(x g
// - floor(x g)), a mixture independent of the noise), each arm's integer
// sum gets discrete Laplace noise with parameter exp(-eps'/g) (CKS20's
// exact sampler; eps' = eps rounded down to a multiple of 2^-epsBits), and
// the release is divided by g. The integer sum has sensitivity exactly g,
// so each release is eps'-DP with no floating point in the noise.
type centralLaplace struct {
	eps, conf      float64
	epsNum         uint64 // eps' = epsNum / 2^epsBits
	lapNum, lapDen uint64 // discrete Laplace scale g/eps' as lapNum/lapDen
	sums           []int64
	enc            *rand.Rand  // the randomised rounding
	src            rand.Source // the noise
	weaken         uint64      // >1 only in audits: divides the noise's scale (the mutation control)
	boost          uint64      // >1 only in the audit's power tests: multiplies it (0 means 1)
}

func newCentralLaplace(eps, conf float64, enc *rand.Rand, src rand.Source) (*centralLaplace, error) {
	e := math.Floor(eps * (1 << epsBits))
	if !(e >= 1) || e > 1<<40 {
		return nil, fmt.Errorf("eps = %v: need a value in [2^-%d, 2^%d]", eps, epsBits, 40-epsBits)
	}
	return &centralLaplace{eps: eps, conf: conf, epsNum: uint64(e), enc: enc, src: src, weaken: 1}, nil
}

func (p *centralLaplace) start(b, n, k int) {
	p.sums = resetI(p.sums, k)
	p.lapNum, p.lapDen = uint64(1)<<(dpseGridBits+epsBits)*max(p.boost, 1), p.epsNum*p.weaken
	if mutation.On("N24") { // the grid not charged: scale 1/eps' in grid units
		p.lapNum = 1 << epsBits
	}
}

func (p *centralLaplace) add(i int, x float64) {
	p.sums[i] += encode(p.enc, x, 1<<dpseGridBits)
}

func (p *centralLaplace) sum(i int) float64 {
	if mutation.On("N25") { // the floating-point ziggurat Laplace DP-SE used to draw
		e := p.enc.ExpFloat64() / p.eps
		if p.enc.Uint64()&1 == 1 {
			e = -e
		}
		return float64(p.sums[i])/(1<<dpseGridBits) + e
	}
	return float64(p.sums[i]+dpnoise.DiscreteLaplace(p.src, p.lapNum, p.lapDen)) / (1 << dpseGridBits)
}

// width is SS19's: sqrt(ln(8 k b^2/conf)/(2n)) + ln(4 k b^2/conf)/(n eps).
func (p *centralLaplace) width(b, n, k int) float64 {
	return dpseWidth(b, n, k, p.eps, p.conf)
}

// sharedLaplace is DP-SE as the authors' script runs it (reference_code =
// 1, never certified): ONE floating-point Laplace(1/eps) draw (math/rand's
// ziggurat ExpFloat64 with a random sign) added to every arm's sum of a
// batch (rewards + rng.laplace(0, 1/eps) on a vector), so that the noise
// never changes which arms are eliminated.
type sharedLaplace struct {
	eps, conf float64
	sums      []float64
	noise     *rand.Rand
	shared    float64
}

func (p *sharedLaplace) start(b, n, k int) {
	p.sums = resetF(p.sums, k)
	e := p.noise.ExpFloat64() / p.eps
	if p.noise.Uint64()&1 == 1 {
		e = -e
	}
	p.shared = e
}
func (p *sharedLaplace) add(i int, x float64) { p.sums[i] += x }
func (p *sharedLaplace) sum(i int) float64    { return p.sums[i] + p.shared }
func (p *sharedLaplace) width(b, n, k int) float64 {
	return dpseWidth(b, n, k, p.eps, p.conf)
}

// dpseWidth is SS19's width: sqrt(ln(8 k b^2/conf)/(2n)) + ln(4 k b^2/conf)/(n eps).
func dpseWidth(b, n, k int, eps, conf float64) float64 {
	return math.Sqrt(logTerm(8, k, b, conf)/(2*float64(n))) + logTerm(4, k, b, conf)/(float64(n)*eps)
}

// encode is a reward x in [0, 1] on the grid of g: floor(x g) +
// Bernoulli(x g - floor(x g)), in {0..g}, unbiased.
func encode(r *rand.Rand, x float64, g int64) int64 {
	xg := float64(x * float64(g))
	fl := math.Floor(xg)
	xh := int64(fl)
	if mutation.On("N7") { // deterministic rounding to nearest: biased
		if xg-fl >= 0.5 {
			xh++
		}
		return xh
	}
	if r.Float64() < xg-fl {
		xh++
	}
	return xh
}

// dpseBatch is SS19's batch size for accuracy D = growth^-b:
// 1 + floor(max(32 ln(8 k b^2/conf)/D^2, 8 ln(4 k b^2/conf)/(D eps))).
func dpseBatch(b, k int, growth, eps, conf float64) float64 {
	d := fmath.Pow(growth, -float64(b))
	return 1 + math.Floor(math.Max(32*logTerm(8, k, b, conf)/(d*d), 8*logTerm(4, k, b, conf)/(d*eps)))
}

func resetF(s []float64, k int) []float64 {
	s = s[:0]
	for range k {
		s = append(s, 0)
	}
	return s
}

func resetI(s []int64, k int) []int64 {
	s = s[:0]
	for range k {
		s = append(s, 0)
	}
	return s
}
