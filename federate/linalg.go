package federate

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Symmetric d x d matrices exchanged with the server are stored packed:
// the upper triangle row by row, diagonal included (d(d+1)/2 entries).

// addOuterPacked adds y * x x^T to the packed matrix w.
func addOuterPacked(w, x []float64, y float64) {
	d := len(x)
	idx := 0
	for i, xi := range x {
		v := y * xi
		row := w[idx : idx+d-i]
		xs := x[i:]
		xs = xs[:len(row)]
		for j := range row {
			row[j] += v * xs[j]
		}
		idx += d - i
	}
}

// unpackInto writes lambda*I + packed w as a full d x d matrix into v.
func unpackInto(v, w []float64, d int, lambda float64) {
	idx := 0
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			v[i*d+j] = w[idx]
			v[j*d+i] = w[idx]
			idx++
		}
		v[i*d+i] += lambda
	}
}

// widthForm packs the full symmetric matrix a into p for the UCB kernel
// (ucbScores): the upper triangle row by row, the diagonal as is, each
// off-diagonal entry doubled, so that x^T a x = sum_i x_i sum_{j>=i} p_ij x_j
// in d(d+1)/2 multiply-adds.
func widthForm(p, a []float64, d int) {
	idx := 0
	for i := 0; i < d; i++ {
		p[idx] = a[i*d+i]
		idx++
		for j := i + 1; j < d; j++ {
			p[idx] = 2 * a[i*d+j]
			idx++
		}
	}
}

// matVec writes a x into dst for the full d x d matrix a.
func matVec(dst, a, x []float64) {
	d := len(x)
	for i := range dst {
		row := a[i*d : (i+1)*d]
		var s float64
		for j, v := range row {
			s += v * x[j]
		}
		dst[i] = s
	}
}

// rlsUpdate is the recursive least-squares step of one observation (x, y):
// with A = V^-1 held in width form p and theta = A b, it sets A to
// (V + x x^T)^-1 and theta to A (b + x y) in O(d^2), using g (len d) as
// scratch:
//
//	g = A x,  c = 1/(1 + x.g)
//	A -= c g g^T                    (Sherman-Morrison)
//	theta += c (y - x.theta) g      (since (V + x x^T)^-1 x = c g)
func rlsUpdate(p, theta, x []float64, y float64, g []float64) {
	d := len(x)
	p = p[:d*(d+1)/2]
	g = g[:d]
	clear(g)
	// g = A x from the packed upper triangle: A_ii = p_ii, A_ij = p_ij/2.
	idx := 0
	for i := 0; i < d; i++ {
		xi := x[i]
		gi := g[i] + p[idx]*xi
		row := p[idx+1 : idx+d-i]
		xs := x[i+1 : d]
		gs := g[i+1 : d]
		xs, gs = xs[:len(row)], gs[:len(row)]
		for k, v := range row {
			h := 0.5 * v
			gi += h * xs[k]
			gs[k] += h * xi
		}
		g[i] = gi
		idx += d - i
	}
	var xg, xt float64
	for i, v := range x {
		xg += v * g[i]
		xt += v * theta[i]
	}
	c := 1 / (1 + xg)
	f := c * (y - xt)
	for i, v := range g {
		theta[i] += f * v
	}
	idx = 0
	for i := 0; i < d; i++ {
		cg := c * g[i]
		p[idx] -= cg * g[i]
		cg2 := 2 * cg
		row := p[idx+1 : idx+d-i]
		gs := g[i+1 : d]
		gs = gs[:len(row)]
		for k := range row {
			row[k] -= cg2 * gs[k]
		}
		idx += d - i
	}
}

// cholesky factors the full symmetric d x d matrix v = L L^T into the
// lower triangle of l (row-major). It reports false if v is not
// (numerically) positive definite.
func cholesky(l, v []float64, d int) bool {
	clear(l)
	for j := 0; j < d; j++ {
		s := v[j*d+j]
		lj := l[j*d : j*d+j]
		for _, x := range lj {
			s -= x * x
		}
		if !(s > 0) || math.IsInf(s, 0) {
			return false
		}
		ljj := math.Sqrt(s)
		l[j*d+j] = ljj
		for i := j + 1; i < d; i++ {
			li := l[i*d : i*d+j]
			t := v[i*d+j]
			for k, x := range li {
				t -= x * lj[k]
			}
			l[i*d+j] = t / ljj
		}
	}
	return true
}

// cholInverse writes V^-1 into a from the Cholesky factor l of V, using e
// as scratch (len d): column c of V^-1 solves L L^T z = e_c.
func cholInverse(a, l, e []float64, d int) {
	for c := 0; c < d; c++ {
		clear(e)
		e[c] = 1
		// forward: L y = e
		for i := c; i < d; i++ {
			s := e[i]
			for k := c; k < i; k++ {
				s -= l[i*d+k] * e[k]
			}
			e[i] = s / l[i*d+i]
		}
		// backward: L^T z = y
		for i := d - 1; i >= 0; i-- {
			s := e[i]
			for k := i + 1; k < d; k++ {
				s -= l[k*d+i] * e[k]
			}
			e[i] = s / l[i*d+i]
		}
		for i := 0; i < d; i++ {
			a[i*d+c] = e[i]
		}
	}
	// Symmetrise exactly so that quadForm's doubled upper triangle and
	// matVec see the same matrix.
	for i := 0; i < d; i++ {
		for j := i + 1; j < d; j++ {
			m := 0.5 * (a[i*d+j] + a[j*d+i])
			a[i*d+j], a[j*d+i] = m, m
		}
	}
}

// minEigen returns the smallest eigenvalue of the full symmetric d x d
// matrix v (NaN if the decomposition fails, e.g. on non-finite input).
func minEigen(v []float64, d int) float64 {
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(d, append([]float64(nil), v...)), false) {
		return math.NaN()
	}
	return es.Values(nil)[0]
}
