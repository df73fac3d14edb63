//go:build amd64 && !purego

package vec

// addObsAsm is Kernels.AddObs by the assembly kernel. It checks the slices as
// addObsGo's slicing does (panicking on the same inputs) before handing
// their bases to the assembly. The CPU must have AVX2 and FMA.
func addObsAsm(w, u, x []float64, y float64) {
	d := len(x)
	w = w[:d*(d+1)/2]
	u = u[:d]
	if d == 0 {
		return
	}
	addObsAVX2(w, u, x, y)
}

// learnAsm is Kernels.Learn by the assembly kernel, with the slices checked as
// learnGo's slicing does. The CPU must have AVX2 and FMA.
func learnAsm(w, u, p, theta, x []float64, y float64, g []float64) (xVx float64) {
	d := len(x)
	w = w[:d*(d+1)/2]
	u = u[:d]
	p = p[:d*(d+1)/2]
	theta = theta[:d]
	g = g[:ScratchLen(d)]
	if d == 0 {
		return 0
	}
	return learnAVX2(w, u, p, theta, x, y, g)
}

// addObsAVX2 is the assembly kernel (rls_amd64.s). It requires d =
// len(x) >= 1, len(w) >= d(d+1)/2 and len(u) >= d.
//
//go:noescape
func addObsAVX2(w, u, x []float64, y float64)

// learnAVX2 is the assembly kernel (rls_amd64.s). It requires d = len(x)
// >= 1, len(w), len(p) >= d(d+1)/2, len(u), len(theta) >= d and len(g) >=
// ScratchLen(d). It returns x^T V^-1 x as learnGo does.
//
//go:noescape
func learnAVX2(w, u, p, theta, x []float64, y float64, g []float64) (xVx float64)
