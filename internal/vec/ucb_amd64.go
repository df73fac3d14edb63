//go:build amd64 && !purego

package vec

// ucbScoresAsm is Kernels.UCBScores by the AVX2/FMA assembly kernel (ucb_amd64.s),
// bit-identical to ucbScoresGo. It checks the slices as ucbScoresGo's
// slicing does (panicking on the same inputs) before handing their bases
// to the assembly. The CPU must have AVX2 and FMA.
func ucbScoresAsm(dst, x []float64, nb, d int, p, theta []float64, beta float64) {
	const L = Lanes
	dst = dst[:nb*L]
	p = p[:d*(d+1)/2]
	theta = theta[:d]
	x = x[:nb*L*d]
	switch {
	case nb == 0:
	case d == 0:
		// No coordinates: u = fma(beta, sqrt(0), 0); the assembly needs d >= 1.
		ucbScoresGo(dst, x, nb, d, p, theta, beta)
	default:
		ucbScoresAVX2(dst, x, nb, d, p, theta, beta)
	}
}

// ucbScoresAVX2 is the assembly kernel (ucb_amd64.s). It requires
// nb >= 1, d >= 1, len(dst) >= 4nb, len(x) >= 4nb d, len(p) >= d(d+1)/2
// and len(theta) >= d.
//
//go:noescape
func ucbScoresAVX2(dst, x []float64, nb, d int, p, theta []float64, beta float64)
