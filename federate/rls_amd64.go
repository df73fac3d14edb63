//go:build amd64 && !purego

package federate

// addObs adds one observation to a silo's statistics: w += x x^T (packed)
// and u += y x, by the AVX2/FMA kernel where the CPU has it, else
// addObsGo; both give the same bits (see addObsGo).
func addObs(w, u, x []float64, y float64) {
	if useAVX2 {
		addObsAsm(w, u, x, y)
		return
	}
	addObsGo(w, u, x, y)
}

// learn is the eager learner's per-observation step, addObs(w, u, x, y)
// then the recursive least-squares step rlsUpdateGo(p, theta, x, y, g), by
// the fused AVX2/FMA kernel where the CPU has it, else learnGo; both give
// the same bits.
func learn(w, u, p, theta, x []float64, y float64, g []float64) {
	if useAVX2 {
		learnAsm(w, u, p, theta, x, y, g)
		return
	}
	learnGo(w, u, p, theta, x, y, g)
}

// addObsAsm is addObs by the assembly kernel. It checks the slices as
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

// learnAsm is learn by the assembly kernel, with the slices checked as
// learnGo's slicing does. The CPU must have AVX2 and FMA.
func learnAsm(w, u, p, theta, x []float64, y float64, g []float64) {
	d := len(x)
	w = w[:d*(d+1)/2]
	u = u[:d]
	p = p[:d*(d+1)/2]
	theta = theta[:d]
	g = g[:rlsScratchLen(d)]
	if d == 0 {
		return
	}
	learnAVX2(w, u, p, theta, x, y, g)
}

// addObsAVX2 is the assembly kernel (rls_amd64.s). It requires d =
// len(x) >= 1, len(w) >= d(d+1)/2 and len(u) >= d.
//
//go:noescape
func addObsAVX2(w, u, x []float64, y float64)

// learnAVX2 is the assembly kernel (rls_amd64.s). It requires d = len(x)
// >= 1, len(w), len(p) >= d(d+1)/2, len(u), len(theta) >= d and len(g) >=
// rlsScratchLen(d).
//
//go:noescape
func learnAVX2(w, u, p, theta, x []float64, y float64, g []float64)
