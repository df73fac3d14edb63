package mab

import (
	"math"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/internal/fmath"
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

// centralLaplace is DP-SE's protocol (Sajed & Sheffet 2019): a trusted
// server adds Laplace(1/eps) to each arm's sum of rewards (sensitivity 1).
// The Laplace variate is floating point (inverse CDF on a 53-bit uniform),
// exact only in real arithmetic.
type centralLaplace struct {
	eps, conf float64
	sums      []float64
	noise     *rand.Rand
	// shared reproduces the authors' script, which adds ONE Laplace draw to
	// every arm's sum of a batch (rewards + rng.laplace(0, 1/eps) on a
	// vector), so that the noise never changes which arms are eliminated.
	shared      bool
	sharedNoise float64
}

func (p *centralLaplace) start(b, n, k int) {
	p.sums = resetF(p.sums, k)
	if p.shared {
		p.sharedNoise = p.laplace()
	}
}

func (p *centralLaplace) laplace() float64 {
	e := p.noise.ExpFloat64() / p.eps
	if p.noise.Uint64()&1 == 1 {
		e = -e
	}
	return e
}
func (p *centralLaplace) add(i int, x float64) {
	p.sums[i] += x
}
func (p *centralLaplace) sum(i int) float64 {
	if p.shared {
		return p.sums[i] + p.sharedNoise
	}
	return p.sums[i] + p.laplace()
}

// width is SS19's: sqrt(ln(8 k b^2/conf)/(2n)) + ln(4 k b^2/conf)/(n eps).
func (p *centralLaplace) width(b, n, k int) float64 {
	return math.Sqrt(logTerm(8, k, b, p.conf)/(2*float64(n))) + logTerm(4, k, b, p.conf)/(float64(n)*p.eps)
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
