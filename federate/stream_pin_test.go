package federate

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
	"testing"

	"github.com/fedbandit/fedbandit/internal/rng"
)

// The pinned ContextsFast stream. These digests were computed with the
// code of commit cd39b4a, before the contexts kernels were optimised:
// optimisations must leave every fill bit-identical, so they must not
// change. A deliberate change of the stream (new tables, new generator)
// must update them and say so.
const (
	// pinFillsDigest is zigStreamDigest(): x and mu of consecutive fills
	// of several shapes, and the generators' final states.
	pinFillsDigest = "c52bce2d0ed07dddb57c0c4d9f2f00a9a14d2357f082c09f4f4514f67e76ffe4"
	// pinSlowDigest is zigSlowDigest(): slow on draws chosen at and
	// beyond every layer's fast-path threshold (wedges of every layer,
	// the base strip and both tails).
	pinSlowDigest = "6e72259ab484702cc57005ca1cb5bcf67f6bb77abb264ae37cc5f2fc5f875e2c"
)

// hashFloats writes the bits of v to h, little-endian.
func hashFloats(h hash.Hash, v []float64) {
	var b [8]byte
	for _, f := range v {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(f))
		h.Write(b[:])
	}
}

// hashWords writes v to h, little-endian.
func hashWords(h hash.Hash, v []uint64) {
	var b [8]byte
	for _, w := range v {
		binary.LittleEndian.PutUint64(b[:], w)
		h.Write(b[:])
	}
}

// zigStreamDigest is the SHA-256 of the panels x and means mu of
// consecutive fills of one ContextsFast stream per shape (d, nb, fills),
// each stream's final lane and slow-path states after them. The shapes
// cover odd normal counts (a discarded half step), one block, the
// paper's shape (d = 10, 23 blocks; 800 fills, 6.6e5 normals, so about
// 2800 slow-path draws including some 35 tail draws) and a wide one.
func zigStreamDigest() string {
	h := sha256.New()
	for _, sh := range []struct{ d, nb, fills int }{{2, 1, 50}, {3, 5, 40}, {10, 23, 800}, {10, 1, 30}, {33, 7, 40}, {64, 2, 20}} {
		theta := SyntheticTheta(sh.d, uint64(sh.d))
		c := newZigContexts(rng.Derive(rng.NewKey("pin-stream", 1), "silo", sh.d, sh.nb), nil)
		x := make([]float64, panelLen(4*sh.nb, sh.d))
		mu := make([]float64, 4*sh.nb)
		for f := 0; f < sh.fills; f++ {
			c.fill(x, mu, sh.nb, theta)
			hashFloats(h, x)
			hashFloats(h, mu)
		}
		hashWords(h, c.lanes[:])
		hashWords(h, c.slowS[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// zigSlowDigest is the SHA-256 of slow's values on draws of every layer
// at signed positions around and beyond its fast-path threshold (wedge
// points near both edges, base-strip and tail draws of both signs), and
// of the slow-path generator's final state.
func zigSlowDigest() string {
	const m = 1 << (31 - zigBits)
	h := sha256.New()
	c := newZigContexts(rng.NewKey("pin-slow", 1), nil)
	var v []float64
	for i := uint32(0); i < zigLayers; i++ {
		k := int32(zigK[i])
		for _, j := range []int32{k - 1, k, k + 1, k + 7, (k + m) / 2, m - 1} {
			if j < 0 || j >= m {
				continue
			}
			for _, s := range []int32{j, -j, -m} {
				v = append(v, c.slow(uint32(s)<<zigBits|i))
			}
		}
	}
	hashFloats(h, v)
	hashWords(h, c.slowS[:])
	return hex.EncodeToString(h.Sum(nil))
}

// TestZigStreamPinned checks that ContextsFast's output is the pinned
// stream, with each implementation of the kernels. Mutation control: a
// stream with one lane's state word changed by one bit has another
// digest.
func TestZigStreamPinned(t *testing.T) {
	for _, k := range allKernels(t) {
		k.use(func() {
			if got := zigStreamDigest(); got != pinFillsDigest {
				t.Errorf("%s: fills digest %s, pinned %s", k.name, got, pinFillsDigest)
			}
			if got := zigSlowDigest(); got != pinSlowDigest {
				t.Errorf("%s: slow-path digest %s, pinned %s", k.name, got, pinSlowDigest)
			}
		})
	}
	// Mutation control: the digest sees a one-bit change of the stream.
	c := newZigContexts(rng.NewKey("pin-mut", 1), nil)
	d := newZigContexts(rng.NewKey("pin-mut", 1), nil)
	d.lanes[5] ^= 1 << 40
	theta := SyntheticTheta(10, 1)
	digest := func(c *zigContexts) string {
		h := sha256.New()
		x, mu := make([]float64, panelLen(4*23, 10)), make([]float64, 4*23)
		c.fill(x, mu, 23, theta)
		hashFloats(h, x)
		hashFloats(h, mu)
		return hex.EncodeToString(h.Sum(nil))
	}
	if digest(c) == digest(d) {
		t.Error("mutation control: a one-bit change of a lane state left the digest unchanged")
	}
}
