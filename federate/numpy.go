package federate

import (
	"math"
	"sync"

	"github.com/fedbandit/fedbandit/internal/numpyrand"
	"github.com/fedbandit/fedbandit/internal/vec"
)

// publishedTheta is theta* of the published code's synthetic instance
// (synth_env in Alphasxd/DPLCB, Environments.py): np.random.seed(seed),
// then for every round t < T and silo i < M, randn(K, d-1) for the
// contexts, and after all of them theta = randn(d-1), scaled by
// 0.5/||theta|| (numpy's norm, numpyrand.RowNorm), with 0.5 appended. Drawing
// the contexts costs T M K (d-1) normals, so the result is cached per
// (seed, T, M, K, d) for the process: concurrent runs of one instance
// compute it once; the instance of the shipped sweeps is not computed at
// all (knownThetas).
func publishedTheta(seed uint32, t, m, k, d int) []float64 {
	key := [5]int{int(seed), t, m, k, d}
	v, _ := publishedThetas.LoadOrStore(key, &thetaOnce{})
	to := v.(*thetaOnce)
	to.once.Do(func() {
		if bits, ok := knownThetas[key]; ok {
			to.theta = make([]float64, len(bits))
			for j, b := range bits {
				to.theta[j] = math.Float64frombits(b)
			}
			return
		}
		to.theta = walkTheta(seed, t, m, k, d)
	})
	return to.theta
}

// walkTheta computes publishedTheta by walking the stream.
func walkTheta(seed uint32, t, m, k, d int) []float64 {
	r := numpyrand.New(seed)
	r.Skip(t * m * k * (d - 1))
	theta := make([]float64, d)
	for j := 0; j < d-1; j++ {
		theta[j] = r.Gauss()
	}
	scale := 0.5 / numpyrand.RowNorm(theta[:d-1])
	for j := 0; j < d-1; j++ {
		theta[j] *= scale
	}
	theta[d-1] = 0.5
	return theta
}

// knownThetas are publishedTheta's results, as bits, for the instance of
// every shipped sweep on the published instance (sweeps/fig2a, fig2b,
// fig3a, fig3b, published.toml: seed 2, T = 10,000, M = 100, K = 100,
// d = 10), keyed as publishedThetas. SOURCE: walkTheta's output, equal bit
// for bit to numpy's theta* of that instance (testdata's paper case);
// TestKnownThetas recomputes each by the walk and compares both. It spares
// each process the walk over 9e8 normals (2.4 s of CPU).
var knownThetas = map[[5]int][]uint64{
	{2, 10000, 100, 100, 10}: {
		0xbfc9fe83af401fe4, 0x3f98a59bb6b14984, 0x3fa10b9c5c279469, 0x3fc1c62a40e3fe0b, 0xbfb41ddf8f16b13d,
		0xbfcf14ac8929c963, 0xbf6a33b1ed721bad, 0xbfcd6a6c5741dfb5, 0x3fd0e9896d7536f5, 0x3fe0000000000000,
	},
}

type thetaOnce struct {
	once  sync.Once
	theta []float64
}

var publishedThetas sync.Map // [5]int -> *thetaOnce

// numpyContexts are the published code's contexts: one numpy stream for
// every silo, drawn round by round and silo by silo in order (the
// simulator asks silo 0, 1, ..., M-1 every round, the order of synth_env's
// loops). For each silo-round it draws randn(K, d-1) (row by row), drops
// the first nFixed rows (the published code overwrites them with its fixed
// basis actions) and turns each remaining row z into u = z / ||z||
// (numpy's division by numpy's norm), the learner's view (u, 1)/sqrt2
// (u_j * vec.InvSqrt2, as the other generators) and the mean (u, 1) . theta*.
type numpyContexts struct {
	r       *numpyrand.MT
	k, skip int       // K rows per silo-round, the first skip dropped
	z       []float64 // the kept rows' normals (grown as needed)
}

func (c *numpyContexts) fill(x, mu []float64, nb int, theta []float64) {
	d := len(theta)
	n := c.k - c.skip
	if len(c.z) < n*(d-1) {
		c.z = make([]float64, n*(d-1))
	}
	c.r.Skip(c.skip * (d - 1))
	c.r.Fill(c.z[:n*(d-1)])
	for a := 0; a < 4*nb; a++ {
		b, l := a/vec.Lanes, a%vec.Lanes
		blk := x[b*vec.Lanes*d : (b+1)*vec.Lanes*d]
		if a >= n {
			// Padding lanes of the last block: a copy of the first
			// action, never chosen (argmax looks at the first n only).
			for j := 0; j < d; j++ {
				blk[j*vec.Lanes+l] = x[j*vec.Lanes]
			}
			mu[a] = mu[0]
			continue
		}
		z := c.z[a*(d-1) : (a+1)*(d-1)]
		nrm := numpyrand.RowNorm(z)
		m := theta[d-1]
		for j, v := range z {
			u := v / nrm
			blk[j*vec.Lanes+l] = u * vec.InvSqrt2
			m += float64(u * theta[j])
		}
		blk[(d-1)*vec.Lanes+l] = vec.InvSqrt2
		mu[a] = m
	}
}
