//go:build !amd64 || purego

package federate

// useAVX2 reports whether the package's assembly kernels are in use: there
// are none for this architecture (or the purego build tag is set).
const useAVX2 = false

// ucbKernel returns the UCB kernel for this machine: ucbScoresGo.
func ucbKernel() func(dst, x []float64, nb, d int, p, theta []float64, beta float64) {
	return ucbScoresGo
}
