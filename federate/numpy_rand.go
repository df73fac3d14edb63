package federate

// NumpyRand returns what np.random.seed(seed); np.random.rand(n) returns:
// n uniforms in [0, 1) from numpy's legacy MT19937 stream, bit for bit.
// The multi-armed bandit family (package mab) draws the published
// script's arm means with it.
func NumpyRand(seed uint32, n int) []float64 {
	m := newNumpyMT(seed)
	out := make([]float64, n)
	for i := range out {
		out[i] = m.double()
	}
	return out
}
