//go:build !purego

package vec

import (
	"math"
	"syscall"
	"testing"
	"unsafe"
)

// guardedFloats returns a slice of n float64s whose memory ends (if atEnd)
// or starts right at an inaccessible page, so that any access past that
// end faults.
func guardedFloats(t *testing.T, n int, atEnd bool) []float64 {
	t.Helper()
	page := syscall.Getpagesize()
	size := (n*8 + page - 1) / page * page
	mem, err := syscall.Mmap(-1, 0, size+page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	guard, data := mem[size:], mem[size-n*8:size]
	if !atEnd {
		guard, data = mem[:page], mem[page:page+n*8]
	}
	if err := syscall.Mprotect(guard, syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&data[0])), n)
}

// TestUCBScoresAsmStaysInBounds runs the assembly kernel on inputs and
// output that end (then start) at an inaccessible page: a read or write
// outside dst[:4nb], x[:4nb d], p[:d(d+1)/2] or theta[:d] crashes the test.
func TestUCBScoresAsmStaysInBounds(t *testing.T) {
	skipWithoutAVX2(t)
	for _, c := range ucbCases() {
		if c.nb > 9 && c.d%4 != 0 {
			continue // keep the test fast: all d, the short panels
		}
		n := Lanes * c.nb
		want := make([]float64, n)
		ucbScoresGo(want, c.x, c.nb, c.d, c.p, c.theta, c.beta)
		for _, atEnd := range []bool{true, false} {
			dst := guardedFloats(t, n, atEnd)
			x := guardedFloats(t, len(c.x), atEnd)
			p := guardedFloats(t, len(c.p), atEnd)
			theta := guardedFloats(t, len(c.theta), atEnd)
			copy(x, c.x)
			copy(p, c.p)
			copy(theta, c.theta)
			ucbScoresAsm(dst, x, c.nb, c.d, p, theta, c.beta)
			for i := range want {
				if math.Float64bits(dst[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%s: lane %d: got %v, want %v", c.name, i, dst[i], want[i])
				}
			}
		}
	}
}
