package federate

// Privacy tests of privacy.md section 5 owned by the simulator: T3, T4, T6,
// T7 and T13 (T5 lives in package tree, T14 in run_test.go). Statistical
// thresholds use z = 4.417 (two-sided false-alarm rate 1e-5 per check) with
// fixed seeds, so the tests are deterministic; every check has a mutation
// control showing that it bites.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/fedbandit/fedbandit/federate/tree"
	"github.com/fedbandit/fedbandit/internal/rng"
)

// z is the two-sided normal quantile for a false-alarm rate of 1e-5.
const z = 4.417

// ksCrit is the Kolmogorov-Smirnov critical value at alpha = 1e-6 for
// n = 5000 (privacy.md T3).
const (
	ksN    = 5000
	ksCrit = 0.0380516
)

// checkGaussian tests that the samples are i.i.d. N(0, variance): mean,
// variance (chi-square, normal approximation), excess kurtosis, and a KS
// test on the first ksN samples.
func checkGaussian(x []float64, variance float64) error {
	n := float64(len(x))
	var s1, s2, s4 float64
	for _, v := range x {
		s1 += v
		s2 += v * v
	}
	mean := s1 / n
	if math.Abs(mean) > z*math.Sqrt(variance/n) {
		return fmt.Errorf("mean %.4g outside +-%.4g", mean, z*math.Sqrt(variance/n))
	}
	// n s^2 / variance ~ chi2(n) (known mean 0): z-score of the statistic.
	if zz := (s2/variance - n) / math.Sqrt(2*n); math.Abs(zz) > z {
		return fmt.Errorf("variance %.5g vs expected %.5g: z = %.2f", s2/n, variance, zz)
	}
	m2 := s2 / n
	for _, v := range x {
		s4 += v * v * v * v
	}
	if k := s4/n/(m2*m2) - 3; math.Abs(k) > z*math.Sqrt(24/n) {
		return fmt.Errorf("excess kurtosis %.4f outside +-%.4f", k, z*math.Sqrt(24/n))
	}
	if len(x) >= ksN {
		y := append([]float64(nil), x[:ksN]...)
		sort.Float64s(y)
		sd := math.Sqrt(variance)
		var dmax float64
		for i, v := range y {
			c := 0.5 * math.Erfc(-v/sd/math.Sqrt2)
			dmax = max(dmax, math.Abs(c-float64(i)/ksN), math.Abs(c-float64(i+1)/ksN))
		}
		if dmax > ksCrit {
			return fmt.Errorf("KS distance %.4f > %.4f", dmax, ksCrit)
		}
	}
	return nil
}

// nodeDraws releases K nodes of zero data through the production noise
// path (gaussianNoise on the run's streams) for runs 1..runs, and returns
// the entries by class: Gram diagonal, Gram off-diagonal, bias.
func nodeDraws(runs, d, K int, sigma float64, conv string, noise func(run, i int, stream string, std []float64) tree.Noise) (diag, off, bias []float64, err error) {
	gstd, err := tree.GramStd(d, sigma, conv)
	if err != nil {
		return nil, nil, nil, err
	}
	bstd := make([]float64, d)
	for j := range bstd {
		bstd[j] = sigma
	}
	np := tree.PackedLen(d)
	for run := 1; run <= runs; run++ {
		g := tree.New(np, noise(run, 0, "gram", gstd))
		b := tree.New(d, noise(run, 0, "bias", bstd))
		for k := 1; k <= K; k++ {
			_, gn := g.Add(make([]float64, np))
			_, bn := b.Add(make([]float64, d))
			idx := 0
			for i := 0; i < d; i++ {
				diag = append(diag, gn[idx])
				off = append(off, gn[idx+1:idx+d-i]...)
				idx += d - i
			}
			bias = append(bias, bn...)
		}
	}
	return diag, off, bias, nil
}

func prodNoise(run, i int, stream string, std []float64) tree.Noise {
	return gaussianNoise(RunKey(uint64(run)), i, stream, std)
}

// checkNodeNoise is T3's assertion: diag ~ N(0, sigma^2), off-diagonal ~
// N(0, sigma^2/2) (Symmetrised convention, the default), bias ~ N(0,
// sigma^2).
func checkNodeNoise(diag, off, bias []float64, sigma float64) error {
	if err := checkGaussian(diag, sigma*sigma); err != nil {
		return fmt.Errorf("Gram diagonal: %w", err)
	}
	if err := checkGaussian(off, sigma*sigma/2); err != nil {
		return fmt.Errorf("Gram off-diagonal: %w", err)
	}
	if err := checkGaussian(bias, sigma*sigma); err != nil {
		return fmt.Errorf("bias: %w", err)
	}
	return nil
}

// TestT3NodeNoise is privacy.md T3: every released node entry of the real
// privatizer on all-zero data is N(0, sigma^2) on the Gram diagonal and the
// bias, N(0, sigma^2/2) off the diagonal (the published code's (Z+Z^T)/2
// convention), with >= 1e5 draws per class. Mutation controls: the other
// convention, sigma^2 used as a standard deviation, and Laplace noise of
// the right variance must each fail.
func TestT3NodeNoise(t *testing.T) {
	const d, K, runs, sigma = 4, 64, 400, 2.5
	diag, off, bias, err := nodeDraws(runs, d, K, sigma, tree.Symmetrised, prodNoise)
	if err != nil {
		t.Fatal(err)
	}
	if len(diag) < 1e5 || len(bias) < 1e5 {
		t.Fatalf("only %d / %d draws", len(diag), len(bias))
	}
	if err := checkNodeNoise(diag, off, bias, sigma); err != nil {
		t.Fatal(err)
	}

	mutants := map[string]func(run, i int, stream string, std []float64) tree.Noise{
		// sigma^2 as a standard deviation.
		"sigma squared": func(run, i int, stream string, std []float64) tree.Noise {
			sq := make([]float64, len(std))
			for e, v := range std {
				sq[e] = v * v
			}
			return prodNoise(run, i, stream, sq)
		},
		// Laplace noise with the right variance (b = std/sqrt2).
		"laplace": func(run, i int, stream string, std []float64) tree.Noise {
			r := rng.New(RunKey(uint64(run)), "silo", i, stream)
			return noiseFunc(func(dst []float64, k, level int) {
				for e := range dst {
					dst[e] = std[e] / math.Sqrt2 * r.ExpFloat64() * float64(1-2*int(r.Uint64()&1))
				}
			})
		},
	}
	for name, nf := range mutants {
		dg, of, bs, err := nodeDraws(runs/4, d, K, sigma, tree.Symmetrised, nf)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkNodeNoise(dg, of, bs, sigma); err == nil {
			t.Errorf("mutant %q passed T3", name)
		} else {
			t.Logf("mutant %q caught: %v", name, err)
		}
	}
	// Wrong convention: upper-iid draws checked against the symmetrised
	// variance pattern.
	dg, of, bs, err := nodeDraws(runs/4, d, K, sigma, tree.UpperIID, prodNoise)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkNodeNoise(dg, of, bs, sigma); err == nil {
		t.Error("upper-iid convention passed the symmetrised T3 check")
	}
	// ... and upper-iid passes its own pattern.
	if err := checkGaussian(of, sigma*sigma); err != nil {
		t.Errorf("upper-iid off-diagonal: %v", err)
	}
}

type noiseFunc func(dst []float64, k, level int)

func (f noiseFunc) Fill(dst []float64, k, level int) { f(dst, k, level) }

// corrOK checks that every pair of series has |r| <= 4.9/sqrt(n)
// (Bonferroni over pairs, privacy.md T4).
func corrOK(series map[string][]float64) error {
	names := make([]string, 0, len(series))
	for k := range series {
		names = append(names, k)
	}
	sort.Strings(names)
	for a := 0; a < len(names); a++ {
		for b := a + 1; b < len(names); b++ {
			x, y := series[names[a]], series[names[b]]
			n := min(len(x), len(y))
			var sx, sy, sxx, syy, sxy float64
			for i := 0; i < n; i++ {
				sx += x[i]
				sy += y[i]
				sxx += x[i] * x[i]
				syy += y[i] * y[i]
				sxy += x[i] * y[i]
			}
			fn := float64(n)
			r := (sxy - sx*sy/fn) / math.Sqrt((sxx-sx*sx/fn)*(syy-sy*sy/fn))
			if math.Abs(r) > 4.9/math.Sqrt(fn) {
				return fmt.Errorf("corr(%s, %s) = %.4f > %.4f (n = %d)", names[a], names[b], r, 4.9/math.Sqrt(fn), n)
			}
		}
	}
	return nil
}

// independenceSeries collects, over runs, noise draws that must be
// mutually independent: two entries of one node, consecutive nodes (two
// levels), two silos, the two streams, and two runs.
func independenceSeries(runs int, noise func(run, i int, stream string, std []float64) tree.Noise) map[string][]float64 {
	const d, K = 3, 32
	gstd, _ := tree.GramStd(d, 1, tree.Symmetrised)
	bstd := []float64{1, 1, 1}
	np := tree.PackedLen(d)
	out := map[string][]float64{}
	for run := 1; run <= runs; run++ {
		g0 := tree.New(np, noise(run, 0, "gram", gstd))
		g1 := tree.New(np, noise(run, 1, "gram", gstd))
		b0 := tree.New(d, noise(run, 0, "bias", bstd))
		gNext := tree.New(np, noise(run+runs, 0, "gram", gstd)) // another run
		var prev []float64
		for k := 1; k <= K; k++ {
			_, n0 := g0.Add(make([]float64, np))
			_, n1 := g1.Add(make([]float64, np))
			_, nb := b0.Add(make([]float64, d))
			_, nr := gNext.Add(make([]float64, np))
			out["silo0 diag0"] = append(out["silo0 diag0"], n0[0])
			out["silo0 off01"] = append(out["silo0 off01"], n0[1]*math.Sqrt2)
			out["silo1 diag0"] = append(out["silo1 diag0"], n1[0])
			out["bias0"] = append(out["bias0"], nb[0])
			out["other run diag0"] = append(out["other run diag0"], nr[0])
			if prev != nil {
				out["previous node diag0"] = append(out["previous node diag0"], prev[0])
			} else {
				out["previous node diag0"] = append(out["previous node diag0"], 0)
			}
			prev = append(prev[:0], n0...)
		}
	}
	return out
}

// TestT4Independence is privacy.md T4: no correlation across entries,
// nodes, silos, streams or runs; derived stream keys are pairwise
// distinct. Mutation control: two silos sharing one noise stream (the
// server could cancel the noise of S1 - S2) must fail.
func TestT4Independence(t *testing.T) {
	if err := corrOK(independenceSeries(1000, prodNoise)); err != nil {
		t.Fatal(err)
	}
	shared := func(run, i int, stream string, std []float64) tree.Noise {
		return prodNoise(run, 0, stream, std) // every silo uses silo 0's stream
	}
	if err := corrOK(independenceSeries(200, shared)); err == nil {
		t.Error("shared-noise mutant passed T4")
	} else {
		t.Logf("shared-noise mutant caught: %v", err)
	}

	keys := map[rng.Key]string{}
	for run := uint64(1); run <= 20; run++ {
		rk := RunKey(run)
		add := func(k rng.Key, what string) {
			if prev, ok := keys[k]; ok {
				t.Fatalf("stream key of %s equals that of %s", what, prev)
			}
			keys[k] = what
		}
		add(rng.Derive(rk, "shuffle"), fmt.Sprint(run, "/shuffle"))
		for i := 0; i < 50; i++ {
			for _, st := range []string{"gram", "bias", "reward", "contexts", "queries"} {
				add(rng.Derive(rk, "silo", i, st), fmt.Sprint(run, "/", i, "/", st))
			}
		}
	}
}

// publishedDraws runs the full server path on all-zero data (the silos'
// statistics stay zero; only the noise is published) for runs 1..runs
// and returns, per synchronisation k in ks, the published entries by
// class (Gram diagonal, Gram off-diagonal, bias).
func publishedDraws(t *testing.T, s Spec, runs int, ks []int) (diag, off, bias map[int][]float64) {
	diag, off, bias = map[int][]float64{}, map[int][]float64{}, map[int][]float64{}
	want := map[int]bool{}
	kmax := 0
	for _, k := range ks {
		want[k] = true
		kmax = max(kmax, k)
	}
	d := s.Dim()
	for run := 1; run <= runs; run++ {
		s.Seed = uint64(run)
		sm := newTestSim(t, s, hooks{})
		for k := 1; k <= kmax; k++ {
			sm.sync()
			if !want[k] {
				continue
			}
			idx := 0
			for i := 0; i < d; i++ {
				diag[k] = append(diag[k], sm.wsyn[idx])
				off[k] = append(off[k], sm.wsyn[idx+1:idx+d-i]...)
				idx += d - i
			}
			bias[k] = append(bias[k], sm.usyn...)
		}
	}
	return diag, off, bias
}

// checkPrefixVariance is T6's assertion: entry variance M popcount(k)
// sigma^2 (half off the diagonal), via nodes(k) for the node count.
func checkPrefixVariance(diag, off, bias map[int][]float64, m int, sigma float64, nodes func(k int) int) error {
	for k := range diag {
		v := float64(m*nodes(k)) * sigma * sigma
		if err := checkGaussian(diag[k], v); err != nil {
			return fmt.Errorf("k=%d Gram diagonal: %w", k, err)
		}
		if err := checkGaussian(off[k], v/2); err != nil {
			return fmt.Errorf("k=%d Gram off-diagonal: %w", k, err)
		}
		if err := checkGaussian(bias[k], v); err != nil {
			return fmt.Errorf("k=%d bias: %w", k, err)
		}
	}
	return nil
}

func popcount(k int) int {
	n := 0
	for ; k > 0; k &= k - 1 {
		n++
	}
	return n
}

// TestT6PrefixVariance is privacy.md T6: the server's published prefix
// sums have per-entry variance M popcount(k) sigma^2 (k = 7: 3 nodes, k = 8:
// 1), for protocols P and P_alt and SDP-amp. Mutation control: the same
// draws checked against the composition bug "one node per prefix" fail.
func TestT6PrefixVariance(t *testing.T) {
	ks := []int{1, 2, 3, 7, 8, 15, 16}
	runs := 7000 // >= 2e4 draws per k on the diagonal (d = 3)
	if testing.Short() {
		runs = 2000
	}
	cases := []Spec{
		{Algorithm: AlgLDP, Protocol: ProtocolP},
		{Algorithm: AlgLDP, Protocol: ProtocolPAlt},
		{Algorithm: AlgSDPAmp, Protocol: ProtocolP},
	}
	for _, c := range cases {
		t.Run(c.Algorithm+"/"+c.Protocol, func(t *testing.T) {
			s := c
			s.Synthetic = SyntheticSpec{D: 3, K: 2, NoiseVar: 0.25}
			s.Eps, s.Delta, s.M, s.T, s.B = 1, 0.1, 3, 16, 1
			n := runs
			if c.Protocol == ProtocolPAlt || c.Algorithm == AlgSDPAmp {
				n = runs / 3
			}
			diag, off, bias := publishedDraws(t, s, n, ks)
			sigma := newTestSim(t, s, hooks{}).cal.Sigma
			if err := checkPrefixVariance(diag, off, bias, s.M, sigma, popcount); err != nil {
				t.Fatal(err)
			}
			if err := checkPrefixVariance(diag, off, bias, s.M, sigma, func(int) int { return 1 }); err == nil {
				t.Error("mutation control (one node per prefix) passed T6")
			}
		})
	}
}

// zeroNoise is the noise-off source of T7: every node gets exactly zero
// noise (a Recorder without an inner source).
func zeroNoise(i int, stream string, std []float64) tree.Noise { return &tree.Recorder{} }

type user struct {
	x []float64
	y float64
}

// releasedNodes feeds batches of users through the simulator's real
// observe/sync path (one silo, noise off) and returns every released node
// per stream, in release order.
func releasedNodes(t *testing.T, s Spec, batches [][]user, mutate func(*sim)) (gram, bias [][]float64) {
	sm := newTestSim(t, s, hooks{noise: zeroNoise})
	if mutate != nil {
		mutate(sm)
	}
	for k, users := range batches {
		for _, u := range users {
			sm.observe(0, u.x, u.y)
		}
		sm.sync()
		l := tree.Level(k + 1)
		st := trees(t, sm)
		gram = append(gram, append([]float64(nil), st.gram[0].Node(l)...))
		bias = append(bias, append([]float64(nil), st.bias[0].Node(l)...))
	}
	return gram, bias
}

// nodeDistance is the L2 distance between two transcripts of nodes, the
// Gram nodes measured in Frobenius norm (off-diagonal packed entries
// count twice).
func nodeDistance(a, b [][]float64, d int, packed bool) float64 {
	var ss float64
	for n := range a {
		idx := 0
		for i := 0; i < d; i++ {
			if !packed {
				v := a[n][i] - b[n][i]
				ss += v * v
				continue
			}
			for j := i; j < d; j++ {
				v := a[n][idx] - b[n][idx]
				if j == i {
					ss += v * v
				} else {
					ss += 2 * v * v
				}
				idx++
			}
		}
	}
	return math.Sqrt(ss)
}

// sensitivity is T7's measurement: the transcript distances per stream
// between D and D' = D with user u added to batch j (or replacing the
// first user of batch j when replace is set).
func sensitivity(t *testing.T, s Spec, base [][]user, j int, u user, replace bool, mutate func(*sim)) (dg, db float64) {
	nb := make([][]user, len(base))
	for k := range base {
		nb[k] = append([]user(nil), base[k]...)
	}
	if replace {
		nb[j-1][0] = u
	} else {
		nb[j-1] = append(nb[j-1], u)
	}
	g0, b0 := releasedNodes(t, s, base, mutate)
	g1, b1 := releasedNodes(t, s, nb, mutate)
	d := s.Dim()
	return nodeDistance(g0, g1, d, true), nodeDistance(b0, b1, d, false)
}

// TestT7Sensitivity is privacy.md T7 with noise off: neighbouring datasets
// change the released nodes by at most sqrt(kappa) times the design
// sensitivity (1 per stream under add/remove; sqrt2 Gram and 2 bias under
// replace-one), with equality for x = e1, y = 1 at batch 1; hostile
// inputs (NaN, Inf, 1e308, ||x|| >> 1, y >> 1) stay within the bound
// because clipping happens before aggregation. Mutation control: without
// reward clamping a y = 5 user exceeds the bias bound.
func TestT7Sensitivity(t *testing.T) {
	const d, K = 3, 8 // kappa = 4
	s := Spec{Algorithm: AlgLDP, Synthetic: SyntheticSpec{D: d, K: 2, NoiseVar: 0.25}, Eps: 1, Delta: 0.1, M: 1, T: K, B: 1}
	kappa := float64(tree.Kappa(K))
	r := rand.New(rand.NewPCG(1, 2))
	base := make([][]user, K)
	for k := range base {
		for n := 0; n < 3; n++ {
			x := make([]float64, d)
			unitFeatures(r, x)
			base[k] = append(base[k], user{x: x, y: r.Float64()})
		}
	}
	e1 := []float64{1, 0, 0}
	diagX := []float64{1 / math.Sqrt(3), 1 / math.Sqrt(3), 1 / math.Sqrt(3)}
	tests := []struct {
		name         string
		j            int
		u            user
		tight        bool // the bound is attained
		replace      bool
		gBound, bBnd float64
	}{
		{"e1 at batch 1", 1, user{e1, 1}, true, false, 1, 1},
		{"diagonal x at batch 1", 1, user{diagX, 1}, true, false, 1, 1},
		{"e1 at last batch", K, user{e1, 1}, false, false, 1, 1},
		{"boundary batch 4", 4, user{e1, 0.5}, false, false, 1, 1},
		{"NaN and Inf features", 1, user{[]float64{math.NaN(), math.Inf(1), 1}, 1}, false, false, 1, 1},
		{"huge features", 2, user{[]float64{1e308, -1e308, 1e308}, 1e308}, false, false, 1, 1},
		{"long x, y > 1", 3, user{[]float64{30, 40, 0}, 7}, false, false, 1, 1},
		{"NaN reward", 1, user{e1, math.NaN()}, false, false, 1, 1},
		{"-Inf reward", 1, user{e1, math.Inf(-1)}, false, false, 1, 1},
		{"replace-one opposite", 1, user{[]float64{-base[0][0].x[0], -base[0][0].x[1], -base[0][0].x[2]}, 1}, false, true, math.Sqrt2, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dg, db := sensitivity(t, s, base, tc.j, tc.u, tc.replace, nil)
			gb, bb := math.Sqrt(kappa)*tc.gBound, math.Sqrt(kappa)*tc.bBnd
			if math.IsNaN(dg) || math.IsNaN(db) || dg > gb*(1+1e-12) || db > bb*(1+1e-12) {
				t.Fatalf("node distance Gram %.6g (bound %.6g), bias %.6g (bound %.6g)", dg, gb, db, bb)
			}
			if tc.tight && (math.Abs(dg-gb) > 1e-12 || math.Abs(db-bb) > 1e-12) {
				t.Fatalf("worst case not attained: Gram %.15g, bias %.15g, want %.15g", dg, db, gb)
			}
		})
	}
	// Mutation control: clamping switched off.
	_, db := sensitivity(t, s, base, 1, user{e1, 5}, false, func(sm *sim) { sm.clampY = false })
	if db <= math.Sqrt(kappa)*(1+1e-12) {
		t.Errorf("mutation control (no reward clamp) stayed within the bound: %.4g", db)
	}
}

// FuzzObserve: whatever a user's (x, y), its contribution to the silo's
// statistics is finite with ||x x^T||_F <= 1 and ||x y|| <= 1. The seed
// corpus (NaN, Inf, 1e308, long vectors) runs under plain go test.
func FuzzObserve(f *testing.F) {
	f.Add(1.0, 0.0, 0.0, 1.0)
	f.Add(math.NaN(), 1.0, 2.0, 0.5)
	f.Add(math.Inf(1), math.Inf(-1), 1.0, math.Inf(1))
	f.Add(1e308, 1e308, -1e308, 1e308)
	f.Add(30.0, 40.0, 0.0, -7.0)
	f.Add(1e-300, 0.0, 0.0, math.NaN())
	f.Add(0.0, 0.0, 0.0, 0.0)
	s := Spec{Algorithm: AlgLDP, Synthetic: SyntheticSpec{D: 3, K: 2, NoiseVar: 0.25}, Eps: 1, Delta: 0.1, M: 1, T: 4, B: 1}
	sm := newTestSim(f, s, hooks{noise: zeroNoise})
	el := eager(f, sm)
	f.Fuzz(func(t *testing.T, x0, x1, x2, y float64) {
		bs := &sm.silos[0].batch
		clear(bs.w)
		clear(bs.u)
		sm.observe(0, []float64{x0, x1, x2}, y)
		g := nodeDistance([][]float64{bs.w}, [][]float64{make([]float64, len(bs.w))}, 3, true)
		b := nodeDistance([][]float64{bs.u}, [][]float64{make([]float64, 3)}, 3, false)
		if math.IsNaN(g) || math.IsNaN(b) || g > 1+1e-12 || b > 1+1e-12 {
			t.Fatalf("x = (%v, %v, %v), y = %v: contribution Gram %v, bias %v", x0, x1, x2, y, g, b)
		}
		for _, v := range append(el.p[0], el.theta[0]...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("x = (%v, %v, %v), y = %v: learner state became non-finite", x0, x1, x2, y)
			}
		}
	})
}

// transcript is what T13 compares across datasets: every silo->server
// message (round, batch, sender, stream, size) in order, and the number
// of 64-bit words drawn from every noise stream.
type transcript struct {
	msgs  []string
	draws map[string]int
}

type countingSource struct {
	inner rand.Source
	n     *int
}

func (c countingSource) Uint64() uint64 { *c.n++; return c.inner.Uint64() }

func recordTranscript(t *testing.T, s Spec, syncDue func(*sim, int) bool) transcript {
	tr := transcript{draws: map[string]int{}}
	var sm *sim
	h := hooks{
		sent: func(k, i int, stream string, msg []float64) {
			tr.msgs = append(tr.msgs, fmt.Sprintf("t=%d k=%d silo=%d %s n=%d", sm.t, k, i, stream, len(msg)))
		},
		noise: func(i int, stream string, std []float64) tree.Noise {
			n := new(int)
			name := fmt.Sprintf("silo %d %s", i, stream)
			tr.draws[name] = 0
			src := countingSource{inner: rng.Source(RunKey(s.Seed), "silo", i, stream), n: n}
			g := &tree.Gaussian{R: rand.New(src), Std: std}
			return noiseFunc(func(dst []float64, k, level int) {
				g.Fill(dst, k, level)
				tr.draws[name] = *n
			})
		},
	}
	if syncDue != nil {
		h.schedule = funcSchedule(func(t int) bool { return syncDue(sm, t) })
	}
	sm = newTestSim(t, s, h)
	runSim(sm)
	return tr
}

func (a transcript) diff(b transcript) error {
	if len(a.msgs) != len(b.msgs) {
		return fmt.Errorf("%d messages vs %d", len(a.msgs), len(b.msgs))
	}
	for i := range a.msgs {
		if a.msgs[i] != b.msgs[i] {
			return fmt.Errorf("message %d: %q vs %q", i, a.msgs[i], b.msgs[i])
		}
	}
	for k, v := range a.draws {
		if b.draws[k] != v {
			return fmt.Errorf("stream %s: %d draws vs %d", k, v, b.draws[k])
		}
	}
	return nil
}

// detSync is the mutation control of T13: the FedUCB-style rule that
// synchronises when a silo's local log-determinant grows past a threshold
// (Dubey & Pentland 2020), which Zhou & Chowdhury show leaks data.
func detSync(sm *sim, t int) bool {
	d := sm.d
	for i := range sm.silos {
		unpackInto(sm.v, sm.silos[i].batch.w, d, 1)
		if !cholesky(sm.l, sm.v, d) {
			return true
		}
		var logdet float64
		for j := 0; j < d; j++ {
			logdet += 2 * math.Log(sm.l[j*d+j])
		}
		if logdet > 0.5 {
			return true
		}
	}
	return false
}

// TestT13ScheduleInvariance is privacy.md T13: the messages (times,
// senders, streams, sizes, order) and the noise-stream consumption are
// identical across very different datasets with the same seed, and
// synchronisations happen exactly at the multiples of B. Mutation control:
// a determinant-triggered schedule must produce different transcripts.
func TestT13ScheduleInvariance(t *testing.T) {
	const m, d = 3, 4
	datasets := map[string]*LTRData{
		"random": makeLTR(m, 5, 6, d, 1, unitFeatures, func(r *rand.Rand, x []float64) float64 { return r.Float64() }),
		"all-zero": makeLTR(m, 5, 6, d, 2, func(r *rand.Rand, x []float64) { clear(x) },
			func(r *rand.Rand, x []float64) float64 { return 0 }),
		"all-max": makeLTR(m, 5, 6, d, 3, func(r *rand.Rand, x []float64) {
			for j := range x {
				x[j] = 1 / math.Sqrt(d)
			}
		}, func(r *rand.Rand, x []float64) float64 { return 1 }),
		"hostile": makeLTR(m, 5, 6, d, 4, func(r *rand.Rand, x []float64) {
			for j := range x {
				x[j] = []float64{math.NaN(), 1e308, -1e308, math.Inf(1)}[r.IntN(4)]
			}
		}, func(r *rand.Rand, x []float64) float64 { return 1e300 * r.NormFloat64() }),
	}
	names := []string{"random", "all-zero", "all-max", "hostile"}
	for _, alg := range []string{AlgFedLinUCB, AlgLDP, AlgSDPAmp} {
		for _, proto := range []string{ProtocolP, ProtocolPAlt} {
			if alg == AlgSDPAmp && proto == ProtocolPAlt {
				continue
			}
			t.Run(alg+"/"+proto, func(t *testing.T) {
				var ref transcript
				for n, name := range names {
					s := Spec{Instance: InstanceLTR, LTR: datasets[name], Algorithm: alg, Protocol: proto,
						Eps: 1, Delta: 0.1, M: m, T: 30, B: 4, Seed: 9}
					tr := recordTranscript(t, s, nil)
					if n == 0 {
						ref = tr
						// Sync times are exactly the multiples of B.
						for _, msg := range tr.msgs {
							var tt, k int
							fmt.Sscanf(msg, "t=%d k=%d", &tt, &k)
							if tt != k*s.B {
								t.Fatalf("message %q: synchronisation at t=%d, want k*B = %d", msg, tt, k*s.B)
							}
						}
						if want := 2 * m * (s.T / s.B); len(tr.msgs) != want {
							t.Fatalf("%d messages, want %d", len(tr.msgs), want)
						}
						continue
					}
					if err := ref.diff(tr); err != nil {
						t.Fatalf("dataset %q vs %q: %v", name, names[0], err)
					}
				}
				// Mutation control.
				var trs []transcript
				for _, name := range []string{"all-zero", "all-max"} {
					s := Spec{Instance: InstanceLTR, LTR: datasets[name], Algorithm: alg, Protocol: proto,
						Eps: 1, Delta: 0.1, M: m, T: 30, B: 4, Seed: 9}
					trs = append(trs, recordTranscript(t, s, detSync))
				}
				if err := trs[0].diff(trs[1]); err == nil {
					t.Error("determinant-triggered schedule gave identical transcripts")
				}
			})
		}
	}
}

// TestPAndPAltAgree: protocols P (server sums nodes per level) and P_alt
// (silos publish their own prefixes) give the server the same sums: with
// the same seed they use the very same noise draws, so the published
// statistics agree up to floating-point reassociation (and are therefore
// identically distributed); with noise off they agree too, and the runs
// make identical decisions.
func TestPAndPAltAgree(t *testing.T) {
	for _, noiseOff := range []bool{false, true} {
		t.Run(fmt.Sprintf("noiseOff=%v", noiseOff), func(t *testing.T) {
			var h hooks
			if noiseOff {
				h.noise = zeroNoise
			}
			var arms [2][]int
			var sims [2]*sim
			for p, proto := range []string{ProtocolP, ProtocolPAlt} {
				s := smallSpec(AlgLDP)
				s.Protocol = proto
				p := p
				h.played = func(_, _, arm int) { arms[p] = append(arms[p], arm) }
				sims[p] = newTestSim(t, s, h)
			}
			for tt := 1; tt <= sims[0].s.T; tt++ {
				sims[0].round(tt)
				sims[1].round(tt)
				a, b := sims[0], sims[1]
				for e := range a.wsyn {
					if math.Abs(a.wsyn[e]-b.wsyn[e]) > 1e-9*(1+math.Abs(a.wsyn[e])) {
						t.Fatalf("round %d: W_syn[%d] = %v (P) vs %v (P_alt)", tt, e, a.wsyn[e], b.wsyn[e])
					}
				}
				for e := range a.usyn {
					if math.Abs(a.usyn[e]-b.usyn[e]) > 1e-9*(1+math.Abs(a.usyn[e])) {
						t.Fatalf("round %d: U_syn[%d] = %v (P) vs %v (P_alt)", tt, e, a.usyn[e], b.usyn[e])
					}
				}
			}
			for i := range arms[0] {
				if arms[0][i] != arms[1][i] {
					t.Fatalf("decision %d: P chose %d, P_alt %d", i, arms[0][i], arms[1][i])
				}
			}
		})
	}
}

// TestT5NoiseDrawnOncePerNode drives full runs (P, P_alt, SDP-amp, lazy)
// with a tree.Recorder on every silo and stream: each synchronisation k
// draws the noise of exactly one node, of level Level(k), and nothing else
// draws noise (P_alt's prefixes reuse the cached nodes).
func TestT5NoiseDrawnOncePerNode(t *testing.T) {
	for _, c := range []struct {
		alg, proto string
		lazy       bool
	}{{AlgLDP, ProtocolP, false}, {AlgLDP, ProtocolPAlt, false}, {AlgSDPAmp, ProtocolP, false}, {AlgLDP, ProtocolPAlt, true}} {
		recs := map[string]*tree.Recorder{}
		s := smallSpec(c.alg)
		s.Protocol, s.Lazy, s.T, s.B = c.proto, c.lazy, 70, 3 // 23 syncs, partial last batch
		sm := newTestSim(t, s, hooks{noise: func(i int, stream string, std []float64) tree.Noise {
			r := &tree.Recorder{Inner: prodNoise(1, i, stream, std)}
			recs[fmt.Sprint(i, stream)] = r
			return r
		}})
		runSim(sm)
		if len(recs) != 2*s.M {
			t.Fatalf("%d noise sources, want %d", len(recs), 2*s.M)
		}
		for name, r := range recs {
			if len(r.Draws) != s.T/s.B {
				t.Fatalf("%v: %s drew %d nodes, want %d", c, name, len(r.Draws), s.T/s.B)
			}
			for k, dr := range r.Draws {
				if dr.K != k+1 || dr.Level != tree.Level(k+1) {
					t.Fatalf("%v: %s draw %d was (batch %d, level %d)", c, name, k, dr.K, dr.Level)
				}
			}
		}
	}
}
