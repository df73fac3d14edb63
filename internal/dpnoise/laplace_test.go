package dpnoise

import (
	"math"
	"testing"
)

// dlapPMF is P(y) = (1-b)/(1+b) b^|y|, b = exp(-1/scale).
func dlapPMF(scale float64) func(int64) float64 {
	b := math.Exp(-1 / scale)
	return func(y int64) float64 { return (1 - b) / (1 + b) * math.Pow(b, math.Abs(float64(y))) }
}

// Mutation controls (run 2026-11-25): accepting (negative, 0) in
// DiscreteLaplace (0 counted twice) fails the chi-square (5730 > 42.7 at
// scale 1/2) and the variance; GeometricExp returning (V t + U)/s rounded
// up fails the geometric test (7236 > 83.6).
func TestDiscreteLaplace(t *testing.T) {
	const n = 100000
	for _, c := range []struct{ num, den uint64 }{{1, 2}, {3, 1}, {21, 2}, {1000, 7}} {
		scale := float64(c.num) / float64(c.den)
		src := source("dlap")
		counts := map[int64]int{}
		xs := make([]float64, n)
		for i := range xs {
			y := DiscreteLaplace(src, c.num, c.den)
			counts[y]++
			xs[i] = float64(y)
		}
		hi := int64(30*scale) + 5
		chiSquare(t, "dlap", counts, n, dlapPMF(scale), -hi, hi)
		b := math.Exp(-1 / scale)
		v := 2 * b / ((1 - b) * (1 - b))
		m4 := 2 * b * (1 + 10*b + b*b) / math.Pow(1-b, 4)
		meanVar(t, "dlap moments", xs, 0, v, m4)
	}
}

func TestGeometricExp(t *testing.T) {
	const n = 100000
	for _, c := range []struct{ s, t uint64 }{{1, 1}, {2, 7}, {5, 3}} {
		src := source("geom")
		counts := map[int64]int{}
		for range n {
			counts[int64(GeometricExp(src, c.s, c.t))]++
		}
		q := math.Exp(-float64(c.s) / float64(c.t))
		chiSquare(t, "geometric", counts, n, func(k int64) float64 {
			if k < 0 {
				return 0
			}
			return (1 - q) * math.Pow(q, float64(k))
		}, 0, 200)
	}
}
