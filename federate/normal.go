package federate

import (
	"encoding/binary"
	"math"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/federate/rng"
)

// Context generators of the synthetic instance (SyntheticSpec.ContextGen).
// Neither is used for privacy noise, which always comes from ChaCha8
// streams (math/rand/v2 NormFloat64).
const (
	// ContextsFast draws the Gaussian coordinates of synthetic contexts
	// with a 128-layer ziggurat (Marsaglia & Tsang 2000, the algorithm of
	// math/rand/v2's NormFloat64) fed 32 bits per normal from a PCG-DXSM
	// stream seeded from rng.Derive(key, "silo", i, "contexts"): two
	// normals per 64-bit word, 25-bit signed mantissa per layer (values
	// quantised to about 2e-7), exact ziggurat tail and wedge handling.
	// About 4x cheaper than ContextsChaCha8; the default.
	ContextsFast = "pcg-ziggurat"
	// ContextsChaCha8 draws them with math/rand/v2's NormFloat64 over the
	// ChaCha8 stream rng.New(key, "silo", i, "contexts").
	ContextsChaCha8 = "chacha8"
)

// normalSource fills slices with standard normal variates.
type normalSource interface {
	fill(z []float64)
}

// chachaNormals is ContextsChaCha8.
type chachaNormals struct{ r *rand.Rand }

func (c chachaNormals) fill(z []float64) {
	for j := range z {
		z[j] = c.r.NormFloat64()
	}
}

// Ziggurat tables for 32-bit draws: 7 bits choose the layer, the other 25
// bits (signed) the position in it.
const zigR = 3.442619855899 // start of the right tail

var (
	zigK [128]uint32  // acceptance thresholds on |j|
	zigW [128]float64 // layer widths / 2^24
	zigF [128]float64 // exp(-x_i^2/2)
)

func init() {
	const m = 1 << 24
	dn := zigR
	tn := dn
	const vn = 9.91256303526217e-3
	q := vn / math.Exp(-0.5*dn*dn)
	zigK[0] = uint32(dn / q * m)
	zigK[1] = 0
	zigW[0] = q / m
	zigW[127] = dn / m
	zigF[0] = 1
	zigF[127] = math.Exp(-0.5 * dn * dn)
	for i := 126; i >= 1; i-- {
		dn = math.Sqrt(-2 * math.Log(vn/dn+math.Exp(-0.5*dn*dn)))
		zigK[i+1] = uint32(dn / tn * m)
		tn = dn
		zigF[i] = math.Exp(-0.5 * dn * dn)
		zigW[i] = dn / m
	}
}

// fastNormals is ContextsFast.
type fastNormals struct{ src *rand.PCG }

// newFastNormals seeds a PCG-DXSM generator from the stream key.
func newFastNormals(key rng.Key) *fastNormals {
	return &fastNormals{src: rand.NewPCG(binary.LittleEndian.Uint64(key[0:8]), binary.LittleEndian.Uint64(key[8:16]))}
}

// uniform returns a uniform float64 in (0, 1].
func (f *fastNormals) uniform() float64 {
	return float64(f.src.Uint64()>>11+1) / (1 << 53)
}

// fill writes standard normals into z, consuming one 64-bit word per two
// accepted fast-path draws (plus extra words on the rare slow path).
func (f *fastNormals) fill(z []float64) {
	var word uint64
	half := 0 // 32-bit halves left in word
	for n := 0; n < len(z); {
		if half == 0 {
			word = f.src.Uint64()
			half = 2
		}
		w := uint32(word)
		word >>= 32
		half--
		i := w & 0x7F
		j := int32(w) >> 7 // signed, |j| <= 2^24
		x := float64(j) * zigW[i]
		aj := uint32(j)
		if j < 0 {
			aj = uint32(-j)
		}
		if aj < zigK[i] {
			z[n] = x
			n++
			continue
		}
		if i == 0 {
			// Tail beyond zigR (Marsaglia's method).
			for {
				x = -math.Log(f.uniform()) / zigR
				y := -math.Log(f.uniform())
				if y+y >= x*x {
					break
				}
			}
			if j > 0 {
				z[n] = zigR + x
			} else {
				z[n] = -zigR - x
			}
			n++
			continue
		}
		// Wedge: accept with the exact density.
		if zigF[i]+f.uniform()*(zigF[i-1]-zigF[i]) < math.Exp(-0.5*x*x) {
			z[n] = x
			n++
		}
	}
}

// contextSource fills one silo-round's random synthetic actions.
type contextSource interface {
	// fill writes nb blocks of random actions into the panel x (dimension
	// d = len(theta)) and their mean rewards into mu[:4*nb]: for each
	// action, z holds d-1 standard normals, u = z/||z|| (a uniform unit
	// vector), the learner's view is (u, 1)/sqrt2 and the mean reward is
	// (u, 1) . theta*.
	fill(x, mu []float64, nb int, theta []float64)
}

// invSqrt2 is 1/sqrt2 rounded to float64: the learner's view of the last
// (constant) coordinate, and the scale of the others.
const invSqrt2 = 0.7071067811865476

// normalContexts builds contexts from a normal source, block by block: a
// block's (d-1)*4 normals are drawn coordinate-major (z[j*4+c] is
// coordinate j of lane c), then each lane is normalised:
//
//	ss = sum_j z_j^2   (fused multiply-adds, j ascending from 0)
//	u_j = z_j * (1/sqrt(ss)),  x_j = u_j * invSqrt2,  x_{d-1} = invSqrt2
//	mu = (sum_j u_j theta_j) + theta_{d-1}   (fused multiply-adds)
//
// The padding lanes of the last block are drawn like the others, so the
// stream's consumption depends only on the number of blocks.
type normalContexts struct {
	src normalSource
	z   []float64
}

func (c *normalContexts) fill(x, mu []float64, nb int, theta []float64) {
	const L = panelLanes
	d := len(theta)
	if len(c.z) != (d-1)*L {
		c.z = make([]float64, (d-1)*L)
	}
	z := c.z
	for b := 0; b < nb; b++ {
		c.src.fill(z)
		xb := x[b*L*d : (b+1)*L*d]
		for l := 0; l < L; l++ {
			var ss float64
			for j := 0; j < d-1; j++ {
				ss = math.FMA(z[j*L+l], z[j*L+l], ss)
			}
			inv := 1 / math.Sqrt(ss)
			var m float64
			for j := 0; j < d-1; j++ {
				u := z[j*L+l] * inv
				m = math.FMA(u, theta[j], m)
				xb[j*L+l] = u * invSqrt2
			}
			xb[(d-1)*L+l] = invSqrt2
			mu[b*L+l] = m + theta[d-1]
		}
	}
}
