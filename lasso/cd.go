package lasso

import "math"

// gram is the lasso problem in scikit-learn's internal (n-scaled) form:
// minimise (1/2) w^T Q w - q^T w + (1/2) yy + alpha n ||w||_1, i.e.
// (1/2)||y - Xw||^2 + alpha n ||w||_1 with Q = X^T X, q = X^T y, yy = y^T y
// (centered when an intercept is fitted).
type gram struct {
	d  int
	n  float64
	Q  []float64 // d x d row-major
	q  []float64
	yy float64
}

// newGram builds the problem from moments. With fitIntercept the centered
// statistics are used (scikit-learn centers X and y); otherwise the raw
// cross-products C + n mean mean^T. Constant columns (min == max) have
// exactly zero centered statistics.
func newGram(m *Moments, fitIntercept bool) *gram {
	p := m.P
	d := p - 1
	g := &gram{d: d, n: float64(m.N), Q: make([]float64, d*d), q: make([]float64, d)}
	n := float64(m.N)
	at := func(i, j int) float64 {
		v := m.C[i*p+j]
		if fitIntercept {
			if m.Min[i] == m.Max[i] || m.Min[j] == m.Max[j] {
				return 0
			}
			return v
		}
		return v + float64(n*m.Mean[i]*m.Mean[j])
	}
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			g.Q[i*d+j] = at(i, j)
		}
		g.q[i] = at(i, d)
	}
	g.yy = at(d, d)
	return g
}

// cdResult is the outcome of one coordinate-descent solve.
type cdResult struct {
	w         []float64
	gap       float64 // duality gap of the n-scaled problem
	tolScaled float64 // tol * yy, the threshold gap was compared with
	iters     int
	converged bool
}

// solve runs scikit-learn's cyclic coordinate descent
// (sklearn.linear_model._cd_fast.enet_coordinate_descent with beta = 0,
// random = False) on the Gram form, starting from w0 (nil: zeros).
//
// Each sweep updates coordinates 0..d-1 in order: coordinates with zero
// squared norm are skipped; w_j = S(X_j^T r + Q_jj w_j, alpha n) / Q_jj
// (positive: 0 when the argument is negative). After a sweep whose largest
// update is below tol times the largest |w_j| (or when w = 0, or at the last
// iteration) the duality gap is computed; the solve stops when it is below
// tol * y^T y. It needs maxIter >= 1 (Options.defaults checks it): the
// last sweep always computes the gap.
func (g *gram) solve(alpha float64, positive bool, tol float64, maxIter int, w0 []float64) cdResult {
	d := g.d
	w := make([]float64, d)
	if w0 != nil {
		copy(w, w0)
	}
	l1 := float64(alpha * g.n)
	tolS := tol * g.yy
	H := make([]float64, d) // H = Q w
	recomputeH := func() {
		for i := 0; i < d; i++ {
			var s float64
			row := g.Q[i*d : (i+1)*d]
			for j, wj := range w {
				s += float64(row[j] * wj)
			}
			H[i] = s
		}
	}
	recomputeH()
	res := cdResult{tolScaled: tolS}
	for it := 0; it < maxIter; it++ {
		var wMax, dwMax float64
		for ii := 0; ii < d; ii++ {
			qii := g.Q[ii*d+ii]
			if qii == 0 {
				continue
			}
			wii := w[ii]
			tmp := g.q[ii] - H[ii] + float64(qii*wii)
			var nw float64
			if positive && tmp < 0 {
				nw = 0
			} else {
				nw = fsign(tmp) * math.Max(math.Abs(tmp)-l1, 0) / qii
			}
			if nw != wii {
				delta := nw - wii
				col := g.Q[ii*d : (ii+1)*d] // Q is symmetric: row ii = column ii
				for j, c := range col {
					H[j] += float64(c * delta)
				}
				w[ii] = nw
			}
			dwMax = math.Max(dwMax, math.Abs(nw-wii))
			wMax = math.Max(wMax, math.Abs(nw))
		}
		res.iters = it + 1
		if wMax == 0 || dwMax/wMax < tol || it == maxIter-1 {
			recomputeH()
			res.gap = g.dualGap(w, H, l1, positive)
			if res.gap < tolS {
				res.converged = true
				break
			}
		}
	}
	res.w = w
	return res
}

// dualGap is scikit-learn's duality gap of the n-scaled problem at w
// (H = Q w), with the dual point r * min(1, alpha n / ||X^T r||_inf).
func (g *gram) dualGap(w, H []float64, l1 float64, positive bool) float64 {
	var dual, wq, wH, l1norm float64
	for i := range w {
		xta := g.q[i] - H[i]
		if positive {
			if i == 0 || xta > dual {
				dual = xta
			}
		} else {
			dual = math.Max(dual, math.Abs(xta))
		}
		wq += float64(w[i] * g.q[i])
		wH += float64(w[i] * H[i])
		l1norm += math.Abs(w[i])
	}
	rNorm2 := g.yy - 2*wq + wH
	rDotY := g.yy - wq
	var gap, cst float64
	if dual > l1 {
		cst = l1 / dual
		gap = 0.5 * (rNorm2 + float64(rNorm2*cst*cst))
	} else {
		cst = 1
		gap = rNorm2
	}
	return gap + float64(l1*l1norm) - float64(cst*rDotY)
}

// rss returns ||y - Xw||^2 (n-scaled problem) at w.
func (g *gram) rss(w []float64) float64 {
	d := g.d
	var wq, wQw float64
	for i := 0; i < d; i++ {
		wq += float64(w[i] * g.q[i])
		var s float64
		for j := 0; j < d; j++ {
			s += float64(g.Q[i*d+j] * w[j])
		}
		wQw += float64(w[i] * s)
	}
	return g.yy - 2*wq + wQw
}

// alphaMax is the smallest alpha for which w = 0 is the solution:
// max_j |X_j^T y| / n (max_j X_j^T y / n with the positive constraint).
func (g *gram) alphaMax(positive bool) float64 {
	var m float64
	for _, v := range g.q {
		if positive {
			m = math.Max(m, v)
		} else {
			m = math.Max(m, math.Abs(v))
		}
	}
	return m / g.n
}

// alphaMin is the smallest per-feature entry point min_j |X_j^T y| / n over
// features with X_j^T y != 0 (positive: X_j^T y > 0), or 0 if none: for
// uncorrelated features, feature j becomes active below |X_j^T y| / n.
func (g *gram) alphaMin(positive bool) float64 {
	m := math.Inf(1)
	for j, v := range g.q {
		if g.Q[j*g.d+j] == 0 || v == 0 || (positive && v < 0) {
			continue
		}
		m = math.Min(m, math.Abs(v))
	}
	if math.IsInf(m, 1) {
		return 0
	}
	return m / g.n
}

func fsign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
