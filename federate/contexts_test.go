package federate

import (
	"fmt"
	"math"
	"testing"

	"github.com/fedbandit/fedbandit/internal/rng"
	"github.com/fedbandit/fedbandit/internal/stattest"
	"github.com/fedbandit/fedbandit/internal/vec"
	"github.com/fedbandit/fedbandit/internal/ziggurat"
)

// TestFastDirections checks that ContextsFast's directions u (the learner's
// view x_j = u_j/sqrt2, j < d-1) are uniform on the sphere S^{d-2} for
// d = 10, on 2^17 actions: E[u_j] = 0, E[u_j^2] = 1/(d-1), E[u_j u_k] = 0
// (z-tests with the exact variances of the uniform law, false-alarm rate
// 1e-5 each, 54 checks), and u_0 follows its law, density proportional to
// (1 - u^2)^3 (KS, alpha = 1e-6). Directions from normals with coordinate
// 0 scaled by 1.05 fail.
func TestFastDirections(t *testing.T) {
	const d = 10
	const nb = 1 << 15
	theta := SyntheticTheta(d, 1)
	x := make([]float64, vec.PanelLen(4*nb, d))
	mu := make([]float64, 4*nb)
	rows := func() [][]float64 {
		p := panel{x: x, n: 4 * nb}
		out := make([][]float64, 4*nb)
		for a := range out {
			row := make([]float64, d)
			p.row(row, a)
			for j := range row {
				row[j] *= math.Sqrt2
			}
			out[a] = row[:d-1]
		}
		return out
	}
	newZigContexts(rng.NewKey("test-dirs", 1), nil).fill(x, mu, nb, theta)
	if err := checkDirections(rows()); err != nil {
		t.Fatal(err)
	}
	// Mutation control: an anisotropic Gaussian.
	z := make([]float64, nb*4*(d-1))
	newZigContexts(rng.NewKey("test-dirs", 2), nil).s.Fill(z, make([]ziggurat.RejStep, ziggurat.Steps(len(z))), kern.zig)
	for b := 0; b < nb; b++ {
		for l := 0; l < 4; l++ {
			z[b*4*(d-1)+l] *= 1.05
		}
	}
	kern.Normalize(x, mu, z, nb, theta)
	if err := checkDirections(rows()); err == nil {
		t.Error("mutation control: anisotropic directions passed")
	}
}

// checkDirections tests that the unit vectors u (dimension n) are uniform
// on the sphere; see TestFastDirections.
func checkDirections(u [][]float64) error {
	n := len(u[0])
	nf, cnt := float64(n), float64(len(u))
	for j := 0; j < n; j++ {
		for k := j; k < n; k++ {
			var s float64
			for _, v := range u {
				s += v[j] * v[k]
			}
			want, variance := 0.0, 1/(nf*(nf+2)) // E[u_j^2 u_k^2] for j != k
			if j == k {
				want, variance = 1/nf, 3/(nf*(nf+2))-1/(nf*nf)
			}
			if zz := (s/cnt - want) / math.Sqrt(variance/cnt); math.Abs(zz) > z {
				return fmt.Errorf("E[u_%d u_%d] = %.5f, want %.5f (z = %.1f)", j, k, s/cnt, want, zz)
			}
		}
		var s float64
		for _, v := range u {
			s += v[j]
		}
		if zz := s / cnt / math.Sqrt(1/nf/cnt); math.Abs(zz) > z {
			return fmt.Errorf("E[u_%d] = %.5f (z = %.1f)", j, s/cnt, zz)
		}
	}
	if n != 9 {
		return nil
	}
	u0 := make([]float64, len(u))
	for a, v := range u {
		u0[a] = v[0]
	}
	// P(u_0 <= x) = 1/2 + (35/32)(x - x^3 + 3x^5/5 - x^7/7) on S^8.
	return stattest.KS(u0, func(x float64) float64 {
		x2 := x * x
		return 0.5 + 35.0/32*x*(1-x2+3*x2*x2/5-x2*x2*x2/7)
	})
}

// TestSyntheticInstance checks the synthetic instance against its
// definition: learner views have unit norm, raw contexts (z/||z||, 1) give
// means x.theta* in [0, 1], theta* = (0.5 u, 0.5) with ||u|| = 1, the
// fixed basis actions come first, and the mean of a random action's
// reward is 0.5 (E[u.v] = 0) for both generators.
func TestSyntheticInstance(t *testing.T) {
	for _, gen := range []string{ContextsFast, ContextsChaCha8} {
		s := Spec{Synthetic: SyntheticSpec{D: 6, K: 50, NoiseVar: 0.25, FixedBasis: true, Seed: 4, ContextGen: gen}, M: 2, T: 10, B: 1, Algorithm: AlgFedLinUCB}.WithDefaults()
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		in := newSynthetic(s, RunKey(1))
		th := in.theta
		var tn float64
		for _, v := range th[:5] {
			tn += v * v
		}
		if math.Abs(tn-0.25) > 1e-12 || th[5] != 0.5 {
			t.Fatalf("theta* = %v", th)
		}
		var sum, cnt float64
		for round := 0; round < 2000; round++ {
			set := in.next(round % 2)
			x, mu := rowsOf(set, 6), set.mu
			for a := 0; a < 50; a++ {
				row := x[a*6 : (a+1)*6]
				if nrm := math.Sqrt(dot(row, row)); math.Abs(nrm-1) > 1e-12 {
					t.Fatalf("learner view norm %v", nrm)
				}
				if mu[a] < -1e-12 || mu[a] > 1+1e-12 {
					t.Fatalf("mean %v outside [0, 1]", mu[a])
				}
				if a < 6 {
					raw := make([]float64, 6)
					raw[a], raw[5] = 1, 1
					if math.Abs(mu[a]-dot(raw, th)) > 1e-15 {
						t.Fatalf("fixed action %d: mean %v, want %v", a, mu[a], dot(raw, th))
					}
					continue
				}
				// The raw context is row * sqrt2 (||raw||^2 = 2).
				raw := make([]float64, 6)
				for j := range raw {
					raw[j] = row[j] * math.Sqrt2
				}
				if math.Abs(mu[a]-dot(raw, th)) > 1e-12 {
					t.Fatalf("mean %v, raw x.theta %v", mu[a], dot(raw, th))
				}
				sum += mu[a]
				cnt++
			}
		}
		// u.v for u uniform on S^4 has variance 1/5: mean's sd 0.5*sqrt(0.2/cnt).
		if m := sum / cnt; math.Abs(m-0.5) > z*0.5*math.Sqrt(0.2/cnt) {
			t.Fatalf("%s: mean reward %v, want 0.5", gen, m)
		}
	}
}

// BenchmarkContexts measures one silo-round of the paper's synthetic
// contexts (d = 10, 90 random actions = 23 blocks): drawing the normals,
// normalising, writing the panel and the means. ns/normal counts every
// normal drawn (padding lanes included: 23*4*9 = 828 per silo-round);
// cpu-ns/normal is the same in process CPU time (steadier on a shared
// machine) and cpu-s/run the CPU cost of the 1e6 silo-rounds of one paper
// run.
func BenchmarkContexts(b *testing.B) {
	for _, gen := range []string{ContextsFast, ContextsChaCha8} {
		for _, k := range allKernels(b) {
			b.Run(gen+"/"+k.Name, func(b *testing.B) {
				withKernels(k, func() {
					s := paperSpec(AlgFedLinUCB)
					s.Synthetic.ContextGen = gen
					s = s.WithDefaults()
					in := newSynthetic(s, RunKey(1))
					normals := float64(in.random.blocks() * vec.Lanes * (in.d - 1))
					b.ResetTimer()
					c0 := cpuSeconds()
					for i := 0; i < b.N; i++ {
						in.next(i % s.M)
					}
					ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
					cpu := (cpuSeconds() - c0) * 1e9 / float64(b.N)
					b.ReportMetric(ns/normals, "ns/normal")
					b.ReportMetric(cpu/normals, "cpu-ns/normal")
					b.ReportMetric(cpu*1e6/1e9, "cpu-s/run")
				})
			})
		}
	}
}
