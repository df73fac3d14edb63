package federate

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fedbandit/fedbandit/federate/accountant"
	"github.com/fedbandit/fedbandit/federate/tree"
)

// discreteSpecs are the algorithms with Gaussian releases that take the
// discrete noise, on the small instance.
func discreteSpecs() map[string]Spec {
	out := map[string]Spec{}
	for _, c := range []struct {
		name, alg, protocol string
	}{
		{"ldp/P", AlgLDP, ProtocolP}, {"ldp/P_alt", AlgLDP, ProtocolPAlt}, {"sdp-amp", AlgSDPAmp, ""},
		{"super-agent", AlgSuperAgent, ""}, {"feducb", AlgFedUCB, ""}, {"ldp-linucb", AlgLDPLinUCB, ""},
	} {
		s := smallSpec(c.alg)
		s.Protocol, s.Noise, s.Lazy = c.protocol, NoiseDiscrete, c.alg == AlgLDP || c.alg == AlgSDPAmp
		out[c.name] = s
	}
	glm := smallSpec(AlgLDPLinUCB)
	glm.Synthetic.Link, glm.Synthetic.NoiseVar, glm.Noise = LinkLogistic, 0, NoiseDiscrete
	out["ldp-gloc"] = glm
	return out
}

// TestDiscreteOnGrid is T9's grid alignment for the linear family: with
// noise = "discrete" every published sum of every synchronisation (and
// every silo's tree node) is an exact multiple of the grid
// accountant.Grid(sigma), below 2^52 grid steps. The mutation control,
// the same run with the users' summands left off the grid (the rounding
// skipped), is caught.
func TestDiscreteOnGrid(t *testing.T) {
	for name, s := range discreteSpecs() {
		t.Run(name, func(t *testing.T) {
			var gamma float64
			bad := 0
			h := hooks{published: func(k int, w, u []float64) {
				if !tree.OnGrid(w, gamma) || !tree.OnGrid(u, gamma) {
					bad++
				}
			}}
			sm := newTestSim(t, s, h)
			gamma = accountant.Grid(sm.cal.Sigma)
			if _, ok := sm.learner.(*gridLearner); !ok && s.Algorithm != AlgLDPLinUCB {
				t.Fatalf("learner %T does not round to the grid", sm.learner)
			}
			res := runSim(sm)
			if res.Syncs == 0 || bad > 0 {
				t.Fatalf("%d of %d synchronisations published values off the grid %v", bad, res.Syncs, gamma)
			}
			if tp, ok := sm.protocol.(treeProtocol); ok {
				for i, g := range tp.trees().gram {
					for l := 0; g.Node(l) != nil; l++ {
						if !tree.OnGrid(g.Node(l), gamma) || !tree.OnGrid(tp.trees().bias[i].Node(l), gamma) {
							t.Errorf("silo %d: node of level %d off the grid", i, l)
						}
					}
				}
			}
			// Mutation control: the summands not rounded.
			if s.Algorithm == AlgLDPLinUCB {
				return // its rounding is in the report; see TestDiscreteReports
			}
			bad = 0
			mut := newTestSim(t, s, h)
			mut.learner = mut.learner.(*gridLearner).learner
			runSim(mut)
			if bad == 0 {
				t.Error("skipped rounding not caught: every release on the grid")
			}
		})
	}
}

// TestDiscreteReports: LDP-LinUCB's every noisy report is on the grid
// (its silo sums of reports too: TestDiscreteOnGrid), and without the
// grid (the mutation control, gamma 0: the floating-point reports) it
// is not.
func TestDiscreteReports(t *testing.T) {
	s := discreteSpecs()["ldp-linucb"]
	sm := newTestSim(t, s, hooks{})
	ln := sm.learner.(*localNoise)
	gamma := ln.gamma
	if gamma != accountant.Grid(sm.cal.Sigma) {
		t.Fatalf("grid %v, want %v", gamma, accountant.Grid(sm.cal.Sigma))
	}
	b := batchStats{w: make([]float64, tree.PackedLen(4)), u: make([]float64, 4)}
	x := []float64{0.1, -0.3, 0.7 / 3, 0.2}
	for n := 0; n < 50; n++ {
		clear(b.w)
		clear(b.u)
		ln.observe(0, &b, x, 0.37)
		if !tree.OnGrid(b.w, gamma) || !tree.OnGrid(b.u, gamma) {
			t.Fatalf("report off the grid: %v %v", b.w, b.u)
		}
	}
	ln.gamma = 0
	clear(b.w)
	clear(b.u)
	ln.observe(0, &b, x, 0.37)
	if tree.OnGrid(b.w, gamma) && tree.OnGrid(b.u, gamma) {
		t.Error("floating-point report on the grid: the check cannot fail")
	}
}

// TestT3DiscreteNodeNoise is T3 for the discrete noise through the
// production factory: node entries of zero data have variance sigma^2
// (diagonal, bias) and sigma^2/2 (off-diagonal), and at sigma/gamma >=
// 2^20 the discrete Gaussian passes the continuous one's KS test
// (checkGaussian, false-alarm rate 1e-4 per test). The mutation control,
// the discrete noise at half sigma, fails it.
func TestT3DiscreteNodeNoise(t *testing.T) {
	const d, K, runs, sigma = 4, 64, 400, 2.5
	gamma := accountant.Grid(sigma)
	prod := func(run, i int, stream string, std []float64) tree.Noise {
		return productionNoise(RunKey(uint64(run)), gamma)(i, stream, std)
	}
	diag, off, bias, err := nodeDraws(runs, d, K, sigma, tree.Symmetrised, prod)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range [][]float64{diag, off, bias} {
		if !tree.OnGrid(v, gamma) {
			t.Fatal("node noise off the grid")
		}
	}
	if err := checkNodeNoise(diag, off, bias, sigma); err != nil {
		t.Fatal(err)
	}
	half := func(run, i int, stream string, std []float64) tree.Noise {
		h := make([]float64, len(std))
		for e, v := range std {
			h[e] = v / 2
		}
		return prod(run, i, stream, h)
	}
	dg, of, bs, err := nodeDraws(runs/4, d, K, sigma, tree.Symmetrised, half)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkNodeNoise(dg, of, bs, sigma); err == nil {
		t.Error("halved discrete sigma passed T3")
	}
}

// TestDiscreteDeterministic: a discrete run is a function of its spec:
// identical results run alone or eight at a time on any GOMAXPROCS, and
// different from the floating-point run of the same spec (the noise is
// really swapped) whose results an explicit "gaussian" does not change.
func TestDiscreteDeterministic(t *testing.T) {
	s := discreteSpecs()["ldp/P"]
	s.T = 200
	ref, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	want := resultBits(ref)
	for _, procs := range []int{1, 2} {
		old := runtime.GOMAXPROCS(procs)
		var wg sync.WaitGroup
		got := make([][]uint64, 8)
		for w := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := Run(context.Background(), s)
				if err != nil {
					t.Error(err)
					return
				}
				got[w] = resultBits(r)
			}()
		}
		wg.Wait()
		runtime.GOMAXPROCS(old)
		for w, g := range got {
			if !slices.Equal(g, want) {
				t.Errorf("GOMAXPROCS %d, worker %d: result differs", procs, w)
			}
		}
	}
	g := s
	g.Noise = ""
	gr, err := Run(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	g.Noise = NoiseGaussian
	ge, err := Run(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(resultBits(gr), resultBits(ge)) {
		t.Error("explicit gaussian differs from the default")
	}
	if slices.Equal(resultBits(gr), want) {
		t.Error("discrete run identical to the floating-point one")
	}
}

// TestDiscreteRecord: a discrete run records a certified claim for the
// mechanism and this implementation, its mechanism named discrete; a
// floating-point run's note says that it is not a secure deployment, and
// a non-Gaussian algorithm's does not.
func TestDiscreteRecord(t *testing.T) {
	s := discreteSpecs()["ldp/P"]
	r, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	p := r.Privacy
	if !p.Certified || p.Mechanism != "tree-discrete-gaussian" || !(p.DeliveredEps <= s.Eps) || p.Check() != nil {
		t.Errorf("discrete claim %+v", p)
	}
	if !strings.Contains(p.Note, "this implementation") || !strings.Contains(p.Note, "gamma = 2^") || strings.Contains(p.Note, "floating-point") {
		t.Errorf("discrete note %q", p.Note)
	}
	s.Noise = ""
	g, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Privacy.Certified || g.Privacy.Mechanism != "tree-gaussian" || !strings.Contains(g.Privacy.Note, "not a secure deployment") {
		t.Errorf("gaussian claim %+v", g.Privacy)
	}
	if !(g.Calibration.Sigma < r.Calibration.Sigma) {
		t.Errorf("discrete sigma %v not above the Gaussian's %v", r.Calibration.Sigma, g.Calibration.Sigma)
	}
	v := smallSpec(AlgSDPVec)
	v.B, v.T, v.Lazy = 4, 64, true
	vr, err := Run(context.Background(), v)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(vr.Privacy.Note, "floating-point Gaussian") || !strings.Contains(vr.Privacy.Note, "gonum's sampler") {
		t.Errorf("binomial run's note %q", vr.Privacy.Note)
	}
	// noise "discrete" on P_TVec: the exact binomial sampler, the same
	// calibration (the binomial mechanism's, whichever sampler draws it),
	// other draws, and a note that the guarantee covers this implementation.
	v.Noise = NoiseDiscrete
	ve, err := Run(context.Background(), v)
	if err != nil {
		t.Fatal(err)
	}
	if ve.Calibration.Sigma != vr.Calibration.Sigma || ve.Privacy.DeliveredEps != vr.Privacy.DeliveredEps || !ve.Privacy.Certified {
		t.Errorf("exact sampler's calibration %+v, claim %+v; gonum's %+v", ve.Calibration, ve.Privacy, vr.Calibration)
	}
	if !strings.Contains(ve.Privacy.Note, "exact sampler") || strings.Contains(ve.Privacy.Note, "gonum") || ve.Privacy.Mechanism != vr.Privacy.Mechanism {
		t.Errorf("exact binomial run's claim %+v", ve.Privacy)
	}
	if ve.Pseudo == vr.Pseudo {
		t.Errorf("the exact sampler's run has gonum's regret %v: is its noise drawn by it?", ve.Pseudo)
	}
}

// TestDiscreteSpec: the key's rules. An absent noise leaves the spec's
// JSON (its run id) unchanged, and an explicit "gaussian" is canonical as
// absent; an algorithm that does not use it drops it (Canonical); an
// explicit bad value is an error naming Noise; a Calib made for the other
// sampler is rejected.
func TestDiscreteSpec(t *testing.T) {
	b, _ := json.Marshal(smallSpec(AlgLDP))
	if strings.Contains(string(b), `"Noise":`) {
		t.Errorf("absent noise in the JSON: %s", b)
	}
	f := smallSpec(AlgFedLinUCB)
	f.Noise = NoiseDiscrete
	if c := f.Canonical(); c.Noise != "" {
		t.Errorf("fedlinucb keeps noise %q", c.Noise)
	}
	l := smallSpec(AlgLDP)
	l.Noise = NoiseGaussian
	if c := l.Canonical(); c.Noise != "" {
		t.Errorf("explicit gaussian canonical as %q, want the absent value", c.Noise)
	}
	l.Noise = NoiseDiscrete
	if c := l.Canonical(); c.Noise != NoiseDiscrete {
		t.Errorf("discrete canonical as %q", c.Noise)
	}
	for alg, used := range map[string]bool{AlgLDP: true, AlgSDPAmp: true, AlgSuperAgent: true, AlgFedUCB: true, AlgLDPLinUCB: true,
		AlgSDPVec: true, AlgFedLinUCB: false, AlgRandom: false, AlgEpsGreedy: false} {
		a, _ := LookupAlgorithm(alg)
		if a.UsesKey("noise") != used {
			t.Errorf("%s uses noise: %v, want %v", alg, a.UsesKey("noise"), used)
		}
	}
	for _, c := range []struct {
		alg, noise, want string
	}{
		{AlgLDP, "secure", `noise "secure", want "gaussian" or "discrete"`},
		{AlgSDPAmp, "Discrete", `noise "Discrete", want`},
	} {
		s := smallSpec(c.alg)
		s.Noise = c.noise
		err := s.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "Noise" || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s noise %q: %v, want a FieldError on Noise with %q", c.alg, c.noise, err, c.want)
		}
	}
	s := smallSpec(AlgLDP).WithDefaults()
	cal, err := accountant.Calibrate(s.Request())
	if err != nil {
		t.Fatal(err)
	}
	s.Noise, s.Calib = NoiseDiscrete, cal
	if _, err := Run(context.Background(), s); err == nil || !strings.Contains(err.Error(), "noise") {
		t.Errorf("Calib for the Gaussian accepted for a discrete run: %v", err)
	}
}

// TestDiscreteAudit: `run audit` of a discrete run draws the production
// (discrete) noise and passes (false-alarm rate 1%); with the noise at
// half its sigma (the audit's --sigma-scale, on the discrete sampler) it
// fails.
func TestDiscreteAudit(t *testing.T) {
	s := Spec{Algorithm: AlgLDP, Eps: 1, Delta: 0.1, B: 25, T: 100, Lazy: true, Noise: NoiseDiscrete}
	r, err := Audit(context.Background(), s, AuditOptions{Trials: 4000, Seed: 1, Config: "discrete", Alpha: 0.01, SigmaScale: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != "pass" {
		t.Errorf("verdict %q", r.Verdict)
	}
	t.Logf("audit: %s, empirical eps %.3g, claimed mu %.3g", r.Verdict, r.EpsLo, r.ClaimMu)
	// Mutation control: the discrete noise drawn at half its sigma.
	m, err := Audit(context.Background(), s, AuditOptions{Trials: 4000, Seed: 1, Config: "discrete", Alpha: 0.01, SigmaScale: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if m.Verdict == "pass" {
		t.Error("discrete noise at half sigma passed the audit")
	}
	t.Logf("half sigma: %.120s", m.Verdict)
}

// TestLatticeDistinguisher (privacy.md 2.1): the low bits of a
// floating-point release reveal its input; a discrete release's carry
// nothing. Neighbouring sums 0 and 1 (sensitivity 1), sigma = 3. The
// distinguisher D(o) = [|o| < 1/2 and o is not a multiple of 2^-53]. Under
// input 1 the release 1 + n with |1 + n| < 1/2 needs |n| >= 1/2, whose
// ulp is >= 2^-53, so the exact sum is a multiple of 2^-53 (and
// representable): D never fires. Under input 0 the release is
// fl(sigma z), whose ulp below 1/2 is finer: D fires with probability
// about 0.04, so one release can tell the inputs apart with no error
// under 1: an infinite privacy loss. The discrete releases are multiples
// of the grid 2^-19 whatever the input: D never fires under either.
func TestLatticeDistinguisher(t *testing.T) {
	const sigma, n = 3.0, 20000
	d := func(o float64) bool { return math.Abs(o) < 0.5 && o != math.Ldexp(math.Round(math.Ldexp(o, 53)), -53) }
	fires := func(gamma float64) (c [2]int) {
		for j, x := range []float64{0, 1} {
			nf := productionNoise(RunKey(uint64(j+1)), gamma)(0, "bias", []float64{sigma})
			o := make([]float64, 1)
			for k := 0; k < n; k++ {
				nf.Fill(o, k+1, 0)
				if d(x + o[0]) {
					c[j]++
				}
			}
		}
		return c
	}
	fp := fires(0)
	if fp[1] != 0 || fp[0] < n/50 {
		t.Errorf("floating point: D fired %d times under input 0 and %d under 1, want many and none", fp[0], fp[1])
	}
	gamma := accountant.Grid(sigma)
	if gamma != 0x1p-19 {
		t.Fatalf("grid %v", gamma)
	}
	if dc := fires(gamma); dc != [2]int{} {
		t.Errorf("discrete: D fired %v times", dc)
	}
	t.Logf("D fired on %d of %d floating-point releases of 0, none of 1; never on a discrete release", fp[0], n)
}
