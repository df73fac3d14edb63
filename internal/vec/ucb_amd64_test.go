//go:build amd64 && !purego

package vec

import (
	"testing"

	"golang.org/x/sys/cpu"

	"github.com/fedbandit/fedbandit/internal/stattest"
)

// skipWithoutAVX2 skips a test of the assembly kernel on CPUs that cannot
// run it.
func skipWithoutAVX2(t *testing.T) {
	t.Helper()
	if !cpu.X86.HasAVX2 || !cpu.X86.HasFMA {
		t.Skip("CPU lacks AVX2 or FMA: the assembly kernel cannot run here")
	}
}

// TestUCBScoresAsm checks the assembly kernel itself (not Best's
// UCBScores) against ucbScoresGo, bit for bit, and the inputs it does not
// hand to the assembly (nb = 0, d = 0).
func TestUCBScoresAsm(t *testing.T) {
	skipWithoutAVX2(t)
	checkUCBKernel(t, ucbScoresAsm, ucbScoresGo)

	for _, beta := range []float64{1.5, -2} {
		got, want := []float64{7, 7, 7, 7, 7, 7, 7, 7, 9}, make([]float64, 8)
		ucbScoresGo(want, nil, 2, 0, nil, nil, beta)
		ucbScoresAsm(got, nil, 2, 0, nil, nil, beta)
		if !stattest.SameBits(got[:8], want) || got[8] != 9 {
			t.Errorf("d = 0, beta %v: got %v, want %v", beta, got, want)
		}
	}
	got := []float64{7}
	ucbScoresAsm(got, nil, 0, 5, make([]float64, 15), make([]float64, 5), 1)
	if got[0] != 7 {
		t.Errorf("nb = 0 wrote dst: %v", got)
	}
}

// TestUCBScoresAsmChecksLengths checks that the assembly kernel's wrapper
// panics, as ucbScoresGo does, on a slice too short for nb and d instead of
// reading or writing past it.
func TestUCBScoresAsmChecksLengths(t *testing.T) {
	const nb, d = 3, 5
	full := [4]int{4 * nb, 4 * nb * d, d * (d + 1) / 2, d} // dst, x, p, theta
	for short, name := range []string{"dst", "x", "p", "theta"} {
		n := full
		n[short]--
		for kernel, f := range map[string]ucbKernelFunc{"go": ucbScoresGo, "asm": ucbScoresAsm} {
			checkPanics(t, kernel+": "+name+" one short", func() {
				f(make([]float64, n[0]), make([]float64, n[1]), nb, d, make([]float64, n[2]), make([]float64, n[3]), 1)
			})
		}
	}
}
