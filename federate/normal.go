package federate

import (
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/internal/rng"
	"github.com/fedbandit/fedbandit/internal/vec"
	"github.com/fedbandit/fedbandit/internal/ziggurat"
)

// Context generators of the synthetic instance (SyntheticSpec.ContextGen).
// Neither is used for privacy noise, which always comes from ChaCha8
// streams (math/rand/v2 NormFloat64).
const (
	// ContextsFast draws the Gaussian coordinates of synthetic contexts
	// with a 1024-layer ziggurat on 32-bit draws from four xoshiro256++
	// lanes (zigContexts); the default. Its AVX2 kernels and its portable
	// Go fallback give bit-identical contexts.
	ContextsFast = "xoshiro-ziggurat"
	// ContextsChaCha8 draws them with math/rand/v2's NormFloat64 over the
	// ChaCha8 stream rng.New(key, "silo", i, "contexts"): the slow,
	// trusted reference.
	ContextsChaCha8 = "chacha8"
	// ContextsNumPy is the published code's instance, exactly: numpy's
	// legacy MT19937 stream seeded with the instance seed
	// (np.random.seed), every silo-round's randn(K, d-1) drawn in the
	// published order (round by round, silo by silo) and theta* drawn
	// after the contexts of all T rounds (numpy.go). It needs the fixed
	// basis and shared contexts, K > d and a seed below 2^32; the paper's
	// instance is seed 2.
	ContextsNumPy = "numpy-mt19937"
)

// contextSource fills one silo-round's random synthetic actions.
type contextSource interface {
	// fill writes nb blocks of random actions into the panel x (dimension
	// d = len(theta)) and their mean rewards into mu[:4*nb]: for each
	// action, z holds d-1 standard normals, u = z/||z|| (a uniform unit
	// vector), the learner's view is (u, 1)/sqrt2 and the mean reward is
	// (u, 1) . theta*. The padding lanes of the last block are drawn like
	// the others, so a stream's consumption depends only on nb and d.
	fill(x, mu []float64, nb int, theta []float64)
}

// ctxScratch is the working memory of fill. The context sources of an
// instance's silos share one (their fills never overlap), so that it stays
// in cache from one silo to the next.
type ctxScratch struct {
	z   []float64
	rej []ziggurat.RejStep
}

// buffers returns z of length n and rej of length ziggurat.Steps(n).
func (s *ctxScratch) buffers(n int) ([]float64, []ziggurat.RejStep) {
	if len(s.z) < n {
		s.z = make([]float64, n)
		s.rej = make([]ziggurat.RejStep, ziggurat.Steps(n))
	}
	return s.z[:n], s.rej[:ziggurat.Steps(n)]
}

// chachaContexts is ContextsChaCha8: the fill's normals are drawn in order
// with NormFloat64 (block by block, coordinate-major), then normalized.
type chachaContexts struct {
	r       *rand.Rand
	scratch *ctxScratch
}

func (c *chachaContexts) fill(x, mu []float64, nb int, theta []float64) {
	z, _ := c.scratch.buffers(nb * vec.Lanes * (len(theta) - 1))
	for i := range z {
		z[i] = c.r.NormFloat64()
	}
	kern.Normalize(x, mu, z, nb, theta)
}

// zigContexts is ContextsFast: the silo's normals come from a
// ziggurat.Sampler (four xoshiro256++ lanes and a 1024-layer ziggurat; see
// package ziggurat), in order, and are normalized by the kernel table's
// Normalize. A fill of nb blocks draws ziggurat.Steps(n) steps for its
// n = nb*4*(d-1) normals (the extra draws of a last half step are
// discarded), z being the normals in order (so block b's coordinate j of
// lane l is normal b*4*(d-1) + 4j + l).
type zigContexts struct {
	s       *ziggurat.Sampler
	scratch *ctxScratch
}

// newZigContexts seeds the sampler from the stream key
// (ziggurat.New). Fills use scratch (a fresh one if nil).
func newZigContexts(key rng.Key, scratch *ctxScratch) *zigContexts {
	if scratch == nil {
		scratch = &ctxScratch{}
	}
	return &zigContexts{s: ziggurat.New(key), scratch: scratch}
}

func (c *zigContexts) fill(x, mu []float64, nb int, theta []float64) {
	n := nb * vec.Lanes * (len(theta) - 1)
	z, rej := c.scratch.buffers(8 * ziggurat.Steps(n))
	c.s.Fill(z[:n], rej, kern.zig)
	kern.Normalize(x, mu, z[:n], nb, theta)
}
