package dpnoise

import (
	"math/rand/v2"
	"testing"
)

// TestAccept128 is the 128-bit acceptance test against math/big's, draw
// for draw: on random inputs of the discrete Gaussian's shapes (variance
// parameters from 2^30 to 2^46, |y| mostly below 3 t and up to 40 t,
// denominators 1 and 2^20)
// both sources must give the same decision and stand at the same state
// afterwards, so every sample is the same whichever path decides it. The
// cases where accept128 declines (ok false) draw nothing and are counted.
// Mutation controls (tried 2026-11-27): drawing the high word before the
// low one in the uniform, or dropping the mask of the top word, makes
// decisions or states differ within the first hundred cases.
func TestAccept128(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	handled, declined, decided := 0, 0, [2]int{}
	for n := 0; n < 20000; n++ {
		v := 1<<30 + r.Uint64N(1<<46)>>r.Uint64N(17) // 2^30 .. 2^46
		den := uint64(1)
		if n%3 == 0 && v < 1<<40 {
			den = 1 << 20
		}
		num := v * den
		tt := isqrt(num/den) + 1
		a := r.Uint64N(3 * tt) // |y| of the discrete Laplace of scale t, mostly
		if n%10 == 0 {
			a = r.Uint64N(40 * tt) // and its far tail
		}
		var seed [32]byte
		seed[0], seed[1], seed[2] = byte(n), byte(n>>8), byte(n>>16)
		s1, s2 := rand.NewChaCha8(seed), rand.NewChaCha8(seed)
		got, ok := accept128(s1, a, tt, num, den)
		if !ok {
			declined++
			if s1.Uint64() != s2.Uint64() {
				t.Fatalf("case %d: declined after drawing", n)
			}
			continue
		}
		handled++
		want := acceptBig(s2, a, tt, num, den)
		if got != want || s1.Uint64() != s2.Uint64() {
			t.Fatalf("case %d (a %d, t %d, num %d, den %d): 128-bit %v, big %v, or the sources differ after", n, a, tt, num, den, got, want)
		}
		if got {
			decided[1]++
		} else {
			decided[0]++
		}
	}
	if handled < 10000 || decided[0] == 0 || decided[1] == 0 {
		t.Errorf("handled %d, declined %d, accepted %d, rejected %d: the comparison tests too little", handled, declined, decided[1], decided[0])
	}
	t.Logf("handled %d (accepted %d, rejected %d), declined %d", handled, decided[1], decided[0], declined)
}
