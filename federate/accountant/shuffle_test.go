package accountant

import (
	"math"
	"strings"
	"testing"
)

// T12: closed-form amplification golden values of privacy.md 3.7.
func TestShuffleGolden(t *testing.T) {
	tests := []struct {
		n           int
		eps0, delta float64
		fmt, apple  float64
	}{
		{10000, 1, 1e-6, 0.214026, 0.233266},
		{100000, 4, 1e-6, 0.534634, 0.537804},
		{1000, 1, 1e-5, 0.531987, 0.608836},
	}
	for _, tc := range tests {
		f, okF, err := FMTShuffleEps(tc.eps0, tc.n, tc.delta)
		if err != nil {
			t.Fatal(err)
		}
		a, okA, err := AppleShuffleEps(tc.eps0, tc.n, tc.delta)
		if err != nil {
			t.Fatal(err)
		}
		if !okF || !okA || math.Abs(f-tc.fmt) > 5e-7 || math.Abs(a-tc.apple) > 5e-7 {
			t.Errorf("n=%d eps0=%v delta=%v: FMT %v (%v) Apple %v (%v), want %v %v", tc.n, tc.eps0, tc.delta, f, okF, a, okA, tc.fmt, tc.apple)
		}
		if a < f {
			t.Errorf("Apple's form %v must be at least as conservative as Theorem 3.1's %v", a, f)
		}
	}
	// n = 100 is outside the regime: no amplification, eps0 returned.
	for _, fn := range []func(float64, int, float64) (float64, bool, error){FMTShuffleEps, AppleShuffleEps} {
		e, ok, err := fn(1, 100, 1e-5)
		if err != nil || ok || e != 1 {
			t.Errorf("n=100: got %v, %v, %v; want eps0 = 1, not amplified", e, ok, err)
		}
	}
	// Between the two regimes (n = 1e4, delta = 1e-6: Theorem 3.1 accepts
	// eps0 <= 3.764, Apple only eps0 <= 3.716) the formulas would still
	// amplify; the guards must refuse.
	if e, ok, _ := AppleShuffleEps(3.74, 10000, 1e-6); ok || e != 3.74 {
		t.Errorf("Apple outside its regime: %v, %v; want 3.74, not amplified", e, ok)
	}
	if e, ok, _ := FMTShuffleEps(3.74, 10000, 1e-6); !ok || e >= 3.74 {
		t.Errorf("FMT inside its regime: %v, %v; want amplified", e, ok)
	}
	if e, ok, _ := FMTShuffleEps(3.8, 10000, 1e-6); ok || e != 3.8 {
		t.Errorf("FMT outside its regime: %v, %v; want 3.8, not amplified", e, ok)
	}
	// The regime guards themselves.
	if r := FMTRegime(100, 1e-5, false); r >= 0 {
		t.Errorf("FMTRegime(100, 1e-5) = %v, want < 0", r)
	}
	if FMTRegime(10000, 1e-6, true) >= FMTRegime(10000, 1e-6, false) {
		t.Error("Apple's regime must be stricter than Theorem 3.1's")
	}
}

// T12: monotonicity, and eps sqrt(n) roughly constant for small eps0 and
// large n; a mutant with 1/n in place of 1/sqrt(n) (the circulating
// script's bug) must fail the scaling check.
func TestShuffleScaling(t *testing.T) {
	const delta = 1e-6
	for _, fn := range []func(float64, int, float64) (float64, bool, error){FMTShuffleEps, AppleShuffleEps} {
		prev := math.Inf(1)
		for _, n := range []int{2000, 5000, 1e4, 1e5, 1e6, 1e7} {
			e, ok, _ := fn(1, n, delta)
			if !ok || e >= prev {
				t.Errorf("eps not decreasing in n at n=%d: %v (amplified %v)", n, e, ok)
			}
			prev = e
		}
		prev = 0
		for _, eps0 := range []float64{0.01, 0.1, 0.5, 1, 2, 4} {
			e, _, _ := fn(eps0, 1e6, delta)
			if e <= prev || e > eps0 {
				t.Errorf("eps not increasing in eps0 (or above eps0) at eps0=%v: %v", eps0, e)
			}
			prev = e
		}
	}
	scalingOK := func(f func(eps0 float64, n int, delta float64) float64) bool {
		base := f(0.5, 1e5, delta) * math.Sqrt(1e5)
		for _, n := range []int{1e6, 1e7, 1e8} {
			r := f(0.5, n, delta) * math.Sqrt(float64(n)) / base
			if r < 0.9 || r > 1.1 {
				return false
			}
		}
		return true
	}
	apple := func(eps0 float64, n int, delta float64) float64 { e, _, _ := AppleShuffleEps(eps0, n, delta); return e }
	fmtE := func(eps0 float64, n int, delta float64) float64 { e, _, _ := FMTShuffleEps(eps0, n, delta); return e }
	if !scalingOK(apple) || !scalingOK(fmtE) {
		t.Error("eps sqrt(n) is not roughly constant")
	}
	mutant := func(eps0 float64, n int, delta float64) float64 {
		e0, nf := math.Exp(eps0), float64(n)
		c := 4 * math.Sqrt(2*math.Log(2/delta)) / (math.Sqrt(e0+1) * nf) // decays like 1/n
		return math.Log1p((e0 - 1) / (e0 + 1) * c)
	}
	if scalingOK(mutant) {
		t.Fatal("mutation control: a 1/n amplification formula passed the scaling check")
	}
}

// T12: the (eps0, delta0) extension and advanced composition.
func TestExtensionAndComposition(t *testing.T) {
	d, err := ShuffleDeltaExtension(0.5, 1, 1e-9, 1000)
	if err != nil || relErr(d, 3.1359263211421664e-06) > 1e-12 || d < 3.1359263211421664e-06 {
		t.Errorf("extension = %v, %v; want 3.1359263211e-6", d, err)
	}
	e, dt, err := AdvancedComposition(0.01, 1e-7, 100, 1e-5)
	if err != nil || relErr(e, 0.48990275830297614) > 1e-12 || relErr(dt, 100*1e-7+1e-5) > 1e-12 {
		t.Errorf("advanced composition = %v, %v, %v; want 0.4899028, 2e-5", e, dt, err)
	}
	// When advanced composition is worse than basic, basic is returned.
	e, _, _ = AdvancedComposition(0.5, 0, 3, 1e-5)
	if relErr(e, 1.5) > 1e-12 {
		t.Errorf("basic composition fallback = %v, want 1.5", e)
	}
}

// T12: the tree accountant: no amplification with the paper's 100 silos;
// amplification with a million silos each holding one user per node; the
// delivered SDP guarantee is never worse than LDP; the exact SDP sigma is
// no larger than the exact LDP sigma and certifies its target.
func TestShuffleTree(t *testing.T) {
	res, err := ShuffleTree(0.650109, 9, 100, 25, 0.1, AddRemove)
	if err != nil {
		t.Fatal(err)
	}
	if res.Releases != 0 || !math.IsInf(res.Eps, 1) || !strings.Contains(res.Reason, "too few silos") {
		t.Errorf("M=100: %+v, want no amplification (too few silos)", res)
	}
	res, err = ShuffleTree(6, 1, 1000000, 1, 1e-6, AddRemove)
	if err != nil {
		t.Fatal(err)
	}
	ldp, _, _, _ := Delivered(ModelLDP, 6, 1, 1000000, 1, 1e-6, AddRemove)
	if res.Releases != 2 || !(res.Eps < ldp) {
		t.Errorf("M=1e6, B=1: %+v, want both releases amplified below LDP eps %v", res, ldp)
	}
	// Clone sensitivity: the same sigma with 1000 users per node cannot
	// hide among clones, so it is not amplified.
	res, _ = ShuffleTree(6, 1, 1000000, 1000, 1e-6, AddRemove)
	if res.Releases != 0 || !strings.Contains(res.Reason, "arbitrary local data") {
		t.Errorf("M=1e6, B=1000: %+v, want no amplification (clone sensitivity)", res)
	}
	for _, m := range []int{10, 100, 1e4, 1e6} {
		for _, sigma := range []float64{0.5, 3, 30} {
			for _, b := range []int{1, 25} {
				l, _, _, _ := Delivered(ModelLDP, sigma, 4, m, b, 1e-5, AddRemove)
				s, amp, note, err := Delivered(ModelSDPAmp, sigma, 4, m, b, 1e-5, AddRemove)
				if err != nil || s > l || (!amp && (s != l || note == "")) {
					t.Errorf("M=%d sigma=%v B=%d: SDP %v (amp %v, %q) vs LDP %v", m, sigma, b, s, amp, note, l)
				}
			}
		}
	}
	sl, _ := ExactLDPSigma(1, 1e-6, 1, AddRemove)
	ss, amp, _, err := ExactSDPSigma(1, 1e-6, 1, 1000000, 1, AddRemove)
	if err != nil || !amp || ss >= sl {
		t.Fatalf("exact SDP sigma %v (amp %v, %v) should be below exact LDP %v", ss, amp, err, sl)
	}
	if ok, _ := Certifies(ModelSDPAmp, ss, 1, 1000000, 1, 1, 1e-6, AddRemove); !ok {
		t.Errorf("exact SDP sigma %v does not certify", ss)
	}
	ss, amp, note, _ := ExactSDPSigma(1, 1e-6, 9, 100, 25, AddRemove)
	if amp || ss != mustExactLDP(t, 1, 1e-6, 9) || note == "" {
		t.Errorf("M=100: exact SDP sigma %v (amp %v, %q), want the LDP sigma with a note", ss, amp, note)
	}
}

func mustExactLDP(t *testing.T, eps, delta float64, kappa int) float64 {
	t.Helper()
	s, err := ExactLDPSigma(eps, delta, kappa, AddRemove)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
