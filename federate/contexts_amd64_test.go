//go:build amd64 && !purego

package federate

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// init hands the assembly kernels (behind their length checks) to the
// tests of normal_test.go, which compare them with the portable ones.
func init() {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		asmZigFast, asmNormalize = zigFastAsm, normalizeAsm
	}
}

// TestContextKernelsCheckLengths checks that the assembly kernels'
// wrappers refuse slices the kernels would overrun (the kernels have no
// bounds checks of their own).
func TestContextKernelsCheckLengths(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2/FMA")
	}
	const d, nb = 10, 3
	theta := make([]float64, d)
	okX, okMu, okZ := make([]float64, panelLen(nb*panelLanes, d)), make([]float64, nb*panelLanes), make([]float64, nb*panelLanes*(d-1))
	var s [16]uint64
	s[0] = 1
	cases := []struct {
		name string
		call func()
	}{
		{"zigFast short rej", func() { zigFastAsm(make([]float64, 64), &s, make([]zigRejStep, 7), &zigTable) }},
		{"zigFast ragged z", func() { zigFastAsm(make([]float64, 60), &s, make([]zigRejStep, 8), &zigTable) }},
		{"normalize short x", func() { normalizeAsm(okX[:len(okX)-1], okMu, okZ, nb, theta) }},
		{"normalize short mu", func() { normalizeAsm(okX, okMu[:len(okMu)-1], okZ, nb, theta) }},
		{"normalize short z", func() { normalizeAsm(okX, okMu, okZ[:len(okZ)-1], nb, theta) }},
		{"normalize d = 1", func() { normalizeAsm(okX, okMu, okZ, nb, theta[:1]) }},
	}
	for _, c := range cases {
		checkPanics(t, c.name, c.call)
	}
	// The exact lengths are accepted.
	zigFastAsm(make([]float64, 64), &s, make([]zigRejStep, 8), &zigTable)
	normalizeAsm(okX, okMu, okZ, nb, theta)
}
