//go:build amd64 && !purego

package ziggurat

import (
	"fmt"
	"testing"
)

// TestFastAsmChecksLengths checks that the assembly kernel's wrapper
// refuses slices the kernel would overrun (it has no bounds checks of
// its own).
func TestFastAsmChecksLengths(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2/FMA")
	}
	var s [16]uint64
	s[0] = 1
	cases := []struct {
		name string
		call func()
	}{
		{"zigFast short rej", func() { zigFastAsm(make([]float64, 64), &s, make([]RejStep, 7), &zigTable) }},
		{"zigFast ragged z", func() { zigFastAsm(make([]float64, 60), &s, make([]RejStep, 8), &zigTable) }},
	}
	for _, c := range cases {
		checkPanics(t, c.name, c.call)
	}
	// The exact lengths are accepted.
	zigFastAsm(make([]float64, 64), &s, make([]RejStep, 8), &zigTable)
}

// TestBestIsAssembly: on a machine with AVX2 and FMA, Best is the
// assembly kernel (a kernel left on its Go twin would pass every
// bit-identity test unnoticed, only slower).
func TestBestIsAssembly(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2/FMA")
	}
	k, ok := Assembly()
	if !ok || k.Name() != "avx2+fma" || fmt.Sprintf("%p", k.fast) != fmt.Sprintf("%p", zigFastAsm) {
		t.Fatalf("Assembly() = %q, %v", k.Name(), ok)
	}
	if b := Best(); b.Name() != k.Name() || fmt.Sprintf("%p", b.fast) != fmt.Sprintf("%p", k.fast) {
		t.Errorf("Best() is %q, not the assembly kernel", b.Name())
	}
}
