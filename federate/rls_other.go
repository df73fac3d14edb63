//go:build !amd64 || purego

package federate

// addObs adds one observation to a silo's statistics: w += x x^T (packed)
// and u += y x, as addObsGo.
func addObs(w, u, x []float64, y float64) { addObsGo(w, u, x, y) }

// rlsUpdate is the eager learner's recursive least-squares step: see
// rlsUpdateGo, which defines it.
func rlsUpdate(p, theta, x []float64, y float64, g []float64) {
	rlsUpdateGo(p, theta, x, y, g)
}
