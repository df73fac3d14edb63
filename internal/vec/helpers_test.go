package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// fillWild fills s with values of random sign and magnitudes spread
// log-uniformly over 1e-300..1e300 (kernel tests' extreme-scale regime).
func fillWild(r *rand.Rand, s []float64) {
	for i := range s {
		v := math.Pow(10, -300+600*r.Float64())
		if r.IntN(2) == 0 {
			v = -v
		}
		s[i] = v
	}
}

// checkPanics reports an error naming what if f returns without panicking.
func checkPanics(t testing.TB, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", what)
		}
	}()
	f()
}
