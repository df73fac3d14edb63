package accountant

import (
	"fmt"
	"math"
	"testing"
)

// nodesContaining counts the tree nodes (l, a) that contain batch j among K
// batches: node (l, a) covers batches [a 2^l + 1, (a+1) 2^l] and exists iff
// (a+1) 2^l <= K. Written from the definition, independently of Kappa.
func nodesContaining(j, k int) int {
	n := 0
	for l := 0; 1<<l <= k; l++ {
		a := (j - 1) >> l // the level-l node containing j
		if (a+1)<<l <= k {
			n++
		}
	}
	return n
}

// checkKappa verifies a kappa function against the tree: for every K up to
// maxK it must bound the nodes containing any batch and be attained at
// batch 1 (tight).
func checkKappa(kappa func(int) int, maxK int) error {
	for k := 1; k <= maxK; k++ {
		worst := 0
		for j := 1; j <= k; j++ {
			worst = max(worst, nodesContaining(j, k))
		}
		if got := kappa(k); got < worst {
			return fmt.Errorf("K = %d: kappa = %d under-counts: a batch is in %d nodes", k, got, worst)
		} else if got != nodesContaining(1, k) {
			return fmt.Errorf("K = %d: kappa = %d but batch 1 is in %d nodes (not tight)", k, got, nodesContaining(1, k))
		}
	}
	return nil
}

// T2: kappa = 1 + floor(log2 K) with K = ceil(T/B).
func TestKappaTable(t *testing.T) {
	tests := []struct{ t, b, k, kappa, codeN int }{
		{16384, 16, 1024, 11, 11},
		{10000, 10, 1000, 10, 10},
		{10000, 25, 400, 9, 9},
		{25000, 25, 1000, 10, 10},
		{1, 1, 1, 1, 1},
		{5, 5, 1, 1, 1},
		{10001, 25, 401, 9, 9},    // T not divisible by B
		{31*25 + 1, 25, 32, 6, 5}, // partial last batch makes K a power of two
		{2047, 1, 2047, 11, 11},
		{2048, 1, 2048, 12, 12},
	}
	for _, tc := range tests {
		k := NumBatches(tc.t, tc.b)
		if k != tc.k || Kappa(k) != tc.kappa {
			t.Errorf("T=%d B=%d: K=%d kappa=%d, want %d, %d", tc.t, tc.b, k, Kappa(k), tc.k, tc.kappa)
		}
		c, err := Calibrate(Request{Preset: PresetReferenceCode, Model: ModelLDP, Eps: 1, Delta: 0.1,
			M: 2, T: tc.t, B: tc.b, D: 3, R: 1, Crs: 1})
		if err != nil {
			t.Fatal(err)
		}
		if c.K != tc.k || c.Kappa != tc.kappa || c.CodeN != tc.codeN {
			t.Errorf("T=%d B=%d: calibration K=%d kappa=%d N=%d, want %d %d %d", tc.t, tc.b, c.K, c.Kappa, c.CodeN, tc.k, tc.kappa, tc.codeN)
		}
	}
	if Kappa(0) != 0 {
		t.Errorf("Kappa(0) = %d", Kappa(0))
	}
}

// T2: Kappa matches the tree exactly; a natural-log kappa (the ICML 2022
// script's slip) must be caught by the same check.
func TestKappaAgainstTree(t *testing.T) {
	if err := checkKappa(Kappa, 1100); err != nil {
		t.Fatal(err)
	}
	if nodesContaining(1, 1024) != 11 || nodesContaining(1, 1000) != 10 {
		t.Fatal("tree enumeration broken")
	}
	mutant := func(k int) int { return 1 + int(math.Floor(math.Log(float64(k)))) }
	if err := checkKappa(mutant, 1100); err == nil {
		t.Fatal("mutation control: natural-log kappa passed the tree check")
	}
}

// T2: the paper's sigma0 and the accountant on the table of privacy.md 3.2.
func TestSigma0Golden(t *testing.T) {
	const delta = 1e-5
	tests := []struct {
		t, b                        int
		eps, s2, s0, perStream      float64
		totBS, totCKS, totEx, anSig float64
	}{
		{16384, 16, 0.5, 4472.54, 66.877, 0.2463, 0.339, 0.256, 0.2315, 32.98},
		{16384, 16, 1.0, 1162.13, 34.090, 0.4854, 0.670, 0.530, 0.482, 17.50},
		{16384, 16, 5.0, 60.565, 7.782, 2.1965, 3.074, 2.666, 2.457, 4.183},
		{10000, 10, 1.0, 1056.49, 32.504, 0.4854, 0.670, 0.530, 0.482, 16.68},
	}
	// printed to d decimals: |got - want| <= half a unit of the last digit.
	near := func(got, want float64, decimals int) bool {
		return math.Abs(got-want) <= 0.5*math.Pow(10, -float64(decimals))+1e-12
	}
	for _, tc := range tests {
		kappa := Kappa(NumBatches(tc.t, tc.b))
		s := PaperLDPSigma(tc.eps, delta, kappa)
		rhoStream := float64(kappa) / (2 * s * s)
		ps, _ := BSEps(rhoStream, delta/2)
		bs, _ := BSEps(2*rhoStream, delta)
		cks, _ := CKSEps(2*rhoStream, delta)
		mu, _ := TreeMu(s, kappa, AddRemove)
		ex, _ := GDPEps(mu, delta)
		an, _ := ExactLDPSigma(tc.eps, delta, kappa, AddRemove)
		checks := []struct {
			name      string
			got, want float64
			dec       int
		}{
			{"sigma0^2", s * s, tc.s2, decimalsOf(tc.s2)}, {"sigma0", s, tc.s0, 3},
			{"per-stream BS", ps, tc.perStream, 4},
			{"total BS", bs, tc.totBS, 3}, {"total CKS", cks, tc.totCKS, 3},
			{"total exact", ex, tc.totEx, decimalsOf(tc.totEx)}, {"analytic sigma", an, tc.anSig, decimalsOf(tc.anSig)},
		}
		for _, c := range checks {
			if !near(c.got, c.want, c.dec) {
				t.Errorf("K=%d eps=%v: %s = %v, want %v", NumBatches(tc.t, tc.b), tc.eps, c.name, c.got, c.want)
			}
		}
	}
	// Bug probes of privacy.md 3.2 (eps = 1, K = 1024).
	s := PaperLDPSigma(1, delta, 11)
	mu, _ := TreeMu(s, 11, ReplaceOne)
	ex, _ := GDPEps(mu, delta)
	if !near(mu, 0.238, 3) || !near(ex, 0.879, 3) {
		t.Errorf("replace-one at sigma0: mu %v eps %v, want 0.238 0.879", mu, ex)
	}
	kl := 1 + math.Log(1024) // 7.93, unfloored natural log
	sl := math.Sqrt(8*kl*(math.Log(2/delta)+1)) / 1
	muL, _ := TreeMu(sl, 11, AddRemove)
	exL, _ := GDPEps(muL, delta)
	bsL, _ := BSEps(11/(sl*sl), delta)
	if !near(exL, 0.576, 3) || !near(bsL, 0.791, 3) {
		t.Errorf("ln-kappa probe: exact %v BS %v, want 0.576 0.791", exL, bsL)
	}
}

// decimalsOf returns the number of printed decimals of a golden constant.
func decimalsOf(x float64) int {
	for d := 0; d < 8; d++ {
		p := math.Pow(10, float64(d))
		if math.Abs(math.Round(x*p)-x*p) < 1e-6 {
			return d
		}
	}
	return 8
}

// T2: postconditions over an eps x delta x K grid: the paper's sigma0
// gives each stream BS eps <= eps/2 at delta/2 and the whole tree exact
// eps <= eps; the exact preset is certified and tight. The same checks with
// a natural-log kappa must fail somewhere (mutation control).
func TestSigmaPostconditionsGrid(t *testing.T) {
	post := func(kappaOf func(int) int) error {
		for _, eps := range []float64{0.05, 0.2, 1, 5} {
			for _, delta := range []float64{1e-8, 1e-5, 1e-3, 0.1} {
				for _, k := range []int{1, 2, 3, 7, 8, 400, 1000, 1024, 1 << 16} {
					trueKappa := Kappa(k)
					s := PaperLDPSigma(eps, delta, kappaOf(k))
					ps, _ := BSEps(float64(trueKappa)/(2*s*s), delta/2)
					if ps > eps/2 {
						return fmt.Errorf("eps=%v delta=%v K=%d: per-stream BS eps %v > eps/2", eps, delta, k, ps)
					}
					mu, _ := TreeMu(s, trueKappa, AddRemove)
					if ex, _ := GDPEps(mu, delta); ex > eps {
						return fmt.Errorf("eps=%v delta=%v K=%d: exact eps %v > eps", eps, delta, k, ex)
					}
				}
			}
		}
		return nil
	}
	if err := post(Kappa); err != nil {
		t.Fatal(err)
	}
	lnKappa := func(k int) int { return 1 + int(math.Floor(math.Log(float64(k)))) }
	if post(lnKappa) == nil {
		t.Fatal("mutation control: sigma0 with natural-log kappa passed the postconditions")
	}
	for _, eps := range []float64{0.05, 1, 5} {
		for _, delta := range []float64{1e-8, 1e-5, 0.1} {
			for _, k := range []int{1, 8, 1000} {
				for _, rel := range []string{AddRemove, ReplaceOne} {
					s, err := ExactLDPSigma(eps, delta, Kappa(k), rel)
					if err != nil {
						t.Fatal(err)
					}
					e, _, _, _ := Delivered(ModelLDP, s, Kappa(k), 10, 25, delta, rel)
					if ok, _ := Certifies(ModelLDP, s, Kappa(k), 10, 25, eps, delta, rel); !ok || e > eps*(1+1e-13) {
						t.Errorf("exact sigma %v delivers %v > %v", s, e, eps)
					}
					e2, _, _, _ := Delivered(ModelLDP, s*(1-1e-6), Kappa(k), 10, 25, delta, rel)
					if e2 <= eps {
						t.Errorf("exact sigma %v is not the smallest (eps=%v delta=%v K=%d %s)", s, eps, delta, k, rel)
					}
				}
			}
		}
	}
}
