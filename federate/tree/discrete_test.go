package tree

import (
	"math"
	"math/rand/v2"
	"testing"
)

// dgMoments returns the exact variance and fourth moment of the discrete
// Gaussian of variance parameter s2 on the integers (its pmf summed to 40
// standard deviations).
func dgMoments(s2 float64) (v, m4 float64) {
	var z float64
	lim := int(40*math.Sqrt(s2)) + 10
	for y := -lim; y <= lim; y++ {
		p := math.Exp(-float64(y*y) / (2 * s2))
		z += p
		v += float64(y*y) * p
		m4 += float64(y*y*y*y) * p
	}
	return v / z, m4 / z
}

// discreteVarianceZ draws n node entries from a Discrete of scale std on
// grid gamma and returns the z-score of their sample variance (in grid
// units) against the exact variance of DG(want), and whether every draw
// lay exactly on the grid.
func discreteVarianceZ(t *testing.T, d *Discrete, want float64, n int) (z float64, onGrid bool) {
	t.Helper()
	dst := make([]float64, len(d.Var))
	var s2 float64
	onGrid = true
	for i := 0; i < n; i += len(dst) {
		d.Fill(dst, i+1, 0)
		onGrid = onGrid && OnGrid(dst, d.Gamma)
		for _, x := range dst {
			q := x / d.Gamma
			s2 += q * q
		}
	}
	n = (n + len(dst) - 1) / len(dst) * len(dst)
	v, m4 := dgMoments(want)
	return (s2/float64(n) - v) / math.Sqrt((m4-v*v)/float64(n)), onGrid
}

// TestDiscreteNoise: every draw is an exact multiple of the grid (T9's
// grid alignment), and the variance of the draws is the discrete
// Gaussian's exact variance (z-test on the sample second moment, mean
// zero by symmetry: |z| < 4.42 has a false-alarm rate of 1e-5). The
// mutation control, the noise at half the variance, is caught.
func TestDiscreteNoise(t *testing.T) {
	gamma := 0x1p-3
	// std/gamma = 2.5 and 2.5/sqrt 2: Var = ceil(6.25)+1 = 8 and
	// ceil(3.125)+1 = 5.
	std := []float64{2.5 * gamma, 2.5 * gamma / math.Sqrt2}
	d := NewDiscrete(rand.NewChaCha8([32]byte{7}), std, gamma)
	if d.Var[0] != 8 || d.Var[1] != 5 {
		t.Fatalf("Var = %v, want [8 5]", d.Var)
	}
	// Entry 0 alone, then entry 1 alone.
	for e, want := range []float64{8, 5} {
		one := &Discrete{R: rand.NewChaCha8([32]byte{byte(e)}), Gamma: gamma, Var: []uint64{d.Var[e]}}
		z, ok := discreteVarianceZ(t, one, want, 200000)
		if !ok {
			t.Errorf("entry %d: a draw off the grid", e)
		}
		if math.Abs(z) > 4.42 {
			t.Errorf("entry %d: variance z = %.2f against DG(%v)", e, z, want)
		}
		half := &Discrete{R: rand.NewChaCha8([32]byte{byte(e)}), Gamma: gamma, Var: []uint64{d.Var[e] / 2}}
		if z, _ := discreteVarianceZ(t, half, want, 200000); math.Abs(z) <= 4.42 {
			t.Errorf("entry %d: halved variance not caught (z = %.2f)", e, z)
		}
	}
	// At the accountant's grids the variance parameter is (sigma/gamma)^2
	// rounded up: the draws' variance in sigma^2 units is 1 within
	// sampling error (exact variance = parameter - O(exp(-2 pi^2 s2))).
	sigma := 3.7
	g := math.Ldexp(1, -19) // sigma/g in [2^20, 2^21)
	big := NewDiscrete(rand.NewChaCha8([32]byte{9}), []float64{sigma, sigma / math.Sqrt2}, g)
	if w := (sigma / g) * (sigma / g); float64(big.Var[0]) < w || float64(big.Var[0]) > w+2 || float64(big.Var[1]) < w/2 {
		t.Errorf("Var %v for (sigma/gamma)^2 = %v", big.Var, w)
	}
	dst := make([]float64, 2)
	var s0, s1 float64
	const n = 50000
	for i := 0; i < n; i++ {
		big.Fill(dst, i+1, 0)
		if !OnGrid(dst, g) {
			t.Fatalf("draw %v off the grid %v", dst, g)
		}
		s0 += dst[0] * dst[0]
		s1 += dst[1] * dst[1]
	}
	// Var of a sample variance of a near-Gaussian: 2 sigma^4 / n.
	for e, got := range []float64{s0 / n / (sigma * sigma), 2 * s1 / n / (sigma * sigma)} {
		if z := (got - 1) / math.Sqrt(2.0/n); math.Abs(z) > 4.42 {
			t.Errorf("entry %d: variance / sigma_e^2 = %v (z = %.2f)", e, got, z)
		}
	}
}

// TestOnGrid: the grid check itself.
func TestOnGrid(t *testing.T) {
	g := 0x1p-4
	if !OnGrid([]float64{0, 3 * g, -17 * g, 0x1p40 * g}, g) {
		t.Error("grid values rejected")
	}
	for _, x := range []float64{g / 2, 3*g + 0x1p-30, 0x1p52 * g, math.NaN(), math.Inf(1)} {
		if OnGrid([]float64{x}, g) {
			t.Errorf("%v accepted on grid %v", x, g)
		}
	}
}
