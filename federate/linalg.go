package federate

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Symmetric d x d matrices exchanged with the server are stored packed:
// the upper triangle row by row, diagonal included (d(d+1)/2 entries).

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

// matVec writes a x into dst for the full d x d matrix a.
func matVec(dst, a, x []float64) {
	d := len(x)
	for i := range dst {
		row := a[i*d : (i+1)*d]
		var s float64
		for j, v := range row {
			s += float64(v * x[j])
		}
		dst[i] = s
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
			s -= float64(x * x)
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
				t -= float64(x * lj[k])
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
				s -= float64(l[i*d+k] * e[k])
			}
			e[i] = s / l[i*d+i]
		}
		// backward: L^T z = y
		for i := d - 1; i >= 0; i-- {
			s := e[i]
			for k := i + 1; k < d; k++ {
				s -= float64(l[k*d+i] * e[k])
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
