package federate

import "math"

// Candidate actions are stored in "panels": blocks of panelLanes actions,
// coordinate-major inside a block, so that the UCB kernel can work on
// panelLanes actions at once with SIMD lanes:
//
//	coordinate j of action a is x[(a/4)*4*d + j*4 + a%4]
//
// Unused lanes of a panel's last block hold zeros; their scores are
// computed and ignored.
const panelLanes = 4

// panelLen returns the length of a panel of n actions of dimension d.
func panelLen(n, d int) int { return (n + panelLanes - 1) / panelLanes * panelLanes * d }

// panel is n consecutive candidate actions of dimension d in panel layout.
type panel struct {
	x []float64 // panelLen(n, d) values
	n int       // number of actions
}

// blocks returns the number of blocks of the panel.
func (p panel) blocks() int { return (p.n + panelLanes - 1) / panelLanes }

// row writes action a's coordinates into dst (len d).
func (p panel) row(dst []float64, a int) {
	d := len(dst)
	base := a/panelLanes*panelLanes*d + a%panelLanes
	for j := range dst {
		dst[j] = p.x[base+j*panelLanes]
	}
}

// toPanel writes the n actions of the row-major n x d matrix rows into dst
// (len panelLen(n, d)) in panel layout, zeroing unused lanes.
func toPanel(dst, rows []float64, n, d int) {
	clear(dst)
	for a := 0; a < n; a++ {
		base := a/panelLanes*panelLanes*d + a%panelLanes
		for j, v := range rows[a*d : (a+1)*d] {
			dst[base+j*panelLanes] = v
		}
	}
}

// actionSet is one silo-round's candidate actions: the panels in order
// (actions are numbered consecutively through them) and the mean reward
// of each action.
type actionSet struct {
	panels []panel
	mu     []float64 // mu[a], at least n entries
	n      int       // total number of actions
}

// row writes action a's coordinates into dst (len d).
func (s *actionSet) row(dst []float64, a int) {
	for _, p := range s.panels {
		if a < p.n {
			p.row(dst, a)
			return
		}
		a -= p.n
	}
	panic("federate: action index out of range")
}

// ucbScores writes the UCB score of every lane of the nb blocks of the
// panel x (dimension d) into dst[0 : 4*nb]:
//
//	u = fma(beta, sqrt(max(w, 0)), m)
//	m = x . theta             (fused multiply-adds, j ascending from 0)
//	w = x^T A x = sum_i x_i s_i,  s_i = sum_{j >= i} p_ij x_j
//
// where p is A in width form (packed upper triangle, off-diagonal entries
// doubled: see widthForm), the s_i and w accumulated with fused
// multiply-adds in ascending order from 0 (w = fma(x_i, s_i, w)), and
// max(w, 0) is 0 for NaN. This is the kernel that dominates a run
// (K d(d+1)/2 multiply-adds per silo-round). ucbScores is the AVX2/FMA
// assembly kernel where the CPU has it, else ucbScoresGo; both compute
// exactly the operations above in exactly this order, so results are
// bit-identical on every machine (kernels_amd64.go chooses).
var ucbScores = ucbScoresGo

// ucbScoresGo is the portable ucbScores, four lanes at a time.
func ucbScoresGo(dst, x []float64, nb, d int, p, theta []float64, beta float64) {
	const L = panelLanes
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

// argmaxUCB returns the first action of s maximising
// x.theta + beta sqrt(x^T A x) (A in width form p), using scores (at least
// n + 4*len(s.panels) values) as scratch.
func argmaxUCB(s *actionSet, d int, theta, p []float64, beta float64, scores []float64) int {
	off := 0
	for _, pn := range s.panels {
		// A panel's padding lanes spill into the next panel's first
		// scores, which that panel then overwrites.
		ucbScores(scores[off:], pn.x, pn.blocks(), d, p, theta, beta)
		off += pn.n
	}
	return argmaxFirst(scores[:s.n])
}
