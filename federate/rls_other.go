//go:build !amd64 || purego

package federate

// addObs adds one observation to a silo's statistics: w += x x^T (packed)
// and u += y x, as addObsGo.
func addObs(w, u, x []float64, y float64) { addObsGo(w, u, x, y) }

// learn is the eager learner's per-observation step: see learnGo.
func learn(w, u, p, theta, x []float64, y float64, g []float64) {
	learnGo(w, u, p, theta, x, y, g)
}
