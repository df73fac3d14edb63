// Package rng derives independent, reproducible random streams from a run's
// identity.
//
// Every random component of a simulation (contexts, reward noise, each silo's
// privacy noise per stream, shuffling, ...) draws from its own ChaCha8
// generator whose 32-byte seed is SHA-256 over a domain-separated encoding of
// a root key and a list of labels. Streams therefore never depend on
// goroutine scheduling, worker count or the order in which they are created,
// and the global math/rand generator is never used.
package rng

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
)

// domain separates this package's derivations from any other SHA-256 use.
const domain = "fedbandit/rng/v1"

// Key is the root of a family of streams, usually derived from a run's
// identity (for example the hash of its full specification).
type Key [32]byte

// NewKey returns the key for a root label and a seed, e.g.
// NewKey("run", 7) or NewKey("instance", instanceSeed).
func NewKey(label string, seed uint64) Key {
	return Derive(Key{}, label, seed)
}

// Derive returns the seed of the child stream named by labels under parent.
// Labels may be strings, signed or unsigned integers; each is encoded with its
// type and length so that ("ab","c") and ("a","bc") give different keys.
func Derive(parent Key, labels ...any) Key {
	h := sha256.New()
	h.Write([]byte(domain))
	h.Write(parent[:])
	var buf [9]byte
	for _, l := range labels {
		switch v := l.(type) {
		case string:
			buf[0] = 's'
			binary.LittleEndian.PutUint64(buf[1:], uint64(len(v)))
			h.Write(buf[:])
			h.Write([]byte(v))
		case int:
			buf[0] = 'i'
			binary.LittleEndian.PutUint64(buf[1:], uint64(int64(v)))
			h.Write(buf[:])
		case int64:
			buf[0] = 'i'
			binary.LittleEndian.PutUint64(buf[1:], uint64(v))
			h.Write(buf[:])
		case uint64:
			buf[0] = 'u'
			binary.LittleEndian.PutUint64(buf[1:], v)
			h.Write(buf[:])
		case Key:
			buf[0] = 'k'
			h.Write(buf[:1])
			h.Write(v[:])
		default:
			panic(fmt.Sprintf("rng.Derive: unsupported label type %T", l))
		}
	}
	var k Key
	copy(k[:], h.Sum(nil))
	return k
}

// New returns a generator for the stream named by labels under parent.
func New(parent Key, labels ...any) *rand.Rand {
	return rand.New(rand.NewChaCha8(Derive(parent, labels...)))
}

// Source returns the raw ChaCha8 source of a stream (its state can be saved
// with MarshalBinary for checkpoints).
func Source(parent Key, labels ...any) *rand.ChaCha8 {
	return rand.NewChaCha8(Derive(parent, labels...))
}

// String renders a key in hex, for logs and manifests.
func (k Key) String() string { return fmt.Sprintf("%x", k[:]) }
