package stattest

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKS: uniform draws pass against the uniform CDF; the same draws
// squared (a different law) fail, as does a shift by 0.02 at n = 10^5.
func TestKS(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, 100000)
	for i := range x {
		x[i] = r.Float64()
	}
	uniform := func(v float64) float64 { return min(max(v, 0), 1) }
	if err := KS(x, uniform); err != nil {
		t.Errorf("uniform draws: %v", err)
	}
	sq := make([]float64, len(x))
	sh := make([]float64, len(x))
	for i, v := range x {
		sq[i], sh[i] = v*v, v+0.02
	}
	if KS(sq, uniform) == nil || KS(sh, uniform) == nil {
		t.Error("KS accepts draws of another law")
	}
}

func TestSameBits(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		a, b []float64
		want bool
	}{
		{[]float64{1, 2}, []float64{1, 2}, true},
		{[]float64{nan}, []float64{nan}, true},
		{[]float64{0}, []float64{math.Copysign(0, -1)}, false},
		{[]float64{1}, []float64{1, 2}, false},
		{[]float64{1, 2}, []float64{1, math.Nextafter(2, 3)}, false},
	} {
		if got := SameBits(c.a, c.b); got != c.want {
			t.Errorf("SameBits(%v, %v) = %v", c.a, c.b, got)
		}
	}
}
