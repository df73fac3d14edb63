package tree

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/internal/dpnoise"
)

// MaxNoiseSteps bounds a discrete node noise in grid steps: a draw beyond
// it panics (its probability is below exp(-2^37) at the accountant's
// grids, where sigma/gamma < 2^21), so that every node sum stays an exact
// multiple of the grid in float64 (docs/privacy.md, "The discrete
// Gaussian").
const MaxNoiseSteps = 1 << 40

// Discrete is the secure noise source (docs/privacy.md, "The discrete
// Gaussian"): entry e of every node gets Gamma * Z, Z an exact discrete
// Gaussian draw (internal/dpnoise, Canonne, Kamath & Steinke 2020) of
// variance parameter Var[e] on the integers, drawn from R in entry order.
// Gamma * Z is exact in float64 (a power of two times an integer below
// 2^53), so a node whose data are multiples of Gamma is released exactly
// on the grid. Build it with NewDiscrete.
type Discrete struct {
	R     rand.Source
	Gamma float64
	Var   []uint64
}

// NewDiscrete returns the discrete noise of per-entry scales std (a
// stream's GramStd, or sigma for the bias) on the grid gamma, a power of
// two: Var[e] = ceil(fl((std[e]/gamma)^2)) + 1, which is at least the
// exact (std[e]/gamma)^2 and at least (sigma/gamma)^2/2 for an off-diagonal
// std = fl(sigma/sqrt 2): the two roundings are below 2^-10 in total while
// (std/gamma)^2 < 2^52, and the +1 covers them. A larger variance
// parameter only lowers the zCDP rho the accountant charges.
func NewDiscrete(r rand.Source, std []float64, gamma float64) *Discrete {
	if f, _ := math.Frexp(gamma); f != 0.5 {
		panic(fmt.Sprintf("tree.NewDiscrete: grid %v is not a power of two", gamma))
	}
	v := make([]uint64, len(std))
	for e, s := range std {
		q := s / gamma
		if !(q > 0) || q >= 1<<26 {
			panic(fmt.Sprintf("tree.NewDiscrete: scale %v on grid %v: want 0 < scale/grid < 2^26", s, gamma))
		}
		v[e] = uint64(math.Ceil(q*q)) + 1
	}
	return &Discrete{R: r, Gamma: gamma, Var: v}
}

// Fill implements Noise.
func (g *Discrete) Fill(dst []float64, k, level int) {
	if len(dst) != len(g.Var) {
		panic(fmt.Sprintf("tree.Discrete.Fill: node of length %d, want %d", len(dst), len(g.Var)))
	}
	for e, v := range g.Var {
		z := dpnoise.DiscreteGaussian(g.R, v, 1)
		if z >= MaxNoiseSteps || z <= -MaxNoiseSteps {
			panic(fmt.Sprintf("tree.Discrete.Fill: draw %d beyond %d grid steps (variance %d)", z, int64(MaxNoiseSteps), v))
		}
		dst[e] = g.Gamma * float64(z)
	}
}

// OnGrid reports whether every value of v is an integer multiple of gamma
// below 2^52 gamma in magnitude: a sum of such values is exact in float64.
func OnGrid(v []float64, gamma float64) bool {
	for _, x := range v {
		q := x / gamma
		if q != math.Trunc(q) || math.Abs(q) >= 1<<52 {
			return false
		}
	}
	return true
}
