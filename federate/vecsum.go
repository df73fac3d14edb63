package federate

import (
	"math"
	"math/bits"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fedbandit/fedbandit/federate/accountant"
	"github.com/fedbandit/fedbandit/federate/tree"
	"github.com/fedbandit/fedbandit/internal/dpnoise"
	"github.com/fedbandit/fedbandit/internal/mutation"
	"github.com/fedbandit/fedbandit/internal/rng"
)

// AlgSDPVec is Private-FedLinUCB under shuffle DP through the vector-sum
// protocol P_TVec (paper Algorithm 5, Theorem 5.5; protocol.md section 2):
// the tree of protocol P, every node computed by P_Vec (Cheu, Joseph, Mao
// & Peng 2021) over the node's n = 2^j B M single data points of all
// silos. Its registry entry is in algorithms.go.
const AlgSDPVec = "sdp-vec"

// vecSumParts builds P_TVec: the eager or lazy learner, whose every
// observation is also encoded into the open tree nodes (vecSumEncoder), a
// synchronisation every B rounds, and the shuffler and analyser
// (vecSum).
func vecSumParts(su runSetup) (parts, error) {
	s := su.spec
	// The nodes' populations are this run's (M silos, batch B, T/B
	// batches); the noise level is the calibration's.
	req := su.cal.Request
	req.M, req.B, req.D = s.M, s.B, su.d
	v := newVecSum(req, su.cal.Sigma, s.T/s.B, su.d, rng.Source(su.runKey, "vecsum", "noise"))
	v.exact = s.Noise == NoiseDiscrete
	enc := &vecSumEncoder{learner: su.learner(), v: v, r: make([]bitSource, s.M)}
	for i := range enc.r {
		enc.r[i].r = rng.Source(su.runKey, "silo", i, "vecsum-rounding")
	}
	return parts{learner: enc, schedule: everyB{b: s.B}, protocol: v}, nil
}

// vecSum simulates P_TVec exactly without materialising messages. The
// users of a tree node encode each entry v of their summands (packed
// x x^T, then x y) as floor(g (v+1)) + Bernoulli(frac(g (v+1))), the
// encoding P_Vec's randomiser sends, and add noise bits Binomial(Draws,
// p). The shuffler delivers only the sum of all messages, so the
// simulation keeps, per tree level and entry, the running sum of the
// encodings (drawn as users arrive: vecSumEncoder), and at the node's
// release draws the sum of the n users' noise bits as ONE
// Binomial(n Draws, p): a sum of independent binomials with the same p is
// binomial with the summed trials, so the sum the analyser sees has
// exactly the protocol's distribution. The analyser decodes
// z = (S - p B n)/g - n per entry. Memory is O(kappa d^2) whatever n.
type vecSum struct {
	np      int // packed Gram length d(d+1)/2
	k, big  int // synchronisations so far; batches in the run
	nodes   []accountant.VecSumNode
	sum     [][]int64   // per level: encodings of the open node
	open    []bool      // per level: the current batch's node at this level will be released
	node    [][]float64 // per level: the last released node, decoded
	noise   *rand.ChaCha8
	exact   bool      // noise bits from dpnoise.BinomialQuarter, not gonum's sampler
	entries []float64 // one user's summand, packed Gram then bias
}

func newVecSum(r accountant.Request, sigma float64, batches, d int, noise *rand.ChaCha8) *vecSum {
	levels := tree.Kappa(batches)
	np := tree.PackedLen(d)
	v := &vecSum{np: np, big: batches, noise: noise,
		nodes: make([]accountant.VecSumNode, levels), sum: make([][]int64, levels),
		open: make([]bool, levels), node: make([][]float64, levels), entries: make([]float64, np+d)}
	for l := range v.nodes {
		v.nodes[l] = accountant.VecSumParams(r, sigma, (1<<l)*r.B*r.M)
		v.sum[l] = make([]int64, np+d)
		v.node[l] = make([]float64, np+d)
	}
	v.plan()
	return v
}

// binomial returns the sampler of one node's noise bits, Binomial(n,
// VecSumP) per entry: the exact sampler under noise "discrete", gonum's
// (accurate, not exact at billions of bits; the default, whose draws the
// pinned results were made with) otherwise.
// BinomialQuarter is Binomial(n, 1/4): VecSumP is 1/4
// (TestVecSumExactSampler checks it).
func (v *vecSum) binomial(n uint64) func() float64 {
	if v.exact {
		return func() float64 { return float64(dpnoise.BinomialQuarter(v.noise, n)) }
	}
	bin := distuv.Binomial{N: float64(n), P: accountant.VecSumP, Src: v.noise}
	return bin.Rand
}

// plan marks the levels whose node containing the next batch k+1 is
// released: node (l, a) covers batches a 2^l + 1 .. (a+1) 2^l and is
// released at its last batch iff a+1 is odd and (a+1) 2^l <= batches.
func (v *vecSum) plan() {
	kb := v.k + 1
	for l := range v.open {
		end := (kb + (1 << l) - 1) >> l // a+1
		v.open[l] = end&1 == 1 && end<<l <= v.big
	}
}

// encode adds one user's summand (x projected, y clamped) to every open
// node, drawing her randomised roundings from silo stream r.
func (v *vecSum) encode(x []float64, y float64, r *bitSource) {
	ent := v.entries
	e := 0
	for i, xi := range x {
		for _, xj := range x[i:] {
			ent[e] = xi * xj
			e++
		}
	}
	for i, xi := range x {
		ent[e+i] = xi * y
	}
	bits, n := r.bits, r.n
	for l, open := range v.open {
		if !open {
			continue
		}
		// a = g (v + 1) is encoded as floor(a) + Bernoulli(frac(a)). With
		// A = 256 a (exact: a power-of-two scaling), floor(a) = floor(A) >> 8
		// and the byte f8 = floor(A) & 255 decides the Bernoulli against a
		// random byte u unless u = f8 (bitSource.bernoulli's rule).
		g256, s := v.nodes[l].G*256, v.sum[l]
		for k, ve := range ent {
			A := float64(g256 * (ve + 1))
			if !(A >= 0 && A < 1<<62) { // unclamped rewards: the general path
				r.bits, r.n = bits, n
				a := float64(A / 256)
				fl := math.Floor(a)
				s[k] += int64(fl) + r.bernoulli(a-fl)
				bits, n = r.bits, r.n
				continue
			}
			af := uint64(A)
			if n < 8 {
				bits, n = r.r.Uint64(), 64
			}
			u, f8 := bits&255, af&255
			bits >>= 8
			n -= 8
			c := int64(af >> 8)
			if u != f8 {
				c += int64((u - f8) >> 63) // 1 iff u < f8
			} else if float64(r.r.Uint64()>>11) < (A-float64(af))*(1<<53) {
				c++
			}
			s[k] += c
		}
	}
	r.bits, r.n = bits, n
}

// bitSource draws Bernoulli variates exactly from a ChaCha8 stream, eight
// random bits at a time: with U = (u + U')/256, u a random byte and U'
// uniform, U < f iff u < floor(256 f), or u = floor(256 f) (probability
// 1/256) and U' < frac(256 f), decided by a fresh 53-bit uniform.
type bitSource struct {
	r    *rand.ChaCha8
	bits uint64
	n    uint
}

// bernoulli returns 1 with probability f in [0, 1) (exact up to 2^-61).
func (b *bitSource) bernoulli(f float64) int64 {
	if b.n < 8 {
		b.bits, b.n = b.r.Uint64(), 64
	}
	u := b.bits & 255
	b.bits >>= 8
	b.n -= 8
	f = float64(f * 256)
	f8 := uint64(f)
	if u != f8 {
		return int64((u - f8) >> 63) // 1 iff u < f8
	}
	if float64(b.r.Uint64()>>11) < (f-float64(f8))*(1<<53) {
		return 1
	}
	return 0
}

// publish releases the level-j node completed by batch k (j = trailing
// zeros of k): the shuffler's sum of its users' encodings and noise bits,
// decoded; the server publishes the prefix sum of the nodes of k's set
// bits. Every user of the node sends one message per entry through the
// shuffler; each silo's share is counted as its messages.
func (v *vecSum) publish(up []bool, batches []*batchStats, wsyn, usyn []float64, send sender) {
	everySilo(up)
	v.k++
	j := bits.TrailingZeros(uint(v.k))
	nd := v.nodes[j]
	users := nd.N / len(batches) // per silo
	for i := range batches {
		for u := 0; u < users; u++ {
			send(i, "gram", v.node[j][:v.np])
			send(i, "bias", v.node[j][v.np:])
		}
	}
	nbits := uint64(nd.N) * uint64(nd.Draws)
	shift := float64(accountant.VecSumP * nd.B * float64(nd.N))
	if mutation.On("M4") { // half the noise bits, decoded consistently
		nbits = uint64(nd.N) * uint64(nd.Draws/2)
		shift = float64(accountant.VecSumP * float64(nd.Draws/2) * float64(nd.N))
	}
	draw := v.binomial(nbits)
	for e, s := range v.sum[j] {
		v.node[j][e] = (float64(s)+draw()-shift)/nd.G - float64(nd.N)
	}
	for l := 0; l <= j; l++ {
		clear(v.sum[l])
	}
	clear(wsyn)
	clear(usyn)
	for l := range v.node {
		if v.k>>l&1 == 1 {
			addTo(wsyn, v.node[l][:v.np])
			addTo(usyn, v.node[l][v.np:])
		}
	}
	v.plan()
}

// vecSumEncoder is the learner of P_TVec: the eager or lazy learner, with
// every user's observation also encoded into the open tree nodes from
// silo i's stream "vecsum-rounding".
type vecSumEncoder struct {
	learner
	v *vecSum
	r []bitSource
}

func (e *vecSumEncoder) observe(i int, b *batchStats, x []float64, y float64) float64 {
	q := e.learner.observe(i, b, x, y)
	e.v.encode(x, y, &e.r[i])
	return q
}
