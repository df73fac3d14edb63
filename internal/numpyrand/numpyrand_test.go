package numpyrand

import "testing"

// BenchmarkGauss: one normal of the stream (MT19937, polar method, the
// double-double log).
func BenchmarkGauss(b *testing.B) {
	r := New(2)
	var s float64
	for i := 0; i < b.N; i++ {
		s += r.Gauss()
	}
	_ = s
}

// BenchmarkLog and BenchmarkUint32 time the parts.
func BenchmarkLog(b *testing.B) {
	x := 0.3
	var s float64
	for i := 0; i < b.N; i++ {
		s += Log(x)
		x += 1e-9
	}
	_ = s
}

func BenchmarkUint32(b *testing.B) {
	r := New(2)
	var s uint32
	for i := 0; i < b.N; i++ {
		s += r.Uint32()
	}
	_ = s
}
