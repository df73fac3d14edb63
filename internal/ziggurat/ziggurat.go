// Package ziggurat is the Gaussian sampler of the simulator's synthetic
// contexts (federate's ContextsFast generator): a 1024-layer ziggurat on
// 32-bit draws from four xoshiro256++ lanes, with an AVX2/FMA kernel for
// its fast path and a portable Go twin that gives the same bits. It is not
// used for privacy noise.
package ziggurat

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/internal/fmath"
)

// zigLayers is the number of layers of the ziggurat and zigBits =
// log2(zigLayers) the bits of a 32-bit draw that choose one.
const (
	zigLayers = 1 << zigBits
	zigBits   = 10
)

// A Sampler draws a stream of standard normals. They come from four
// xoshiro256++ generators (Blackman & Vigna 2018), the lanes, advanced
// together: step t of the lanes yields four 64-bit outputs o_0..o_3, i.e.
// eight 32-bit draws, draw k being the low (k even) or high (k odd) half
// of o_{k/2}. Normal p of a Fill is made from draw w = draw p%8 of step
// p/8 by a zigLayers-layer ziggurat (Marsaglia & Tsang 2000; tables and
// their derivation in tables.go and zigCompute): with layer
// i = w & (zigLayers-1) and signed position j = int32(w) >> zigBits,
//
//	if |j| < zigK[i]: z = float64(j) * zigW[i]   (the fast path, 99.57%)
//	else:             z = slow(w)                (wedge or tail, exact)
//
// The fast path never looks at other draws, so the assembly kernel runs
// it for eight draws at once and records the draws it rejects; slow then
// replaces each rejected value in place, in increasing position order,
// drawing the uniforms and fresh draws it needs from a fifth, scalar
// xoshiro256++ generator. Every position thus holds an independent exact
// ziggurat normal: values are multiples of zigW[i] = x_i/2^21, x_i the
// layer's width (a grid of at most 2.0e-6); the layers have equal areas
// to double precision, and the wedges and the tail beyond zigR are exact
// up to math.Exp and math.Log. A Fill of n normals draws Steps(n) =
// ceil(n/8) steps (the extra draws of a last half step are discarded).
type Sampler struct {
	lanes [16]uint64 // lane l's state is lanes[l], lanes[4+l], lanes[8+l], lanes[12+l]
	slowS [4]uint64  // the scalar generator of the slow path
}

// New seeds the five generators of a Sampler from key: their 20 state
// words are the first 20 outputs of ChaCha8 seeded with key.
func New(key [32]byte) *Sampler {
	c := &Sampler{}
	src := rand.NewChaCha8(key)
	for i := range c.lanes {
		c.lanes[i] = src.Uint64()
	}
	for i := range c.slowS {
		c.slowS[i] = src.Uint64()
	}
	// An all-zero xoshiro state is a fixed point (probability 2^-256).
	for l := 0; l < 4; l++ {
		if c.lanes[l]|c.lanes[4+l]|c.lanes[8+l]|c.lanes[12+l] == 0 {
			c.lanes[l] = 1
		}
	}
	if c.slowS[0]|c.slowS[1]|c.slowS[2]|c.slowS[3] == 0 {
		c.slowS[0] = 1
	}
	return c
}

// State returns the generators' state words: the lanes' (lane l's state
// is lanes[l], lanes[4+l], lanes[8+l], lanes[12+l]) and the slow path's.
// Two samplers with the same state draw the same stream; tests pin a
// stream's consumption by it.
func (c *Sampler) State() (lanes [16]uint64, slow [4]uint64) { return c.lanes, c.slowS }

// Steps returns the number of steps of the lanes (eight draws each) that
// a Fill of n normals takes: ceil(n/8). It is also the number of records
// Fill needs in its scratch rej.
func Steps(n int) int { return (n + 7) / 8 }

// Fill writes the next len(z) normals of the stream to z, running the
// fast path with the kernel k. It draws whole steps: z's capacity must
// reach 8*Steps(len(z)) (the draws of a last half step are written past
// len(z) and discarded, using no slow-path draws), and rej, the scratch
// of the fast path's records, must hold Steps(len(z)) records. It panics
// otherwise.
func (c *Sampler) Fill(z []float64, rej []RejStep, k Kernel) {
	n := len(z)
	steps := Steps(n)
	if cap(z) < 8*steps || len(rej) < steps {
		panic(fmt.Sprintf("ziggurat: Fill of %d normals with cap(z) = %d, len(rej) = %d", n, cap(z), len(rej)))
	}
	nr := k.fast(z[:8*steps], &c.lanes, rej[:steps], &zigTable)
	c.fixRejected(z, rej[:nr])
}

// A Kernel is an implementation of the fast path (see zigFastGo): the
// assembly kernel or its portable Go twin, which give the same bits.
// Portable, Assembly and Best return them; the zero Kernel is not usable.
type Kernel struct {
	name string
	fast func(z []float64, s *[16]uint64, rej []RejStep, t *[zigLayers]zigEntry) int
}

// Name returns "go" for the portable kernel, "avx2+fma" for the assembly
// one.
func (k Kernel) Name() string { return k.name }

// Portable returns the portable Go kernel, which runs everywhere.
func Portable() Kernel { return Kernel{"go", zigFastGo} }

// Best returns the assembly kernel where the build and the CPU run it
// (Assembly), else the portable one.
func Best() Kernel {
	if k, ok := Assembly(); ok {
		return k
	}
	return Portable()
}

// fixRejected replaces the normals of z rejected by the fast path
// (recorded in rej by the fast path) with slow's, in increasing position;
// positions beyond len(z) (the discarded draws of a last half step) are
// skipped and use no slow-path draws.
func (c *Sampler) fixRejected(z []float64, rej []RejStep) {
	for r := range rej {
		st := &rej[r]
		for m := st.mask; m != 0; m &= m - 1 {
			k := bits.TrailingZeros32(m)
			if p := int(st.pos) + k; p < len(z) {
				z[p] = c.slow(st.draws[k])
			}
		}
	}
}

// zigEntry is one layer i of the ziggurat as the fast path uses it:
// w = zigW[i] and k = float64(zigK[i]) (exact), side by side so that one
// 16-byte load brings both.
type zigEntry struct {
	w, k float64
}

// zigTable is the fast path's table: zigTable[i] = {zigW[i], zigK[i]}.
var zigTable = makeZigTable(&zigK, &zigW)

// makeZigTable returns the fast-path table of the thresholds kt and the
// widths wt.
func makeZigTable(kt *[zigLayers]uint32, wt *[zigLayers]float64) (t [zigLayers]zigEntry) {
	for i := range t {
		t[i] = zigEntry{w: wt[i], k: float64(kt[i])}
	}
	return t
}

// A RejStep records a step of the fast path with draws it rejected: bit
// k of mask is set if draw k (position pos + k) was rejected. It is
// Fill's scratch; the assembly kernel relies on its layout (fast_amd64.go).
type RejStep struct {
	pos, mask uint32
	draws     [8]uint32 // all eight draws of the step
}

// zigFastGo is the fast path, the portable kernel (the assembly kernel
// reproduces it bit for bit): it runs the lanes s for len(z)/8 steps
// (len(z) a multiple of 8) and writes float64(j) * t[i].w for draw k of
// step t to z[8t+k]. Each step with a draw rejected by the fast path
// (|j| >= t[i].k, compared as float64: exact, both being integers below
// 2^22) is recorded in rej, in step order; it returns the number of
// records. rej must hold len(z)/8 records: the kernels may write the one
// after the last (garbage). t is zigTable (tests pass others).
func zigFastGo(z []float64, s *[16]uint64, rej []RejStep, tab *[zigLayers]zigEntry) int {
	nr := 0
	for t := 0; t < len(z)/8; t++ {
		var o [4]uint64
		for l := range o {
			o[l] = xoshiroNext(&s[l], &s[4+l], &s[8+l], &s[12+l])
		}
		var mask uint32
		for k := 0; k < 8; k++ {
			w := uint32(o[k/2] >> (32 * (k % 2)))
			e := &tab[w&(zigLayers-1)]
			j := float64(int32(w) >> zigBits)
			z[8*t+k] = j * e.w
			if math.Abs(j) >= e.k {
				mask |= 1 << k
			}
		}
		if mask != 0 {
			st := &rej[nr]
			st.pos, st.mask = uint32(8*t), mask
			for k := range st.draws {
				st.draws[k] = uint32(o[k/2] >> (32 * (k % 2)))
			}
			nr++
		}
	}
	return nr
}

// xoshiroNext advances the xoshiro256++ state (s0, s1, s2, s3) and
// returns its output.
func xoshiroNext(s0, s1, s2, s3 *uint64) uint64 {
	out := bits.RotateLeft64(*s0+*s3, 23) + *s0
	t := *s1 << 17
	*s2 ^= *s0
	*s3 ^= *s1
	*s1 ^= *s2
	*s0 ^= *s3
	*s2 ^= t
	*s3 = bits.RotateLeft64(*s3, 45)
	return out
}

// abs32 returns |j| for j > -2^31.
func abs32(j int32) uint32 {
	if j < 0 {
		return uint32(-j)
	}
	return uint32(j)
}

// slowNext returns the next output of the slow-path generator.
func (c *Sampler) slowNext() uint64 {
	return xoshiroNext(&c.slowS[0], &c.slowS[1], &c.slowS[2], &c.slowS[3])
}

// uniform returns a uniform float64 in (0, 1] from the slow-path generator.
func (c *Sampler) uniform() float64 {
	return float64(c.slowNext()>>11+1) / (1 << 53)
}

// slow completes the ziggurat for a draw w rejected by the fast path:
// the base layer's draws beyond zigR come from the tail (Marsaglia's
// exponential rejection), the others are accepted with the exact density
// in their wedge; a wedge rejection restarts the ziggurat with a fresh
// 32-bit draw (the high half of a slow-path output).
func (c *Sampler) slow(w uint32) float64 {
	for {
		i := w & (zigLayers - 1)
		j := int32(w) >> zigBits
		x := float64(j) * zigW[i]
		switch {
		case abs32(j) < zigK[i]:
			return x // a fresh draw on the fast path
		case i == 0:
			if math.Abs(x) < zigR {
				return x // in the base strip
			}
			var t float64
			for {
				t = -fmath.Log(c.uniform()) / zigR
				if y := -fmath.Log(c.uniform()); y+y >= t*t {
					break
				}
			}
			if j < 0 {
				return -zigR - t
			}
			return zigR + t
		}
		if zigWedgeAccept(i, x, c.uniform()) {
			return x
		}
		w = uint32(c.slowNext() >> 32)
	}
}

// zigWedgeAccept reports whether the point of height u (uniform in (0, 1])
// over x in the wedge of layer i >= 1 lies under the density: the exact
// test zigWedgeExact, decided first against the chord (zigWedges).
func zigWedgeAccept(i uint32, x, u float64) bool {
	wd := &zigWedges[i]
	chord := float64((wd.outer - math.Abs(x)) * wd.invWidth) // 1 at the inner edge, 0 at the outer
	if u < chord-wd.below {
		return true
	}
	if u > chord+wd.above {
		return false
	}
	return zigWedgeExact(i, x, u)
}

// zigWedgeExact is the ziggurat's wedge test.
func zigWedgeExact(i uint32, x, u float64) bool {
	return zigF[i]+float64(u*(zigF[i-1]-zigF[i])) < fmath.Exp(-0.5*x*x)
}

// zigWedge bounds the density over the wedge of a layer i >= 1, between
// its inner edge a = x_{i-1} (0 for the top layer) and its outer edge
// b = x_i, in band units C(x) = (f(x) - zigF[i])/(zigF[i-1] - zigF[i]):
// with the chord L(x) = (b - x)/(b - a),
//
//	L(x) - below <= C(x) <= L(x) + above   on [a, b].
//
// A wedge point at height U with U < L - below is under the curve, one
// with U > L + above is above it; only the rest needs math.Exp. The bounds
// include a margin of 1e-9 band units, far above the rounding errors of
// the comparisons (about 1e-13 band units), so the decisions are those of
// the exact test.
type zigWedge struct {
	outer, invWidth float64 // b and 1/(b - a)
	below, above    float64
}

// zigWedges[i] bounds layer i's wedge (zigWedges[0] is unused).
var zigWedges = computeZigWedges()

// computeZigWedges finds, for each layer, the extremes of C - L, where
// C' = L', i.e. x f(x) = (zigF[i-1] - zigF[i])/(b - a); x f(x) increases
// on [0, 1] and decreases on [1, inf), so there is at most one such point
// on each side of 1, found by bisection.
func computeZigWedges() (ws [zigLayers]zigWedge) {
	const m = 1 << (31 - zigBits)
	f := func(x float64) float64 { return fmath.Exp(-0.5 * x * x) }
	for i := 1; i < zigLayers; i++ {
		a, b := float64(zigW[i-1]*m), float64(zigW[i]*m)
		if i == 1 {
			a = 0
		}
		fa, fb := zigF[i-1], zigF[i]
		slope := (fa - fb) / (b - a)
		gap := func(x float64) float64 { return (f(x)-fb)/(fa-fb) - (b-x)/(b-a) } // C - L
		var below, above float64
		for _, iv := range [][2]float64{{a, min(b, 1)}, {max(a, 1), b}} {
			lo, hi := iv[0], iv[1]
			if lo >= hi {
				continue
			}
			// g(x) = x f(x) - slope changes sign at most once on [lo, hi].
			g := func(x float64) float64 { return float64(x*f(x)) - slope }
			if (g(lo) > 0) == (g(hi) > 0) {
				continue
			}
			for k := 0; k < 100; k++ {
				mid := float64((lo + hi) / 2)
				if (g(mid) > 0) == (g(lo) > 0) {
					lo = mid
				} else {
					hi = mid
				}
			}
			d := gap(float64((lo + hi) / 2))
			above = max(above, d)
			below = max(below, -d)
		}
		ws[i] = zigWedge{outer: b, invWidth: 1 / (b - a), below: float64(below*(1+1e-6)) + 1e-9, above: float64(above*(1+1e-6)) + 1e-9}
	}
	return ws
}
