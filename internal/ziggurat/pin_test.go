package ziggurat

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"testing"

	"github.com/fedbandit/fedbandit/internal/rng"
)

// pinSlowDigest is slowDigest(New(rng.NewKey("pin-slow", 1))): slow on
// draws chosen at and beyond every layer's fast-path threshold (wedges of
// every layer, the base strip and both tails). It was computed with the
// code of commit cd39b4a, before the kernels were optimised, and must not
// change unless the stream is changed deliberately (and says so). The
// fills of whole streams are pinned by federate's TestZigStreamPinned.
const pinSlowDigest = "6e72259ab484702cc57005ca1cb5bcf67f6bb77abb264ae37cc5f2fc5f875e2c"

// slowDigest is the SHA-256 of slow's values on draws of every layer at
// signed positions around and beyond its fast-path threshold (wedge
// points near both edges, base-strip and tail draws of both signs), and
// of the slow-path generator's final state.
func slowDigest(c *Sampler) string {
	const m = 1 << (31 - zigBits)
	h := sha256.New()
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
	var b [8]byte
	for _, f := range v {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(f))
		h.Write(b[:])
	}
	for _, w := range c.slowS {
		binary.LittleEndian.PutUint64(b[:], w)
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestSlowPathPinned checks the slow path against its pinned digest.
// Mutation control: a slow-path generator with one state bit changed has
// another digest.
func TestSlowPathPinned(t *testing.T) {
	if got := slowDigest(New(rng.NewKey("pin-slow", 1))); got != pinSlowDigest {
		t.Errorf("slow-path digest %s, pinned %s", got, pinSlowDigest)
	}
	c := New(rng.NewKey("pin-slow", 1))
	c.slowS[2] ^= 1 << 40
	if slowDigest(c) == pinSlowDigest {
		t.Error("mutation control: a one-bit change of the slow-path state left the digest unchanged")
	}
}
