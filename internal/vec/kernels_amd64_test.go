//go:build amd64 && !purego

package vec

import (
	"fmt"
	"testing"
)

// TestBestIsAssembly: on a machine with AVX2 and FMA, every kernel of
// Best is its assembly kernel (a kernel left on its Go twin would pass
// every bit-identity test unnoticed, only slower).
func TestBestIsAssembly(t *testing.T) {
	skipWithoutAVX2(t)
	k := Best()
	same := func(a, b any) bool { return fmt.Sprintf("%p", a) == fmt.Sprintf("%p", b) }
	if k.Name != "avx2+fma" {
		t.Errorf("Best().Name = %q", k.Name)
	}
	for name, ok := range map[string]bool{
		"UCBScores":   same(k.UCBScores, ucbScoresAsm),
		"Normalize":   same(k.Normalize, normalizeAsm),
		"ArgmaxFirst": same(k.ArgmaxFirst, argmaxFirstAsm),
		"AddObs":      same(k.AddObs, addObsAsm),
		"Learn":       same(k.Learn, learnAsm),
	} {
		if !ok {
			t.Errorf("Best().%s is not the assembly kernel", name)
		}
	}
}

// TestNormalizeAsmChecksLengths checks that the assembly kernel's wrapper
// refuses slices the kernel would overrun (it has no bounds checks of its
// own).
func TestNormalizeAsmChecksLengths(t *testing.T) {
	skipWithoutAVX2(t)
	const d, nb = 10, 3
	theta := make([]float64, d)
	okX, okMu, okZ := make([]float64, PanelLen(nb*Lanes, d)), make([]float64, nb*Lanes), make([]float64, nb*Lanes*(d-1))
	cases := []struct {
		name string
		call func()
	}{
		{"normalize short x", func() { normalizeAsm(okX[:len(okX)-1], okMu, okZ, nb, theta) }},
		{"normalize short mu", func() { normalizeAsm(okX, okMu[:len(okMu)-1], okZ, nb, theta) }},
		{"normalize short z", func() { normalizeAsm(okX, okMu, okZ[:len(okZ)-1], nb, theta) }},
		{"normalize d = 1", func() { normalizeAsm(okX, okMu, okZ, nb, theta[:1]) }},
	}
	for _, c := range cases {
		checkPanics(t, c.name, c.call)
	}
	// The exact lengths are accepted.
	normalizeAsm(okX, okMu, okZ, nb, theta)
}
