package bco

import (
	"cmp"
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// The best fixed point in hindsight of the bco-ltr losses: least squares
// and least absolute deviations on the documents seen so far, over the
// ball ||w|| <= R (docs/bco.md, "Regret on learning-to-rank data").

// trustRegion returns a minimiser of q(w) = w^T A w / 2 - b^T w over the
// ball ||w|| <= R, and its Lagrange multiplier nu >= 0, for a symmetric
// positive semidefinite A (d x d, row-major). With inRange, b is in the
// range of A (as A = X^T X and b = X^T y are): its components on A's null
// space are rounding errors and are dropped.
//
// The minimiser satisfies (A + nu I) w = b, ||w|| <= R, nu (R - ||w||) = 0
// (Moré & Sorensen 1983: for a PSD A these KKT conditions are sufficient).
// In A's eigenbasis A = Q diag(l) Q^T, with beta = Q^T b, w(nu) = Q
// (beta_j / (l_j + nu)): if the minimum-norm unconstrained minimiser
// w(0) lies in the ball, nu = 0; otherwise nu > 0 is the root of the
// secular equation 1/||w(nu)|| = 1/R, which is increasing and concave in
// nu (Newton from any point left of the root converges monotonically); it
// is solved by Newton's method safeguarded by bisection on the bracket
// [0, ||b|| / R] until the bracket stops shrinking (machine precision).
// Eigenvalues below d eps l_max count as zero.
func trustRegion(a, b []float64, d int, R float64, inRange bool) (w []float64, nu float64, err error) {
	l, q, ok := symEigen(a, d)
	if !ok {
		return nil, 0, errors.New("bco: eigendecomposition of the hindsight matrix failed")
	}
	lmax := 0.0
	for _, v := range l {
		lmax = math.Max(lmax, v)
	}
	zero := float64(d) * 0x1p-52 * lmax
	beta := make([]float64, d)
	var bn float64
	for j := range beta {
		if l[j] <= zero {
			if inRange {
				continue // b has no component on A's null space
			}
			l[j] = 0 // rounding can make a null eigenvalue negative
		}
		for i := range d {
			beta[j] += float64(q[i*d+j] * b[i])
		}
		bn += float64(beta[j] * beta[j])
	}
	bn = math.Sqrt(bn)
	norm := func(nu float64) float64 {
		var s float64
		for j, bj := range beta {
			if bj != 0 {
				c := bj / (l[j] + nu)
				s += float64(c * c)
			}
		}
		return math.Sqrt(s)
	}
	if n0 := norm(0); n0 > R || math.IsNaN(n0) {
		nu, err = secular(beta, l, R, bn/R)
		if err != nil {
			return nil, 0, err
		}
	}
	w = make([]float64, d)
	for j, bj := range beta {
		if bj == 0 {
			continue
		}
		c := bj / (l[j] + nu)
		for i := range d {
			w[i] += float64(q[i*d+j] * c)
		}
	}
	// Rounding can leave ||w|| a few ulps above R: scale it back.
	var wn float64
	for _, v := range w {
		wn += float64(v * v)
	}
	if wn = math.Sqrt(wn); wn > R {
		for i := range w {
			w[i] *= R / wn
		}
	}
	return w, nu, nil
}

// secular returns the root nu in (0, hi] of phi(nu) = 1/||w(nu)|| - 1/R,
// ||w(nu)||^2 = sum_j beta_j^2 / (l_j + nu)^2, where phi(0) < 0 <= phi(hi).
func secular(beta, l []float64, R, hi float64) (float64, error) {
	phi := func(nu float64) (f, df float64) {
		var s, s3 float64
		for j, bj := range beta {
			if bj != 0 {
				c := 1 / (l[j] + nu)
				s += float64(bj * bj * c * c)
				s3 += float64(bj * bj * c * c * c)
			}
		}
		n := math.Sqrt(s)
		return 1/n - 1/R, s3 / (s * n)
	}
	lo := 0.0
	nu := hi / 2
	for range 500 {
		f, df := phi(nu)
		switch {
		case f == 0:
			return nu, nil
		case f < 0:
			lo = nu
		default:
			hi = nu
		}
		next := nu - f/df
		if !(next > lo && next < hi) {
			next = lo + float64((hi-lo)/2)
		}
		if next == nu || next == lo || next == hi {
			return nu, nil // the bracket cannot shrink further
		}
		nu = next
	}
	return 0, errors.New("bco: the secular equation of the hindsight problem did not converge")
}

// leastAbsolute minimises P(w) = sum_i c_i |x_i^T w - y_i| over the ball
// ||w|| <= R (X m x d row-major, counts c_i > 0), starting from w0 (nil:
// 0), and returns the best point found, P there, and a certified bound on
// its distance to the minimum: P(w) - min P <= gap.
//
// The certificate is Lagrangian duality: sum_i c_i |r_i| = max over
// |lambda_i| <= c_i of lambda^T (X w - y), so for every such lambda
//
//	min P >= D(lambda) = -lambda^T y - R ||X^T lambda||
//
// (the minimum over the ball of (X^T lambda)^T w). The method is
// continuation on the smoothed problem sum_i c_i sqrt(r_i^2 + mu^2):
// Newton steps, each the exact minimiser of the quadratic model over the
// ball (trustRegion) followed by a backtracking line search, with mu
// divided by 10 once the step's decrease is below the smoothing error mu
// sum c_i. Each iterate's lambda_i = c_i r_i / sqrt(r_i^2 + mu^2) (scaled
// up to the box when that raises D) gives a lower bound; the method stops
// when the best bound is within rtol P (or within the rounding of the
// residuals, 8 eps (1 + R + max |y|) sum c_i), or after maxNewtonSteps
// steps (on degenerate data, such as targets of few values fitted exactly
// by many documents, the bound stays looser: the gap says how much). The
// smoothed lambda of the documents the minimum fits exactly (r_i = 0)
// converges slowly; polishDual solves for them from the KKT conditions.
// maxNewtonSteps bounds leastAbsolute's work (each step costs O(m d^2));
// the gap it returns is certified whenever it stops.
const maxNewtonSteps = 60

func leastAbsolute(x, y, c []float64, d int, R float64, w0 []float64, rtol float64) (w []float64, value, gap float64, err error) {
	m := len(y)
	w = make([]float64, d)
	if w0 != nil {
		copy(w, w0)
	}
	project(w, R)
	var total, ymax float64
	for i := range m {
		total += c[i]
		ymax = math.Max(ymax, math.Abs(y[i]))
	}
	floor := 8 * 0x1p-52 * (1 + R + ymax) * total
	r := make([]float64, m)
	residuals := func(w []float64) float64 {
		var p float64
		for i := range m {
			r[i] = dot(x[i*d:(i+1)*d], w) - y[i]
			p += float64(c[i] * math.Abs(r[i]))
		}
		return p
	}
	smoothed := func(w []float64, mu float64) float64 {
		var f float64
		for i := range m {
			e := dot(x[i*d:(i+1)*d], w) - y[i]
			f += float64(c[i] * math.Sqrt(float64(e*e)+float64(mu*mu)))
		}
		return f
	}
	best := append([]float64(nil), w...)
	upper := residuals(w)
	lower := 0.0
	mu := upper / total
	if mu == 0 {
		return best, 0, 0, nil
	}
	g := make([]float64, d)
	h := make([]float64, d*d)
	lam := make([]float64, m)
	rb := make([]float64, m)
	hb := make([]float64, d)
	wt := make([]float64, d)
	steps := 0
	for range 40 {
		for range 50 {
			if steps++; steps > maxNewtonSteps {
				p := residuals(best)
				return best, p, math.Max(p-lower, 0), nil
			}
			p := residuals(w)
			if p < upper {
				upper = p
				copy(best, w)
			}
			// The gradient, the Hessian and the dual point at w.
			clear(g)
			clear(h)
			var f, ly, scale float64
			for i := range m {
				s := math.Sqrt(float64(r[i]*r[i]) + float64(mu*mu))
				f += float64(c[i] * s)
				lam[i] = c[i] * r[i] / s
				ly += float64(lam[i] * y[i])
				scale = math.Max(scale, math.Abs(r[i])/s)
				xi := x[i*d : (i+1)*d]
				hw := c[i] * mu * mu / (s * s * s)
				for j, v := range xi {
					g[j] += float64(lam[i] * v)
					hv := hw * v
					row := h[j*d : (j+1)*d]
					for k := j; k < d; k++ {
						row[k] += float64(hv * xi[k])
					}
				}
			}
			for j := range d {
				for k := j + 1; k < d; k++ {
					h[k*d+j] = h[j*d+k]
				}
			}
			if dl := -ly - float64(R*math.Sqrt(dot(g, g))); dl > 0 && scale > 0 {
				lower = math.Max(lower, dl/scale)
			}
			if upper-lower > math.Max(rtol*upper, floor) {
				lower = math.Max(lower, polishDual(x, y, c, r, d, R, w))
				if !slices.Equal(best, w) {
					// The best point's own KKT conditions (on degenerate
					// data the best point is often the start, w = 0).
					for i := range m {
						rb[i] = dot(x[i*d:(i+1)*d], best) - y[i]
					}
					lower = math.Max(lower, polishDual(x, y, c, rb, d, R, best))
				}
			}
			if upper-lower <= math.Max(rtol*upper, floor) {
				return best, upper, math.Max(upper-lower, 0), nil
			}
			// Newton's step: the model's minimiser over the ball.
			for j := range d {
				hb[j] = dot(h[j*d:(j+1)*d], w) - g[j]
			}
			v, _, err := trustRegion(h, hb, d, R, false)
			if err != nil {
				return nil, 0, 0, err
			}
			for j := range d {
				v[j] -= w[j]
			}
			slope := dot(g, v)
			if !(slope < 0) || -slope < 0.1*mu*total*1e-3 {
				break // the model has nothing left to give at this mu
			}
			t := 1.0
			for range 60 {
				for j := range d {
					wt[j] = w[j] + float64(t*v[j])
				}
				if smoothed(wt, mu) <= f+float64(1e-4*t*slope) {
					break
				}
				t /= 2
			}
			copy(w, wt)
			if -t*slope < 0.1*mu*total*1e-3 {
				break
			}
		}
		mu /= 10
	}
	p := residuals(best)
	return best, p, math.Max(p-lower, 0), nil
}

// polishDual returns a lower bound D(lambda) on min P from the KKT
// conditions at a near-optimal w with residuals r: the documents with the
// k smallest |r_i| (k = d-1, d, d+1: a minimum generically fits d of them
// exactly, d-1 when the ball is active; on degenerate data, all those
// within 1e-10, 1e-7 or 1e-4 of a fit) are taken as fitted; every other
// lambda_i is c_i sign(r_i), and the fitted ones and nu >= 0 solve
// X_A^T lambda_A + nu w = -X_F^T lambda_F in least squares (nu = 0 inside
// the ball), clipped to the box |lambda_i| <= c_i. Any clipped lambda is
// feasible, so the bound is valid however the guess of A turns out.
func polishDual(x, y, c, r []float64, d int, R float64, w []float64) float64 {
	m := len(y)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int { return cmp.Compare(math.Abs(r[i]), math.Abs(r[j])) })
	boundary := math.Sqrt(dot(w, w)) > R*(1-1e-9)
	lam := make([]float64, m)
	xl := make([]float64, d)
	best := 0.0
	var sizes []int
	for k := max(min(d-1, m-1), 1); k <= min(d+1, m); k++ {
		sizes = append(sizes, k)
	}
	// Degenerate data fits more than d documents exactly (targets that
	// take few values: w = 0 fits every y = 0): those within a rounding
	// threshold of a fit.
	for _, tau := range []float64{1e-10, 1e-7, 1e-4} {
		k, _ := slices.BinarySearchFunc(order, tau, func(i int, t float64) int { return cmp.Compare(math.Abs(r[i]), t) })
		if k > d+1 && !slices.Contains(sizes, k) {
			sizes = append(sizes, k)
		}
	}
	for _, k := range sizes {
		clear(xl)
		for _, i := range order[k:] {
			lam[i] = c[i]
			if r[i] < 0 {
				lam[i] = -c[i]
			}
			for j, v := range x[i*d : (i+1)*d] {
				xl[j] -= float64(lam[i] * v)
			}
		}
		cols := k
		if boundary {
			cols++
		}
		a := mat.NewDense(d, cols, nil)
		for jj, i := range order[:k] {
			for j, v := range x[i*d : (i+1)*d] {
				a.Set(j, jj, v)
			}
		}
		if boundary {
			for j, v := range w {
				a.Set(j, k, v)
			}
		}
		sol := minNormSolve(a, xl)
		if sol == nil {
			continue
		}
		for jj, i := range order[:k] {
			lam[i] = math.Max(-c[i], math.Min(c[i], sol[jj]))
		}
		clear(xl)
		var ly float64
		for i := range m {
			ly += float64(lam[i] * y[i])
			for j, v := range x[i*d : (i+1)*d] {
				xl[j] += float64(lam[i] * v)
			}
		}
		best = math.Max(best, -ly-float64(R*math.Sqrt(dot(xl, xl))))
	}
	return best
}

// minNormSolve returns the minimum-norm least-squares solution of a z = b
// by the SVD (singular values below rows eps s_max count as zero: the
// documents' features are often collinear), nil if the SVD fails.
func minNormSolve(a *mat.Dense, b []float64) []float64 {
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		return nil
	}
	sv := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	rows, cols := a.Dims()
	tol := float64(max(rows, cols)) * 0x1p-52 * sv[0]
	z := make([]float64, cols)
	for j, s := range sv {
		if s <= tol {
			continue
		}
		var ub float64
		for i := range rows {
			ub += float64(u.At(i, j) * b[i])
		}
		ub /= s
		for l := range cols {
			z[l] += float64(v.At(l, j) * ub)
		}
	}
	return z
}
