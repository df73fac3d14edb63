package tree

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/internal/mutation"
)

// Gram-noise conventions (privacy.md section 3.8). Both give every node
// Mahalanobis sensitivity ||x||^2 <= 1 for the Gram stream.
const (
	// Symmetrised is the published code's convention B: Z with i.i.d.
	// N(0, sigma^2) entries, released as (Z+Z^T)/2, so the diagonal has
	// variance sigma^2 and each off-diagonal entry sigma^2/2. The default.
	Symmetrised = "symmetrised"
	// UpperIID is convention A: i.i.d. N(0, sigma^2) on each upper entry
	// (diagonal included), mirrored.
	UpperIID = "upper-iid"
)

// PackedLen returns d(d+1)/2, the length of a packed symmetric d x d matrix.
func PackedLen(d int) int { return d * (d + 1) / 2 }

// GramStd returns the per-entry noise standard deviations of a packed
// (upper triangle, row-major, diagonal included) symmetric d x d Gram node
// under the named convention. Under Symmetrised, drawing one normal per
// upper entry with standard deviation sigma (diagonal) or sigma/sqrt(2)
// (off-diagonal) gives exactly the distribution of (Z+Z^T)/2.
func GramStd(d int, sigma float64, convention string) ([]float64, error) {
	var off float64
	switch convention {
	case Symmetrised, "":
		off = sigma / math.Sqrt2
	case UpperIID:
		off = sigma
	default:
		return nil, fmt.Errorf("tree: unknown Gram-noise convention %q (want %q or %q)", convention, Symmetrised, UpperIID)
	}
	std := make([]float64, 0, PackedLen(d))
	for i := 0; i < d; i++ {
		std = append(std, sigma)
		for j := i + 1; j < d; j++ {
			std = append(std, off)
		}
	}
	return std, nil
}

// Gaussian is the production noise source: entry e of every node gets
// Std[e] * N(0,1) drawn from R, in entry order. Give each (silo, stream)
// its own R so that noise is independent across silos and streams.
type Gaussian struct {
	R   *rand.Rand
	Std []float64
}

// Fill implements Noise.
func (g *Gaussian) Fill(dst []float64, k, level int) {
	if len(dst) != len(g.Std) {
		panic(fmt.Sprintf("tree.Gaussian.Fill: node of length %d, want %d", len(dst), len(g.Std)))
	}
	scale := 1.0
	switch {
	case mutation.On("M1"):
		scale = 0.5
	case mutation.On("M2"):
		scale = 0.9
	}
	if mutation.On("I42-lin-rand") { // one normal per node, shared by its entries
		z := g.R.NormFloat64()
		for e, s := range g.Std {
			dst[e] = s * z
		}
		return
	}
	for e, s := range g.Std {
		dst[e] = scale * s * g.R.NormFloat64()
	}
}

// Draw records one call of a Recorder's Fill.
type Draw struct {
	K, Level int
}

// Recorder wraps a Noise and records every Fill call, so that tests can
// prove that each node's noise is drawn exactly once.
type Recorder struct {
	Inner Noise // nil: zero noise
	Draws []Draw
}

// Fill implements Noise.
func (r *Recorder) Fill(dst []float64, k, level int) {
	r.Draws = append(r.Draws, Draw{K: k, Level: level})
	if r.Inner == nil {
		clear(dst)
		return
	}
	r.Inner.Fill(dst, k, level)
}
