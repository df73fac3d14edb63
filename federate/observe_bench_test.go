package federate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedbandit/fedbandit/internal/vec"
)

// observeInputs returns n observations of dimension d: features with
// norms spread around 1 (a quarter longer than 1, so that ClipX scales
// them) and rewards in [0, 1].
func observeInputs(n, d int) (xs [][]float64, ys []float64) {
	r := rand.New(rand.NewPCG(uint64(d), 77))
	for k := 0; k < n; k++ {
		x := make([]float64, d)
		for j := range x {
			x[j] = r.NormFloat64() / math.Sqrt(float64(d))
		}
		s := 0.5 + 0.7*r.Float64()
		var ss float64
		for _, v := range x {
			ss += v * v
		}
		for j := range x {
			x[j] *= s / math.Sqrt(ss)
		}
		xs = append(xs, x)
		ys = append(ys, r.Float64())
	}
	return xs, ys
}

// BenchmarkObserve measures the per-observation learner path of a run,
// (*sim).observe of the eager learner (ClipX, ClipY, W += x x^T, U += x y
// and the recursive least-squares step), at the paper's synthetic d = 10
// and the LTR d = 57, in ns per observation. As in a run, consecutive
// observations go to different silos (M = 100, in turn), so that a silo's
// state is in L2, not L1, and no observation waits for the previous one's
// stores to its state.
func BenchmarkObserve(b *testing.B) {
	for _, d := range []int{10, 57} {
		xs, ys := observeInputs(256, d)
		s := smallSpec(AlgFedLinUCB)
		s.Synthetic.D = d
		s.M = benchSilos
		b.Run(fmt.Sprintf("observe/d=%d", d), func(b *testing.B) {
			sm := newTestSim(b, s, hooks{})
			for i := 0; i < b.N; i++ {
				k := i % len(xs)
				sm.observe(i%benchSilos, xs[k], ys[k])
			}
		})
	}
}

// benchSilos is the number of silos the observe benchmarks cycle through.
const benchSilos = 100

// BenchmarkObserveParts measures the pieces of observe on clipped
// features, silos in turn as in BenchmarkObserve: Learn (AddObs plus the
// recursive least-squares step; go is the Go twin, dispatched the kernel
// table's, the assembly kernel where the CPU has it), the lazy learner's
// AddObs alone, and ClipX
// (on unclipped features).
func BenchmarkObserveParts(b *testing.B) {
	for _, d := range []int{10, 57} {
		raw, ys := observeInputs(256, d)
		xs := make([][]float64, len(raw))
		for k, x := range raw {
			xs[k] = make([]float64, d)
			ClipX(xs[k], x)
		}
		s := smallSpec(AlgFedLinUCB)
		s.Synthetic.D = d
		s.M = benchSilos
		for _, k := range []struct {
			name string
			f    func(w, u, p, theta, x []float64, y float64, g []float64) float64
		}{{"go", vec.Portable().Learn}, {"dispatched", kern.Learn}} {
			b.Run(fmt.Sprintf("learn/%s/d=%d", k.name, d), func(b *testing.B) {
				sm := newTestSim(b, s, hooks{})
				el := eager(b, sm)
				for i := 0; i < b.N; i++ {
					n, j := i%len(xs), i%benchSilos
					bs := &sm.silos[j].batch
					k.f(bs.w, bs.u, el.p[j], el.theta[j], xs[n], ys[n], el.g)
				}
			})
		}
		b.Run(fmt.Sprintf("addObs/d=%d", d), func(b *testing.B) {
			sm := newTestSim(b, s, hooks{})
			for i := 0; i < b.N; i++ {
				n, bs := i%len(xs), &sm.silos[i%benchSilos].batch
				kern.AddObs(bs.w, bs.u, xs[n], ys[n])
			}
		})
		b.Run(fmt.Sprintf("clipX/d=%d", d), func(b *testing.B) {
			dst := make([]float64, d)
			for i := 0; i < b.N; i++ {
				ClipX(dst, raw[i%len(raw)])
			}
		})
	}
}
