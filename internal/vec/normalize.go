package vec

import "math"

// InvSqrt2 is 1/sqrt2 rounded to float64: in Normalize's synthetic
// contexts, the last (constant) coordinate, and the scale of the others.
const InvSqrt2 = 0.7071067811865476

// normalizeGo is the portable Normalize, and its definition: it turns nb
// blocks of normals into contexts. Block b's normals are
// z[b*L*(d-1) : (b+1)*L*(d-1)] (L = Lanes = 4), coordinate-major:
// z[b*L*(d-1) + j*L + l] is coordinate j of lane l. For each lane:
//
//	ss  = sum_j z_j^2           (fused multiply-adds, j ascending from 0)
//	inv = 1 / sqrt(ss)          (two correctly rounded operations)
//	u_j = z_j * inv,  x_j = u_j * InvSqrt2,  x_{d-1} = InvSqrt2
//	mu  = (sum_j u_j theta_j) + theta_{d-1}   (fused multiply-adds)
//
// x is written in panel layout (block b at x[b*L*d:]), mu[b*L+l] for each
// lane; d = len(theta) >= 2. The assembly kernel computes exactly these
// operations in this order.
func normalizeGo(x, mu, z []float64, nb int, theta []float64) {
	const L = Lanes
	d := len(theta)
	for b := 0; b < nb; b++ {
		zb := z[b*L*(d-1) : (b+1)*L*(d-1)]
		xb := x[b*L*d : (b+1)*L*d]
		for l := 0; l < L; l++ {
			var ss float64
			for j := 0; j < d-1; j++ {
				ss = math.FMA(zb[j*L+l], zb[j*L+l], ss)
			}
			inv := 1 / math.Sqrt(ss)
			var m float64
			for j := 0; j < d-1; j++ {
				u := zb[j*L+l] * inv
				m = math.FMA(u, theta[j], m)
				xb[j*L+l] = u * InvSqrt2
			}
			xb[(d-1)*L+l] = InvSqrt2
			mu[b*L+l] = m + theta[d-1]
		}
	}
}
