package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestArgmaxFirst: the first maximum, ties to the lowest index, NaN
// entries never chosen unless v[0] is NaN (then 0), -0 and +0 equal.
func TestArgmaxFirst(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		v    []float64
		want int
	}{
		{[]float64{1}, 0},
		{[]float64{1, 3, 2, 3}, 1},
		{[]float64{-inf, -inf}, 0},
		{[]float64{0, math.Copysign(0, -1), 1e-300}, 2},
		{[]float64{math.Copysign(0, -1), 0}, 0},
		{[]float64{1, nan, 2, nan}, 2},
		{[]float64{nan, 5, 7}, 0},
		{[]float64{-1, inf, nan, inf}, 1},
	} {
		for _, k := range []Kernels{Portable(), Best()} {
			if got := k.ArgmaxFirst(c.v); got != c.want {
				t.Errorf("%s: ArgmaxFirst(%v) = %d, want %d", k.Name, c.v, got, c.want)
			}
		}
	}
}

// TestArgmaxFirstMatchesGo: Best's search (SIMD where the CPU has AVX2) agrees with argmaxFirstGo on every length from 1 to 70 with
// ties, signed zeros, infinities and NaNs at every position.
func TestArgmaxFirstMatchesGo(t *testing.T) {
	argmaxFirst := Best().ArgmaxFirst
	r := rand.New(rand.NewPCG(3, 4))
	pool := []float64{0, math.Copysign(0, -1), 1, -1, 2, math.Inf(1), math.Inf(-1), math.NaN(), 1e-300, -5}
	for n := 1; n <= 70; n++ {
		for trial := 0; trial < 300; trial++ {
			v := make([]float64, n)
			for i := range v {
				switch trial % 3 {
				case 0:
					v[i] = r.NormFloat64()
				case 1:
					v[i] = pool[r.IntN(len(pool))]
				default:
					v[i] = pool[r.IntN(5)] // many ties, no NaN
				}
			}
			if got, want := argmaxFirst(v), argmaxFirstGo(v); got != want {
				t.Fatalf("n=%d: argmaxFirst(%v) = %d, argmaxFirstGo = %d", n, v, got, want)
			}
		}
	}
}
