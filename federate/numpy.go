package federate

import (
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
// compute it once.
func publishedTheta(seed uint32, t, m, k, d int) []float64 {
	key := [5]int{int(seed), t, m, k, d}
	v, _ := publishedThetas.LoadOrStore(key, &thetaOnce{})
	to := v.(*thetaOnce)
	to.once.Do(func() {
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
		to.theta = theta
	})
	return to.theta
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
