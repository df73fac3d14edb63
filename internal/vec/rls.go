package vec

import "math"

// addObsGo is the portable AddObs: it adds x x^T to the packed Gram w
// and y x to the bias u, entry by entry with fused multiply-adds:
//
//	w_ij = fma(x_i, x_j, w_ij)  (j >= i),   u_i = fma(x_i, y, u_i).
//
// Every entry is one independent operation, so the assembly kernel may
// take them in any grouping and still give the same bits.
func addObsGo(w, u, x []float64, y float64) {
	d := len(x)
	w = w[:d*(d+1)/2]
	u = u[:d]
	idx := 0
	for i, xi := range x {
		row := w[idx : idx+d-i]
		xs := x[i:]
		xs = xs[:len(row)]
		for j := range row {
			row[j] = math.FMA(xi, xs[j], row[j])
		}
		u[i] = math.FMA(xi, y, u[i])
		idx += d - i
	}
}

// learnGo is the portable Learn, the eager learner's step for one
// observation: addObsGo(w, u, x, y), then rlsUpdateGo(p, theta, x, y, g).
// The two touch disjoint state, so the fused assembly kernel may
// interleave them. It returns x^T V^-1 x for the V before the update (see
// rlsUpdateGo).
func learnGo(w, u, p, theta, x []float64, y float64, g []float64) (xVx float64) {
	d := len(x)
	w = w[:d*(d+1)/2]
	u = u[:d]
	addObsGo(w, u, x, y)
	return rlsUpdateGo(p, theta, x, y, g)
}

// rlsUpdateGo is the recursive least-squares step of one observation
// (x, y), the second half of Learn (whose assembly kernel reproduces it):
// with A = V^-1 held in width form p (see widthForm) and theta = A b, it
// sets A to (V + x x^T)^-1 and theta to A (b + x y) in O(d^2), using g as
// scratch (len(g) >= d rounded up to a multiple of 4; g[:d] ends as A x).
// It returns x.g = x^T V^-1 x, the leverage of the observation under the V
// it was taken with: det(V + x x^T) = det(V) (1 + x^T V^-1 x), so a
// determinant-triggered schedule adds log1p of it to a log-determinant
// without another pass over V.
//
//	g = A x,  c = 1/(1 + x.g)
//	A -= c g g^T                    (Sherman-Morrison)
//	theta += c (y - x.theta) g      (since (V + x x^T)^-1 x = c g)
//
// The operations and their order, which the assembly kernel reproduces
// exactly (fma is one rounding, all else is rounded per operation). The
// upper triangle of p is cut into 4 x 4 blocks: row block r holds rows
// i = 4r..4r+3 (those below d), column block m columns j = 4m..4m+3; lane
// l of a block is column 4m+l.
//
//  1. g = 2 A x by blocks: g_j is the column sum sum_{i<=j} p_ij x_i plus
//     the row sum sum_{j'>=j} p_jj' x_j' (with p_ij = 2 A_ij off the
//     diagonal, each counts the diagonal once). For each row block r, for
//     each column block m >= r: every lane l (j < d) takes the block's
//     column sum t_l over its rows i <= j in ascending order (t_l = p_ij
//     x_i for the block's first row, then fma(p_ij, x_i, t_l)), and g_j =
//     t_l for r = 0, g_j = g_j + t_l after; and every row i of the block
//     accumulates fma(p_ij, x_j, s_il) into its lane-l sum over the
//     block's columns j >= i, j < d (s_il starts at 0 and runs over m
//     ascending). After the last column block, each row i of block r gets
//     g_i = 0.5 * (g_i + ((s_i0 + s_i2) + (s_i1 + s_i3))), which is
//     (A x)_i (the halving is exact), and the dot products accumulate in
//     four lanes, lane i mod 4: xg_l = fma(x_i, g_i, xg_l), xt_l =
//     fma(x_i, theta_i, xt_l).
//     In the last row block, the lanes of rows past d take fma(0, 0, .)
//     in xg_l and xt_l.
//  2. x.g = (xg_0 + xg_2) + (xg_1 + xg_3), x.theta likewise;
//     c = 1/(1 + x.g), f = c * (y - x.theta).
//  3. For every row i: theta_i = fma(f, g_i, theta_i); with cg = c * g_i,
//     p_ii = fma(-cg, g_i, p_ii) and p_ij = fma(-(2 * cg), g_j, p_ij) for
//     j > i (the width form's doubled off-diagonal).
//
// The sums and products of two computed values are written addPinned and
// mulPinned so that the NaN that propagates when both are NaN is fixed.
func rlsUpdateGo(p, theta, x []float64, y float64, g []float64) (xVx float64) {
	d := len(x)
	nb := (d + 3) / 4
	p = p[:d*(d+1)/2]
	theta = theta[:d]
	g = g[:4*nb]
	// rows[k][j] is p_ij for row i = 4r+k (for j >= i; below the
	// diagonal it indexes the previous row's last entries, never read).
	var rows [4][]float64
	var xg, xt [4]float64
	for r := 0; r < nb; r++ {
		i0 := 4 * r
		nr := min(4, d-i0)
		for k := 0; k < nr; k++ {
			i := i0 + k
			base := i*d - i*(i-1)/2 - i
			rows[k] = p[base : base+d]
		}
		var s [4][4]float64 // s[k][l]: row i0+k, lane l
		for m := r; m < nb; m++ {
			j0 := 4 * m
			xs := x[j0:min(j0+4, d)]
			if m > r && len(xs) == 4 {
				// A full off-diagonal block (always 4 rows): the code
				// below unrolled, so that t stays in registers.
				x0, x1, x2, x3 := xs[0], xs[1], xs[2], xs[3]
				var t0, t1, t2, t3 float64
				for k := 0; k < 4; k++ {
					row := rows[k][j0 : j0+4 : j0+4]
					xi := x[i0+k]
					if k == 0 {
						t0, t1 = mulPinned(row[0], xi), mulPinned(row[1], xi)
						t2, t3 = mulPinned(row[2], xi), mulPinned(row[3], xi)
					} else {
						t0, t1 = math.FMA(row[0], xi, t0), math.FMA(row[1], xi, t1)
						t2, t3 = math.FMA(row[2], xi, t2), math.FMA(row[3], xi, t3)
					}
					sk := &s[k]
					sk[0], sk[1] = math.FMA(row[0], x0, sk[0]), math.FMA(row[1], x1, sk[1])
					sk[2], sk[3] = math.FMA(row[2], x2, sk[2]), math.FMA(row[3], x3, sk[3])
				}
				gs := g[j0 : j0+4 : j0+4]
				if r == 0 {
					gs[0], gs[1], gs[2], gs[3] = t0, t1, t2, t3
				} else {
					gs[0], gs[1] = addPinned(gs[0], t0), addPinned(gs[1], t1)
					gs[2], gs[3] = addPinned(gs[2], t2), addPinned(gs[3], t3)
				}
				continue
			}
			var t [4]float64
			for k := 0; k < nr; k++ {
				i := i0 + k
				row := rows[k][j0 : j0+len(xs)]
				sk := &s[k]
				if k == 0 {
					for l, v := range row {
						t[l] = mulPinned(v, x[i])
						sk[l] = math.FMA(v, xs[l], sk[l])
					}
					continue
				}
				// Lanes l < i-j0 (diagonal block only) are below the diagonal.
				for l := max(0, i-j0); l < len(row); l++ {
					v := row[l]
					t[l] = math.FMA(v, x[i], t[l])
					sk[l] = math.FMA(v, xs[l], sk[l])
				}
			}
			gs := g[j0 : j0+len(xs)]
			for l := range gs {
				if r == 0 {
					gs[l] = t[l]
				} else {
					gs[l] = addPinned(gs[l], t[l])
				}
			}
		}
		for k := 0; k < nr; k++ {
			i := i0 + k
			sk := s[k]
			gi := 0.5 * addPinned(g[i], addPinned(addPinned(sk[0], sk[2]), addPinned(sk[1], sk[3])))
			g[i] = gi
			xg[k] = math.FMA(x[i], gi, xg[k])
			xt[k] = math.FMA(x[i], theta[i], xt[k])
		}
		// The kernel's lanes past d take x_i = g_i = theta_i = 0:
		// fma(0, 0, .), which turns a -0 into +0 (it matters only for the
		// sign of a zero dot product).
		for k := nr; k < 4; k++ {
			xg[k] = math.FMA(0, 0, xg[k])
			xt[k] = math.FMA(0, 0, xt[k])
		}
	}
	clear(g[d:]) // the padding ends as 0
	// 2.
	xVx = addPinned(addPinned(xg[0], xg[2]), addPinned(xg[1], xg[3]))
	c := 1 / (1 + xVx)
	f := mulPinned(c, y-addPinned(addPinned(xt[0], xt[2]), addPinned(xt[1], xt[3])))
	// 3.
	idx := 0
	for i := 0; i < d; i++ {
		gi := g[i]
		theta[i] = math.FMA(f, gi, theta[i])
		cg := mulPinned(c, gi)
		p[idx] = math.FMA(-cg, gi, p[idx])
		n2 := -(2 * cg)
		row := p[idx+1 : idx+d-i]
		gs := g[i+1 : d]
		gs = gs[:len(row)]
		for k := range row {
			row[k] = math.FMA(n2, gs[k], row[k])
		}
		idx += d - i
	}
	return xVx
}

// addPinned returns a + b and mulPinned a * b, computed as fused
// multiply-adds: a*1 + b and a*b + (-0) round exactly as the plain sum and
// product do (x + (-0) = x for every x, -0 included). The point is NaN
// propagation, which the bit-identity of the Go and assembly kernels
// covers: when both operands are NaN, x86 returns the first operand's,
// and Go may swap the operands of a plain + or * (they commute), whereas
// math.FMA(a, b, c) always compiles to VFMADD231SD with the operands in
// place, which the assembly reproduces.
func addPinned(a, b float64) float64 { return math.FMA(a, 1, b) }

// mulPinned returns a * b: see addPinned.
func mulPinned(a, b float64) float64 { return math.FMA(a, b, negZero) }

// negZero is -0.0.
var negZero = math.Copysign(0, -1)
