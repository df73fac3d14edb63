package federate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"

	"github.com/fedbandit/fedbandit/internal/rng"
	"github.com/fedbandit/fedbandit/internal/vec"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// paperSpec is the paper's synthetic instance (protocol.md section 5).
func paperSpec(alg string) Spec {
	return Spec{
		Algorithm: alg, Eps: 1, Delta: 0.1,
		Synthetic: SyntheticSpec{D: 10, K: 100, NoiseVar: 0.25, FixedBasis: true, Seed: 1},
		M:         100, T: 10000, B: 25, Seed: 1,
	}
}

// BenchmarkPaperSynthetic is one full run of the paper's synthetic
// instance (M=100, K=100, d=10, T=10,000, B=25). Target: <= 1.5 s on one
// core. Run with -benchtime=1x -cpu=1.
func BenchmarkPaperSynthetic(b *testing.B) {
	for _, alg := range []string{AlgFedLinUCB, AlgLDP, AlgSDPVec} {
		for _, gen := range []string{ContextsFast, ContextsChaCha8} {
			b.Run(alg+"/"+gen, func(b *testing.B) {
				s := paperSpec(alg)
				s.Synthetic.ContextGen = gen
				c0 := cpuSeconds()
				for i := 0; i < b.N; i++ {
					if _, err := Run(context.Background(), s); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/op")
			})
		}
	}
}

// BenchmarkPaperNoise is one full run of the paper's synthetic instance
// under LDP-FedLinUCB (lazy, exact preset) with each sampler: the
// floating-point Gaussian and the discrete Gaussian (docs/privacy.md, "The
// discrete Gaussian"): M K T/B nodes of 65 entries each, 2.6 million exact
// draws. Run with -benchtime=1x -cpu=1; compare the two as a pair.
func BenchmarkPaperNoise(b *testing.B) {
	for _, noise := range []string{NoiseGaussian, NoiseDiscrete} {
		b.Run(noise, func(b *testing.B) {
			s := paperSpec(AlgLDP)
			s.Lazy, s.Noise = true, noise
			c0 := cpuSeconds()
			for i := 0; i < b.N; i++ {
				if _, err := Run(context.Background(), s); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/op")
		})
	}
}

// mslrShaped builds an LTR instance shaped like MSLR-WEB10K's title
// feature set: nq queries, documents per query drawn from a clipped
// log-normal with mean about 120 in [1, 908], d = 57 unit-norm features
// (the first the 0.01 intercept before normalisation), means in about
// [0, 2], m equal contiguous silos.
func mslrShaped(nq, m, d int) *LTRData {
	r := rng.New(rng.NewKey("bench-ltr", 1))
	theta := make([]float64, d)
	for j := range theta {
		theta[j] = 0.3 * r.NormFloat64()
	}
	data := &LTRData{Name: "mslr-shaped", Dim: d, R: 1, Crs: 0.1}
	docs := 0
	for q := 0; q < nq; q++ {
		n := int(math.Round(math.Exp(4.45 + 0.8*r.NormFloat64())))
		n = max(1, min(908, n))
		docs += n
		qq := LTRQuery{X: make([]float64, 0, n*d), Mu: make([]float64, 0, n)}
		x := make([]float64, d)
		for a := 0; a < n; a++ {
			x[0] = 0.01
			for j := 1; j < d; j++ {
				x[j] = math.Abs(r.NormFloat64())
			}
			nrm := math.Sqrt(dot(x, x))
			qq.Mu = append(qq.Mu, math.Max(0, dot(x, theta)/nrm+0.5))
			for j := range x {
				qq.X = append(qq.X, x[j]/nrm)
			}
		}
		data.Queries = append(data.Queries, qq)
	}
	per := nq / m
	for i := 0; i < m; i++ {
		var own []int
		for q := i * per; q < (i+1)*per; q++ {
			own = append(own, q)
		}
		data.Silos = append(data.Silos, own)
	}
	data.Name = fmt.Sprintf("mslr-shaped: %d queries, %d docs (mean %.1f/query), d=%d", nq, docs, float64(docs)/float64(nq), d)
	return data
}

// BenchmarkLTR is one ltr run shaped like the paper's (M=10, T=25,000,
// B=25, d=57, about 120 documents per query; 2,000 generated queries,
// 200 per silo: the per-round cost depends on documents per query, not on
// the number of queries). Target: <= 20 s on one core.
func BenchmarkLTR(b *testing.B) {
	data := mslrShaped(2000, 10, 57)
	b.Log(data.Name)
	for _, alg := range []string{AlgFedLinUCB, AlgLDP} {
		b.Run(alg, func(b *testing.B) {
			s := Spec{Instance: InstanceLTR, LTR: data, Algorithm: alg, Eps: 1, Delta: 0.1, M: 10, T: 25000, B: 25, Seed: 1}
			c0 := cpuSeconds()
			for i := 0; i < b.N; i++ {
				if _, err := Run(context.Background(), s); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/op")
		})
	}
}

// widthInputs returns k random unit actions of dimension d and a random
// symmetric positive definite A in width form.
func widthInputs(k, d int) (x, a, p, theta []float64) {
	r := rand.New(rand.NewPCG(1, 2))
	x = make([]float64, k*d)
	for i := range x {
		x[i] = r.NormFloat64() / math.Sqrt(float64(d))
	}
	a = make([]float64, d*d)
	for i := 0; i < d; i++ {
		a[i*d+i] = 1
	}
	p = make([]float64, d*(d+1)/2)
	vec.WidthForm(p, a, d)
	g, theta := make([]float64, vec.ScratchLen(d)), make([]float64, d)
	w, u := make([]float64, vec.PackedLen(d)), make([]float64, d) // Learn's Gram and bias, unused
	for n := 0; n < 3*d; n++ {
		vec.Portable().Learn(w, u, p, theta, x[(n%k)*d:(n%k+1)*d], 0, g)
	}
	unpackWidthForm(a, p, d)
	for i := range theta {
		theta[i] = r.NormFloat64()
	}
	return x, a, p, theta
}

// unpackWidthForm writes the full symmetric matrix held in width form p
// into a (the inverse of vec.WidthForm).
func unpackWidthForm(a, p []float64, d int) {
	idx := 0
	for i := 0; i < d; i++ {
		a[i*d+i] = p[idx]
		idx++
		for j := i + 1; j < d; j++ {
			a[i*d+j], a[j*d+i] = p[idx]/2, p[idx]/2
			idx++
		}
	}
}

// BenchmarkWidthKernel measures the dominating kernel: the UCB argmax
// over K actions (x^T A x by the packed symmetric form, d(d+1)/2
// multiply-adds, plus x.theta, d), reported as multiply-adds per second;
// compare BenchmarkDgemmWidths. Shapes: K=100 in one panel at d=10, the
// synthetic instance's two panels (10 fixed actions, 3 blocks, and 90
// random, 23 blocks), and an LTR query of 120 documents at d=57. Kernels:
// go (the Go twin) and asm (the AVX2/FMA kernel, where the CPU has it).
func BenchmarkWidthKernel(b *testing.B) {
	shapes := []struct {
		name   string
		panels []int // actions per panel
		d      int
	}{
		{"K=100/d=10", []int{100}, 10},
		{"K=10+90/d=10", []int{10, 90}, 10},
		{"K=120/d=57", []int{120}, 57},
	}
	kernels := map[string]kernelTable{"go": portableKernels()}
	if asm, ok := asmKernels(); ok {
		kernels["asm"] = asm
	}
	for _, sh := range shapes {
		for _, name := range []string{"go", "asm"} {
			kn, ok := kernels[name]
			if !ok {
				continue
			}
			b.Run(sh.name+"/"+name, func(b *testing.B) {
				k, d := 0, sh.d
				for _, n := range sh.panels {
					k += n
				}
				x, _, p, theta := widthInputs(k, d)
				set := &actionSet{n: k}
				for _, n := range sh.panels {
					pn := panel{x: make([]float64, vec.PanelLen(n, d)), n: n}
					vec.ToPanel(pn.x, x[:n*d], n, d)
					x = x[n*d:]
					set.panels = append(set.panels, pn)
				}
				scores := make([]float64, k+vec.Lanes*len(set.panels))
				saved := kern
				kern = kn
				defer func() { kern = saved }()
				var sink int
				c0 := cpuSeconds()
				for i := 0; i < b.N; i++ {
					sink += argmaxUCB(set, d, theta, p, 1.5, scores)
				}
				madds := float64(k) * float64(d*(d+1)/2+d)
				b.ReportMetric(madds*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gmadd/s")
				b.ReportMetric(madds*float64(b.N)/(cpuSeconds()-c0)/1e9, "Gmadd/cpu-s")
				runtime.KeepAlive(sink)
			})
		}
	}
}

// BenchmarkDgemmWidths computes the same widths with gonum: Y = X A by
// Dgemm (K d^2 multiply-adds) then row dots; the metric counts Dgemm's
// multiply-adds, i.e. what the CPU's linear algebra reaches on this shape.
func BenchmarkDgemmWidths(b *testing.B) {
	for _, c := range [][2]int{{100, 10}, {120, 57}, {1000, 100}} {
		k, d := c[0], c[1]
		b.Run(fmt.Sprintf("K=%d/d=%d", k, d), func(b *testing.B) {
			x, a, _, _ := widthInputs(k, d)
			y := make([]float64, k*d)
			w := make([]float64, k)
			X := blas64.General{Rows: k, Cols: d, Stride: d, Data: x}
			A := blas64.General{Rows: d, Cols: d, Stride: d, Data: a}
			Y := blas64.General{Rows: k, Cols: d, Stride: d, Data: y}
			c0 := cpuSeconds()
			for i := 0; i < b.N; i++ {
				blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, X, A, 0, Y)
				for r := 0; r < k; r++ {
					w[r] = dot(x[r*d:(r+1)*d], y[r*d:(r+1)*d])
				}
			}
			madds := float64(k) * float64(d*d+d)
			b.ReportMetric(madds*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gmadd/s")
			b.ReportMetric(madds*float64(b.N)/(cpuSeconds()-c0)/1e9, "Gmadd/cpu-s")
		})
	}
}

// BenchmarkRunMemory reports the heap held by one run's state (sim) for
// the largest configurations: M=100 silos with d=57, private (trees of
// kappa levels per silo and stream).
func BenchmarkRunMemory(b *testing.B) {
	data := mslrShaped(200, 100, 57)
	for _, c := range []struct {
		name string
		s    Spec
	}{
		{"synthetic-M100-d10-ldp", paperSpec(AlgLDP)},
		{"synthetic-M100-d10-sdp-vec", paperSpec(AlgSDPVec)},
		{"ltr-M100-d57-ldp", Spec{Instance: InstanceLTR, LTR: data, Algorithm: AlgLDP, Eps: 1, Delta: 0.1, M: 100, T: 25000, B: 25, Seed: 1}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var ms0, ms1 runtime.MemStats
			var keep *sim
			for i := 0; i < b.N; i++ {
				runtime.GC()
				runtime.ReadMemStats(&ms0)
				sm := newTestSim(b, c.s, hooks{})
				// Fill every tree level: K syncs of zero data.
				for k := 0; k < sm.cal.K; k++ {
					sm.sync()
				}
				runtime.GC()
				runtime.ReadMemStats(&ms1)
				keep = sm
			}
			b.ReportMetric(float64(ms1.HeapAlloc-ms0.HeapAlloc)/1e6, "MB/run")
			runtime.KeepAlive(keep)
		})
	}
}

// cpuSeconds returns the process's user+system CPU time, a steadier
// measure than wall time on a shared machine.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// BenchmarkPublishedInstance is one full FedLinUCB run on the published
// code's synthetic instance as the shipped sweeps draw it (numpy's
// legacy stream seeded with 2, M=100, K=100, d=10, T=10,000): theta*'s
// walk over every context of the T rounds (walkTheta; a process of the
// shipped sweeps now takes it from knownThetas) and the run (theta*
// computed before), each measured in CPU seconds. Run with
// -benchtime=1x -cpu=1.
func BenchmarkPublishedInstance(b *testing.B) {
	s := paperSpec(AlgFedLinUCB)
	s.Synthetic.ContextGen, s.Synthetic.Seed, s.Synthetic.SharedContexts = ContextsNumPy, 2, true
	y := s.Synthetic
	b.Run("theta", func(b *testing.B) {
		c0 := cpuSeconds()
		for i := 0; i < b.N; i++ {
			walkTheta(uint32(y.Seed), s.T, s.M, y.K, y.D)
		}
		b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/op")
	})
	b.Run("run", func(b *testing.B) {
		publishedTheta(uint32(y.Seed), s.T, s.M, y.K, y.D) // once per process
		c0 := cpuSeconds()
		for i := 0; i < b.N; i++ {
			if _, err := Run(context.Background(), s); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric((cpuSeconds()-c0)/float64(b.N), "cpu-s/op")
	})
}
