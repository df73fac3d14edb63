package vec

import "math"

// ucbScoresGo is the portable UCBScores (see Kernels.UCBScores for the
// operations and their order), four lanes at a time.
func ucbScoresGo(dst, x []float64, nb, d int, p, theta []float64, beta float64) {
	const L = Lanes
	dst = dst[:nb*L]
	p = p[:d*(d+1)/2]
	theta = theta[:d]
	for b := 0; b < nb; b++ {
		xb := x[b*L*d : (b+1)*L*d]
		var m0, m1, m2, m3 float64
		for j, t := range theta {
			xj := xb[j*L : j*L+L]
			m0 = math.FMA(t, xj[0], m0)
			m1 = math.FMA(t, xj[1], m1)
			m2 = math.FMA(t, xj[2], m2)
			m3 = math.FMA(t, xj[3], m3)
		}
		var w0, w1, w2, w3 float64
		idx := 0
		for i := 0; i < d; i++ {
			row := p[idx : idx+d-i]
			xs := xb[i*L : d*L]
			var s0, s1, s2, s3 float64
			for k, v := range row {
				xj := xs[k*L : k*L+L]
				s0 = math.FMA(v, xj[0], s0)
				s1 = math.FMA(v, xj[1], s1)
				s2 = math.FMA(v, xj[2], s2)
				s3 = math.FMA(v, xj[3], s3)
			}
			xi := xb[i*L : i*L+L]
			w0 = math.FMA(xi[0], s0, w0)
			w1 = math.FMA(xi[1], s1, w1)
			w2 = math.FMA(xi[2], s2, w2)
			w3 = math.FMA(xi[3], s3, w3)
			idx += d - i
		}
		out := dst[b*L : b*L+L]
		out[0] = math.FMA(beta, math.Sqrt(nonNeg(w0)), m0)
		out[1] = math.FMA(beta, math.Sqrt(nonNeg(w1)), m1)
		out[2] = math.FMA(beta, math.Sqrt(nonNeg(w2)), m2)
		out[3] = math.FMA(beta, math.Sqrt(nonNeg(w3)), m3)
	}
}

// nonNeg returns w if w > 0, else 0 (also for NaN), like the kernel's
// VMAXPD(w, 0).
func nonNeg(w float64) float64 {
	if w > 0 {
		return w
	}
	return 0
}
