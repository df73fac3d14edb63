package mab

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/dpnoise"
	"github.com/fedbandit/fedbandit/internal/fmath"
	"github.com/fedbandit/fedbandit/internal/mutation"
	"github.com/fedbandit/fedbandit/internal/rng"
)

// DP-UCB is the Private UCB of Mishra & Thakurta ("(Nearly) Optimal
// Differentially Private Stochastic Multi-Arm Bandits", UAI 2015,
// Algorithm 1): a trusted server keeps, for every arm, the running sum of
// its rewards through the tree-based aggregation of Chan, Shi & Song
// ("Private and Continual Release of Statistics", ICALP 2010 / TISSEC
// 2011: the binary mechanism), and plays UCB1 on the noisy sums with the
// confidence widened for the noise. The width's constant is ours (below):
// an exact tail bound of the noise the tree actually adds.

// newDPUCB builds DP-UCB for a run: eps' = eps rounded down to a multiple
// of 2^-epsBits, L = bits.Len(T) tree levels, node noise of scale
// L 2^dpseGridBits / eps' in grid units.
func newDPUCB(s PolicySetup) (Policy, error) {
	e := math.Floor(s.Eps * (1 << epsBits))
	if !(e >= 1) || e > 1<<40 {
		return nil, fmt.Errorf("eps = %v: need a value in [2^-%d, 2^%d]", s.Eps, epsBits, 40-epsBits)
	}
	if int64(s.T) > maxInt>>dpseGridBits {
		return nil, fmt.Errorf("T = %d: DP-UCB's grid sum of T rewards can exceed 2^62; at most 2^%d", s.T, 62-dpseGridBits)
	}
	levels := bits.Len(uint(s.T))
	u := &dpUCB{
		c: s.Params["c"], epsNum: uint64(e), levels: levels,
		arms: make([]treeCounter, s.Arms),
		enc:  rng.New(s.Key, "encode"), src: rng.Source(s.Key, noiseStream()),
	}
	u.eps = e / (1 << epsBits)
	scaleLevels := uint64(levels)
	if mutation.On("N27") { // the node noise not charged for the L nodes a reward is in
		scaleLevels = 1
	}
	u.lapNum, u.lapDen = scaleLevels<<(dpseGridBits+epsBits), u.epsNum
	for a := range u.arms {
		u.arms[a] = treeCounter{exact: make([]int64, levels), noisy: make([]int64, levels)}
	}
	return u, nil
}

// dpUCB is DP-UCB's state: each arm's tree counter of encoded rewards
// and the run's pulls. Every pull is one user's reward sent to the
// trusted server and one update of its statistics.
type dpUCB struct {
	c              float64
	eps            float64 // eps'
	epsNum         uint64  // eps' = epsNum / 2^epsBits
	levels         int     // L
	lapNum, lapDen uint64  // the nodes' discrete Laplace scale L g / eps' as lapNum/lapDen
	arms           []treeCounter
	pulls          int64
	enc            *rand.Rand  // the randomised rounding
	src            rand.Source // the noise
}

// treeCounter is one arm's tree-based aggregation (the binary
// mechanism): the n-th encoded reward completes the dyadic node of level
// i = the trailing zeros of n, the sum of the 2^i rewards n-2^i+1..n,
// which is released once with its own discrete Laplace noise; the noisy
// sum of the first n rewards is the sum of the released nodes of n's
// binary digits. A reward is in one node per level: at most L released
// nodes.
type treeCounter struct {
	n     int64
	exact []int64 // per level: the exact sum of the level's last node
	noisy []int64 // per level: its noisy release
}

// add feeds the n-th reward x (on the grid) and releases the node it
// completes with noise drawn by noise.
func (c *treeCounter) add(x int64, noise func() int64) {
	c.n++
	i := bits.TrailingZeros64(uint64(c.n))
	s := x
	for j := range i {
		s += c.exact[j]
		c.exact[j], c.noisy[j] = 0, 0
	}
	c.exact[i] = s
	c.noisy[i] = s + noise()
}

// sum is the noisy sum of the rewards so far (grid units): the released
// nodes of n's binary digits, popcount(n) of them.
func (c *treeCounter) sum() int64 {
	var s int64
	for j, v := range c.noisy {
		if c.n>>j&1 == 1 {
			s += v
		}
	}
	return s
}

// Choose returns an arm not pulled yet, else the first arm of largest
// index: noisy mean + c sqrt(2 ln n / n_a) + noiseWidth / n_a, n the
// pulls so far and n_a arm a's.
func (u *dpUCB) Choose(t int) int {
	for a := range u.arms {
		if u.arms[a].n == 0 {
			return a
		}
	}
	ln := fmath.Log(float64(u.pulls))
	ln2 := float64(2 * ln)
	best, top := 0, math.Inf(-1)
	for a := range u.arms {
		c := &u.arms[a]
		na := float64(c.n)
		mean := float64(c.sum()) / (1 << dpseGridBits) / na
		i := mean + float64(u.c*math.Sqrt(ln2/na)) + u.noiseWidth(bits.OnesCount64(uint64(c.n)), ln)/na
		if i > top {
			best, top = a, i
		}
	}
	return best
}

// ln43 is ln(4/3): the discrete Laplace law of scale b has E exp(X/(2b))
// = (1+y)^2/(1+y+y^2) <= 4/3 with y = exp(-1/(2b)) in (0, 1).
var ln43 = fmath.Log(4.0 / 3)

// noiseWidth bounds the noise of an arm's sum of k released nodes (in
// reward units) with probability at least 1 - n^-4 (the confidence of
// UCB1's own bonus at n pulls): each node's noise X has scale b = L/eps'
// and E exp(X/(2b)) <= 4/3, so by Markov's inequality
// P(|X_1 + ... + X_k| > l) <= 2 (4/3)^k exp(-l/(2b)), which is n^-4 at
// l = 2b (k ln(4/3) + ln 2 + 4 ln n).
func (u *dpUCB) noiseWidth(k int, ln float64) float64 {
	b := float64(u.levels) / u.eps
	return float64(2*b) * (float64(float64(k)*ln43) + math.Ln2 + float64(4*ln))
}

// Observe encodes the pull's reward on the grid (unbiased randomised
// rounding) and adds it to its arm's tree.
func (u *dpUCB) Observe(t, arm int, x float64) {
	u.arms[arm].add(encode(u.enc, x, 1<<dpseGridBits), u.noise)
	u.pulls++
}

// noise draws one node's discrete Laplace noise.
func (u *dpUCB) noise() int64 { return dpnoise.DiscreteLaplace(u.src, u.lapNum, u.lapDen) }

// Counters reports one update and one scalar per pull.
func (u *dpUCB) Counters() (int, int64) { return int(u.pulls), u.pulls }

// Claim states DP-UCB's guarantee: pure eps'-DP of everything the server
// releases, certified for this implementation.
func (u *dpUCB) Claim(p core.Privacy) core.Privacy {
	p.DeliveredEps, p.Certified = u.eps, true
	p.RelationNote = "one user's reward replaced by any value in [0, 1]; each user contributes once, to one leaf of the tree of the arm she pulls " +
		"(the arm chosen from the releases before her), so she is in at most L released nodes"
	p.Note = fmt.Sprintf("tree-based aggregation per arm (binary mechanism): every reward encoded as a multiple of 2^-%d by unbiased randomised rounding, "+
		"each dyadic node's integer sum released once with discrete Laplace noise of parameter exp(-eps'/(L 2^%d)), L = %d levels; "+
		"one user's reward is in at most L released nodes of one arm's tree, each moving by at most 2^%d, so the releases of the whole run "+
		"(and the arms chosen from them) are eps'-DP, eps' = eps rounded down to a multiple of 2^-%d = %v; "+
		"the noise and the released sums are integers (exact sampler, CKS20), the index's floating point is post-processing",
		dpseGridBits, dpseGridBits, u.levels, dpseGridBits, epsBits, u.eps)
	return p
}

// released is arm's noisy sum (reward units): what the server holds.
func (u *dpUCB) released(arm int) float64 {
	return float64(u.arms[arm].sum()) / (1 << dpseGridBits)
}

// weaken divides the nodes' noise scale by div (audits only).
func (u *dpUCB) weaken(div uint64) { u.lapDen *= div }
