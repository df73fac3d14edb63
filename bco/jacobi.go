package bco

import "math"

// symEigen returns the eigenvalues l and eigenvectors (the columns of q,
// d x d, row-major) of the symmetric d x d matrix a (row-major; not
// modified), by the cyclic Jacobi method (Rutishauser's formulation, as
// in Numerical Recipes' jacobi). Every product that is added to something
// is converted, float64(x*y), and nothing calls a library kernel: the
// bits are the same on every architecture and CPU, which gonum's
// EigenSym (assembly BLAS kernels on amd64, Go fused into multiply-adds
// on arm64) does not give (issue 34). Jacobi's eigenvalues are accurate
// to a few ulps of the largest; ok is false if 100 sweeps do not
// converge.
func symEigen(a []float64, d int) (l, q []float64, ok bool) {
	m := append([]float64(nil), a...)
	q = make([]float64, d*d)
	for i := range d {
		q[i*d+i] = 1
	}
	l = make([]float64, d)
	b := make([]float64, d)
	z := make([]float64, d)
	for i := range d {
		l[i] = m[i*d+i]
		b[i] = l[i]
	}
	for sweep := 0; sweep < 100; sweep++ {
		var sm float64
		for p := range d {
			for r := p + 1; r < d; r++ {
				sm += math.Abs(m[p*d+r])
			}
		}
		if sm == 0 {
			return l, q, true
		}
		thresh := 0.0
		if sweep < 3 {
			thresh = 0.2 * sm / float64(d*d)
		}
		for p := range d {
			for r := p + 1; r < d; r++ {
				apr := m[p*d+r]
				g := float64(100 * math.Abs(apr))
				if sweep > 3 && math.Abs(l[p])+g == math.Abs(l[p]) && math.Abs(l[r])+g == math.Abs(l[r]) {
					m[p*d+r] = 0
					continue
				}
				if math.Abs(apr) <= thresh {
					continue
				}
				h := l[r] - l[p]
				var t float64
				if math.Abs(h)+g == math.Abs(h) {
					t = apr / h
				} else {
					theta := 0.5 * h / apr
					t = 1 / (math.Abs(theta) + math.Sqrt(1+float64(theta*theta)))
					if theta < 0 {
						t = -t
					}
				}
				c := 1 / math.Sqrt(1+float64(t*t))
				s := float64(t * c)
				tau := s / (1 + c)
				h = float64(t * apr)
				z[p] -= h
				z[r] += h
				l[p] -= h
				l[r] += h
				m[p*d+r] = 0
				rot := func(i, j, k, n int) { // the pair (m[i][j], m[k][n])
					g, h := m[i*d+j], m[k*d+n]
					m[i*d+j] = g - float64(s*(h+float64(g*tau)))
					m[k*d+n] = h + float64(s*(g-float64(h*tau)))
				}
				for j := 0; j < p; j++ {
					rot(j, p, j, r)
				}
				for j := p + 1; j < r; j++ {
					rot(p, j, j, r)
				}
				for j := r + 1; j < d; j++ {
					rot(p, j, r, j)
				}
				for j := range d {
					g, h := q[j*d+p], q[j*d+r]
					q[j*d+p] = g - float64(s*(h+float64(g*tau)))
					q[j*d+r] = h + float64(s*(g-float64(h*tau)))
				}
			}
		}
		for i := range d {
			b[i] += z[i]
			l[i] = b[i]
			z[i] = 0
		}
	}
	return l, q, false
}
