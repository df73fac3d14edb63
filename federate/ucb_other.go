//go:build !amd64 || purego

package federate

// useUCBAsm reports whether ucbScores is an assembly kernel: there is none
// for this architecture (or the purego build tag is set).
const useUCBAsm = false

// ucbKernel returns the UCB kernel for this machine: ucbScoresGo.
func ucbKernel() func(dst, x []float64, nb, d int, p, theta []float64, beta float64) {
	return ucbScoresGo
}
