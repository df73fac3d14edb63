package vec

import (
	"math"
	"testing"

	"github.com/fedbandit/fedbandit/internal/rng"
)

// TestNormalizeMatchesGo checks Normalize's assembly kernel against
// normalizeGo bit for bit on normals spread over many magnitudes (so that
// rounding differences would show), d = 2..64.
func TestNormalizeMatchesGo(t *testing.T) {
	asm, ok := Assembly()
	if !ok {
		t.Skip("no assembly kernels on this CPU")
	}
	r := rng.New(rng.NewKey("test-normalize", 1))
	for d := 2; d <= 64; d++ {
		for _, nb := range []int{1, 3, 8} {
			z := make([]float64, nb*4*(d-1))
			for i := range z {
				z[i] = r.NormFloat64() * math.Exp(4*r.NormFloat64())
			}
			theta := make([]float64, d)
			for i := range theta {
				theta[i] = r.NormFloat64()
			}
			x1, x2 := make([]float64, nb*4*d), make([]float64, nb*4*d)
			m1, m2 := make([]float64, nb*4), make([]float64, nb*4)
			normalizeGo(x1, m1, z, nb, theta)
			asm.Normalize(x2, m2, z, nb, theta)
			for i := range x1 {
				if math.Float64bits(x1[i]) != math.Float64bits(x2[i]) {
					t.Fatalf("d=%d nb=%d: x[%d] = %v vs %v", d, nb, i, x1[i], x2[i])
				}
			}
			for i := range m1 {
				if math.Float64bits(m1[i]) != math.Float64bits(m2[i]) {
					t.Fatalf("d=%d nb=%d: mu[%d] = %v vs %v", d, nb, i, m1[i], m2[i])
				}
			}
		}
	}
}

// BenchmarkNormalize measures Normalize on one paper silo-round of
// contexts (828 normals: 23 blocks of d = 10), per normal.
func BenchmarkNormalize(b *testing.B) {
	const nb, d = 23, 10
	const n = nb * 4 * (d - 1)
	r := rng.New(rng.NewKey("bench", 1))
	z, theta := make([]float64, n), make([]float64, d)
	for i := range z {
		z[i] = r.NormFloat64()
	}
	for i := range theta {
		theta[i] = r.NormFloat64()
	}
	x, mu := make([]float64, nb*4*d), make([]float64, nb*4)
	ks := []Kernels{Portable()}
	if k, ok := Assembly(); ok {
		ks = append(ks, k)
	}
	for _, k := range ks {
		b.Run(k.Name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				k.Normalize(x, mu, z, nb, theta)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/normal")
		})
	}
}
