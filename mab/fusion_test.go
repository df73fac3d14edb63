package mab

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRewardNotFused: a clipped Gaussian reward is mu + float64(sd*z), the
// product rounded on its own, on every architecture. arm64 (and amd64 built
// with GOAMD64=v3) would otherwise fuse mu + sd*z into one multiply-add and
// round once; the test draws rewards where the two roundings differ and
// fails if the kernel returns the fused one. It can only fail on such a
// build: scripts/crossarch.sh runs it under qemu-aarch64 and with
// GOAMD64=v3 (mutation check: without the float64() it fails there).
func TestRewardNotFused(t *testing.T) {
	const sd = 0.1
	reward := gaussianClipped(sd)
	differ := 0
	for seed := uint64(0); seed < 200; seed++ {
		mu := 0.3 + float64(seed)/1000
		z := rand.New(rand.NewPCG(seed, 1)).NormFloat64()
		unfused := min(max(mu+float64(sd*z), 0), 1)
		fused := min(max(math.FMA(sd, z, mu), 0), 1)
		if fused != unfused {
			differ++
		}
		if got := reward(rand.New(rand.NewPCG(seed, 1)), mu); got != unfused {
			t.Fatalf("seed %d: reward %v, want the unfused %v (fused: %v)", seed, got, unfused, fused)
		}
	}
	if differ < 10 {
		t.Fatalf("only %d of 200 draws tell a fused reward from an unfused one: the test would not see a fusion", differ)
	}
}
