package bco

import (
	"fmt"
	"math"
)

// Loss names (the instance key `loss`), one per class of the slides' table.
const (
	// LossAbsolute is f_t(x) = |<a, x> - b_t|: convex and 1-Lipschitz,
	// neither smooth nor strongly convex.
	LossAbsolute = "absolute"
	// LossLinear is f_t(x) = <c_t, x>: convex Lipschitz with its minimum on
	// the boundary (the shrunk body costs regret).
	LossLinear = "linear"
	// LossSquared is f_t(x) = (<a, x> - b_t)^2 / 2: convex and 1-smooth, not
	// strongly convex (flat orthogonally to a).
	LossSquared = "squared"
	// LossQuadraticAbs is f_t(x) = mu/2 ||x - z||^2 + |<a, x> - b_t|:
	// mu-strongly convex, not smooth.
	LossQuadraticAbs = "quadratic-abs"
	// LossQuadratic is f_t(x) = mu/2 ||x - z_t||^2: mu-strongly convex and
	// mu-smooth.
	LossQuadratic = "quadratic"
)

// Classes of losses (the rows of the slides' table).
const (
	ClassConvex         = "convex"
	ClassSmooth         = "smooth"
	ClassStrongly       = "strongly-convex"
	ClassStronglySmooth = "strongly-convex-smooth"
)

// Losses lists the loss names in documentation order.
var Losses = []string{LossAbsolute, LossLinear, LossSquared, LossQuadraticAbs, LossQuadratic}

// ClassOf returns the class of a loss.
func ClassOf(loss string) (string, error) {
	switch loss {
	case LossAbsolute, LossLinear:
		return ClassConvex, nil
	case LossSquared:
		return ClassSmooth, nil
	case LossQuadraticAbs:
		return ClassStrongly, nil
	case LossQuadratic:
		return ClassStronglySmooth, nil
	}
	return "", fmt.Errorf("loss = %q: unknown (want one of %v)", loss, Losses)
}

// levels is the number of values the loss noise xi_t takes: xi_t is one of
// -1, -1+2/(levels-1), ..., 1. A finite support makes the hindsight
// optimum exact from a histogram (a weighted median or a piecewise
// quadratic minimum) in O(levels) per round.
const levels = 9

// level returns the k-th noise value.
func level(k int) float64 { return -1 + float64(2*float64(k)/(levels-1)) }

// geometry is one instance's fixed shape, in units of the radius R: the
// direction a (unit), the centre z (||z|| = 0.3 R), the offset b0 = 0.2 R,
// the noise amplitude nu R (nu <= 0.3, so that every b_t and z_t lies in
// the ball of radius R/2 and the strongly convex optima are interior), the
// linear loss's mean direction c = a (unit norm) and mu.
type geometry struct {
	d      int
	r      float64
	a, z   []float64
	za     float64 // <z, a>
	b0, nu float64 // targets b_t = b0 + nu R xi_t; quadratic centres z_t = z + nu R xi_t a; linear c_t = (1 + nu xi_t) a
	mu     float64 // strong convexity modulus (strongly convex losses)
	loss   string
}

// b returns the scalar target of noise level k.
func (g *geometry) b(k int) float64 { return g.b0 + float64(g.nu*g.r*level(k)) }

// dot returns <u, v>.
func dot(u, v []float64) float64 {
	var s float64
	for i := range u {
		s += float64(u[i] * v[i])
	}
	return s
}

// value returns f(x) for noise level k.
func (g *geometry) value(x []float64, k int) float64 {
	return g.valueAt(dot(g.a, x), g.dist2z(x), k)
}

// dist2z returns ||x - z||^2 for the quadratic losses (0 otherwise).
func (g *geometry) dist2z(x []float64) float64 {
	if g.loss == LossQuadraticAbs || g.loss == LossQuadratic {
		return dist2(x, g.z)
	}
	return 0
}

// valueAt returns f(x; k) from s = <a, x> and q = ||x - z||^2: every
// loss depends on x only through them.
func (g *geometry) valueAt(s, q float64, k int) float64 {
	switch g.loss {
	case LossAbsolute:
		return math.Abs(s - g.b(k))
	case LossLinear:
		// c_t = (1 + nu xi_t) a  (the sign never flips: nu <= 0.3).
		return (1 + float64(g.nu*level(k))) * s
	case LossSquared:
		e := s - g.b(k)
		return e * e / 2
	case LossQuadraticAbs:
		return float64(g.mu/2*q) + math.Abs(s-g.b(k))
	case LossQuadratic:
		// ||x - z - o a||^2 = ||x - z||^2 - 2 o (s - za) + o^2, o = nu R xi
		o := float64(g.nu * g.r * level(k))
		return g.mu / 2 * (q - float64(2*o*(s-g.za)) + float64(o*o))
	}
	panic("bco: unknown loss " + g.loss)
}

func dist2(x, z []float64) float64 {
	var s float64
	for i := range x {
		e := x[i] - z[i]
		s += float64(e * e)
	}
	return s
}

// bounds returns the constants the algorithms are tuned with: C bounds
// |f_t| on the ball, G is a Lipschitz constant on the ball, beta a
// smoothness constant (0 for the non-smooth losses).
func (g *geometry) bounds() (C, G, beta float64) {
	return g.boundsAt(math.Sqrt(dot(g.z, g.z)))
}

// boundsAt is bounds for a centre z of norm zn (0.3 R up to the rounding
// of the drawn vector): what validation reads before any vector is drawn.
func (g *geometry) boundsAt(zn float64) (C, G, beta float64) {
	R := g.r
	bmax := math.Abs(g.b0) + float64(g.nu*R) // max |b_t|
	switch g.loss {
	case LossAbsolute:
		return R + bmax, 1, 0
	case LossLinear:
		return (1 + g.nu) * R, 1 + g.nu, 0
	case LossSquared:
		return (R + bmax) * (R + bmax) / 2, R + bmax, 1
	case LossQuadraticAbs:
		return float64(g.mu/2*(R+zn)*(R+zn)) + R + bmax, float64(g.mu*(R+zn)) + 1, 0
	case LossQuadratic:
		m := R + zn + float64(g.nu*R)
		return g.mu / 2 * m * m, g.mu * m, g.mu
	}
	panic("bco: unknown loss " + g.loss)
}

// hindsight is the minimum over the ball of sum_k n[k] f(x; k): the best
// fixed point's total loss for a histogram of noise levels. It is exact:
// every loss depends on x only through s = <a, x> and (for the quadratic
// ones) ||x - z||, and each case has a closed form or a one-dimensional
// piecewise-quadratic minimum found at a breakpoint or a stationary point.
func (g *geometry) hindsight(n *[levels]float64) float64 {
	var N float64
	for _, c := range n {
		N += c
	}
	if N == 0 {
		return 0
	}
	R := g.r
	switch g.loss {
	case LossAbsolute:
		// min over s in [-R, R] of sum n_k |s - b_k|: a weighted median
		// (every b_k lies inside [-R/2, R/2]).
		s := g.weightedMedian(n, N)
		return g.absSum(n, s)
	case LossLinear:
		// sum_k n_k (1 + nu l_k) s, with a positive coefficient: s = -R.
		var c float64
		for k, m := range n {
			c += float64(m * (1 + float64(g.nu*level(k))))
		}
		return -R * c
	case LossSquared:
		// s* = clamp(mean b, -R, R); the mean lies in [-R/2, R/2].
		var sb float64
		for k, m := range n {
			sb += float64(m * g.b(k))
		}
		s := sb / N
		var v float64
		for k, m := range n {
			e := s - g.b(k)
			v += float64(m * e * e / 2)
		}
		return v
	case LossQuadraticAbs:
		// x = s a + w with w orthogonal to a: the minimum has w = z_perp and
		// s minimising q(s) = mu N/2 (s - za)^2 + sum n_k |s - b_k|, a
		// convex piecewise quadratic; s* is a breakpoint b_k or a
		// stationary point of a piece. s* lies between za and the b_k, all
		// in [-R/2, R/2], and ||z_perp|| <= 0.3 R, so x* = s* a + z_perp
		// is interior.
		// On the piece [b_{k-1}, b_k] with `below` users under it,
		// sum n_j |s - b_j| = s (2 below - N) - 2 sum_{j<k} n_j b_j + sum n_j b_j,
		// so each piece's minimum is its stationary point clamped to it.
		var nb float64
		for k, m := range n {
			nb += float64(m * g.b(k))
		}
		best := math.Inf(1)
		var below, belowB float64
		for k := 0; k <= levels; k++ {
			lo, hi := math.Inf(-1), math.Inf(1)
			if k > 0 {
				lo = g.b(k - 1)
			}
			if k < levels {
				hi = g.b(k)
			}
			c := 2*below - N
			s := math.Min(math.Max(g.za-c/(g.mu*N), lo), hi)
			e := s - g.za
			best = math.Min(best, float64(g.mu*N/2*e*e)+float64(s*c)-float64(2*belowB)+nb)
			if k < levels {
				below += n[k]
				belowB += float64(n[k] * g.b(k))
			}
		}
		return best
	case LossQuadratic:
		// sum_k n_k mu/2 ||x - z_k||^2 = mu/2 (N ||x - zbar||^2 + sum n_k ||z_k - zbar||^2)
		// with zbar = z + o a, o = nu R mean(xi) inside the ball: x* = zbar.
		var so float64
		for k, m := range n {
			so += float64(m * g.nu * R * level(k))
		}
		ob := so / N
		var v float64
		for k, m := range n {
			e := float64(g.nu*R*level(k)) - ob
			v += float64(m * e * e)
		}
		return g.mu / 2 * v
	}
	panic("bco: unknown loss " + g.loss)
}

// weightedMedian returns a minimiser of sum n_k |s - b_k| (the b_k are
// increasing in k).
func (g *geometry) weightedMedian(n *[levels]float64, N float64) float64 {
	var c float64
	for k, m := range n {
		c += m
		if 2*c >= N {
			return g.b(k)
		}
	}
	return g.b(levels - 1)
}

func (g *geometry) absSum(n *[levels]float64, s float64) float64 {
	var v float64
	for k, m := range n {
		v += float64(m * math.Abs(s-g.b(k)))
	}
	return v
}

// expected returns F(x) = E f_t(x) for stochastic noise (uniform levels).
func (g *geometry) expected(x []float64) float64 {
	s, q := dot(g.a, x), g.dist2z(x)
	var v float64
	for k := range levels {
		v += g.valueAt(s, q, k)
	}
	return v / levels
}

// expectedMin returns min over the ball of F: the hindsight minimum of
// the uniform histogram, per round.
func (g *geometry) expectedMin() float64 {
	var n [levels]float64
	for k := range n {
		n[k] = 1
	}
	return g.hindsight(&n) / levels
}
