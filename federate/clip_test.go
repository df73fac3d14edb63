package federate

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/fedbandit/fedbandit/internal/stattest"
)

// exactSquaredNorm returns sum_j v_j^2 computed exactly (big.Float with
// enough precision for any float64 squares: every square is a 106-bit
// integer times a power of two in [2^-2148, 2^2048]).
func exactSquaredNorm(v []float64) *big.Float {
	s := new(big.Float).SetPrec(4400)
	for _, x := range v {
		b := new(big.Float).SetPrec(4400).SetFloat64(x)
		s.Add(s, b.Mul(b, b))
	}
	return s
}

// clipCases returns adversarial ClipX inputs: random directions scaled to
// norms within a few ulps of 1 (both sides), then nudged entry by entry;
// equal entries 1/sqrt(d) rounded up; unit vectors and their neighbours;
// huge (squares overflow), tiny, subnormal and mixed magnitudes; NaN and
// Inf entries.
func clipCases() [][]float64 {
	r := rand.New(rand.NewPCG(31, 32))
	var cases [][]float64
	dims := []int{1, 2, 3, 4, 5, 7, 10, 16, 31, 57, 64, 1000}
	for _, d := range dims {
		for trial := 0; trial < 300; trial++ {
			x := make([]float64, d)
			var ss float64
			for j := range x {
				x[j] = r.NormFloat64()
				ss += x[j] * x[j]
			}
			scale := (1 + float64(r.IntN(81)-40)*0x1p-53) / math.Sqrt(ss)
			for j := range x {
				x[j] *= scale
			}
			// Nudge a few entries up by one ulp: exact norms just above 1.
			for n := r.IntN(4); n > 0; n-- {
				j := r.IntN(d)
				x[j] = math.Nextafter(x[j], math.Copysign(math.Inf(1), x[j]))
			}
			cases = append(cases, x)
		}
		eq := make([]float64, d)
		for j := range eq {
			eq[j] = math.Nextafter(1/math.Sqrt(float64(d)), 2)
		}
		cases = append(cases, eq)
		for _, v := range []float64{1, math.Nextafter(1, 2), math.Nextafter(1, 0), -1} {
			e := make([]float64, d)
			e[r.IntN(d)] = v
			cases = append(cases, e)
		}
		special := []float64{
			math.MaxFloat64, -math.MaxFloat64, 1e308, 1e300, 1e160, 1e154, 1, 0.5, 1e-160, 1e-300,
			5e-324, -5e-324, 2.2e-308, 0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1),
		}
		for trial := 0; trial < 100; trial++ {
			x := make([]float64, d)
			for j := range x {
				x[j] = special[r.IntN(len(special))] * (0.5 + r.Float64())
			}
			cases = append(cases, x)
		}
		for _, v := range []float64{math.MaxFloat64, 5e-324, 1e-200} {
			x := make([]float64, d)
			for j := range x {
				x[j] = v
			}
			cases = append(cases, x)
		}
	}
	return cases
}

// TestClipXNormBound: for every adversarial input the exact Euclidean norm
// of ClipX's result is at most 1; NaN and Inf entries become 0; a vector
// whose exact squared norm is below 1 - 2(d+10) 2^-52 comes back
// unchanged, and a scaled one has exact squared norm at least
// 1 - 5(d+10) 2^-52 and keeps its direction (every entry is x_j times one
// positive factor, rounded). Mutation control: without the margin eps the
// bound fails on some input.
func TestClipXNormBound(t *testing.T) {
	one := big.NewFloat(1)
	for n, x := range clipCases() {
		d := len(x)
		dst := make([]float64, d)
		ClipX(dst, x)
		clean := make([]float64, d)
		for j, v := range x {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				clean[j] = v
			}
		}
		name := fmt.Sprintf("case %d (d=%d)", n, d)
		if exactSquaredNorm(dst).Cmp(one) > 0 {
			t.Fatalf("%s: ||ClipX(x)||^2 = %s > 1 for x = %v", name, exactSquaredNorm(dst).Text('g', 30), x)
		}
		in := exactSquaredNorm(clean)
		lo := new(big.Float).SetFloat64(1 - 2*float64(d+10)*0x1p-52)
		if in.Cmp(lo) < 0 {
			if !stattest.SameBits(dst, clean) {
				t.Fatalf("%s: a vector inside the ball changed: %v -> %v", name, clean, dst)
			}
			continue
		}
		floor := new(big.Float).SetFloat64(1 - 5*float64(d+10)*0x1p-52)
		if exactSquaredNorm(dst).Cmp(floor) < 0 {
			t.Fatalf("%s: scaled to squared norm %s, want >= %s", name, exactSquaredNorm(dst).Text('g', 20), floor.Text('g', 20))
		}
		// One factor: the ratios dst_j / clean_j agree within rounding,
		// except where the result is subnormal (the huge path's
		// power-of-two prescaling may underflow).
		var ratio *big.Float
		for j, v := range clean {
			if math.Abs(dst[j]) < 0x1p-1000 {
				continue
			}
			q := new(big.Float).SetPrec(200).Quo(big.NewFloat(dst[j]), big.NewFloat(v))
			if ratio == nil {
				ratio = q
			}
			diff, _ := new(big.Float).Quo(new(big.Float).Sub(q, ratio), ratio).Float64()
			if q.Sign() <= 0 || math.Abs(diff) > 4e-16 {
				t.Fatalf("%s: entry %d scaled by %s, another by %s", name, j, q.Text('g', 20), ratio.Text('g', 20))
			}
		}
	}
}

// TestClipXMutationControl: ClipX without its rounding margin (keep when
// the computed ss <= 1, scale to 1/sqrt(ss)) gives some clipCases input a
// result of exact norm above 1, so TestClipXNormBound has power.
func TestClipXMutationControl(t *testing.T) {
	noMargin := func(dst, x []float64) {
		copy(dst, x)
		ss := sumSquares(dst)
		if ss <= 1 || ss > math.MaxFloat64 {
			return
		}
		s := 1 / math.Sqrt(ss)
		for j, v := range dst {
			dst[j] = v * s
		}
	}
	one := big.NewFloat(1)
	for _, x := range clipCases() {
		if hasNaN(x) || math.IsInf(sumSquares(x), 0) {
			continue
		}
		dst := make([]float64, len(x))
		noMargin(dst, x)
		if exactSquaredNorm(dst).Cmp(one) > 0 {
			return
		}
	}
	t.Error("no clipCases input breaks the bound without the margin: the test has no power")
}

// hasNaN reports whether v holds a NaN.
func hasNaN(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) {
			return true
		}
	}
	return false
}
