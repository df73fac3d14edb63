package federate

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
	"testing"

	"github.com/fedbandit/fedbandit/internal/rng"
	"github.com/fedbandit/fedbandit/internal/vec"
)

// The pinned ContextsFast stream. These digests were computed with the
// code of commit cd39b4a, before the contexts kernels were optimised:
// optimisations must leave every fill bit-identical, so they must not
// change. A deliberate change of the stream (new tables, new generator)
// must update them and say so.
// pinFillsDigest is zigStreamDigest(): x and mu of consecutive fills of
// several shapes, and the generators' final states. (The slow path's own
// pinned digest is package ziggurat's TestSlowPathPinned.)
const pinFillsDigest = "c52bce2d0ed07dddb57c0c4d9f2f00a9a14d2357f082c09f4f4514f67e76ffe4"

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
		x := make([]float64, vec.PanelLen(4*sh.nb, sh.d))
		mu := make([]float64, 4*sh.nb)
		for f := 0; f < sh.fills; f++ {
			c.fill(x, mu, sh.nb, theta)
			hashFloats(h, x)
			hashFloats(h, mu)
		}
		lanes, slow := c.s.State()
		hashWords(h, lanes[:])
		hashWords(h, slow[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestZigStreamPinned checks that ContextsFast's output is the pinned
// stream, with each kernel table. Mutation control: a stream whose key
// differs in one bit has another digest.
func TestZigStreamPinned(t *testing.T) {
	for _, k := range allKernels(t) {
		withKernels(k, func() {
			if got := zigStreamDigest(); got != pinFillsDigest {
				t.Errorf("%s: fills digest %s, pinned %s", k.Name, got, pinFillsDigest)
			}
		})
	}
	// Mutation control: the digest sees a one-bit change of the stream's
	// key.
	key := rng.NewKey("pin-mut", 1)
	c := newZigContexts(key, nil)
	key[5] ^= 1 << 4
	d := newZigContexts(key, nil)
	theta := SyntheticTheta(10, 1)
	digest := func(c *zigContexts) string {
		h := sha256.New()
		x, mu := make([]float64, vec.PanelLen(4*23, 10)), make([]float64, 4*23)
		c.fill(x, mu, 23, theta)
		hashFloats(h, x)
		hashFloats(h, mu)
		return hex.EncodeToString(h.Sum(nil))
	}
	if digest(c) == digest(d) {
		t.Error("mutation control: a one-bit change of the key left the digest unchanged")
	}
}
