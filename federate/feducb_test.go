package federate

import (
	"context"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestFedUCBRuns: FedUCB runs on the synthetic instance, synchronises a
// data-dependent number of times (not every B rounds), is deterministic,
// and is recorded as not certified because of its schedule.
func TestFedUCBRuns(t *testing.T) {
	s := Spec{Algorithm: AlgFedUCB, Protocol: ProtocolPAlt, Eps: 1, Delta: 0.1, M: 5, T: 400, B: 20, Seed: 3,
		Synthetic: SyntheticSpec{D: 4, K: 10, NoiseVar: 0.25, Seed: 1}}
	r1, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	r2, _ := Run(context.Background(), s)
	if !slicesEqualBits(resultBits(r1), resultBits(r2)) {
		t.Error("two FedUCB runs differ")
	}
	if r1.Syncs == 0 || r1.Syncs >= s.T || r1.Syncs == s.T/s.B {
		t.Errorf("%d synchronisations in %d rounds", r1.Syncs, s.T)
	}
	if !math.IsInf(r1.Calibration.DeliveredEps, 1) || !strings.Contains(r1.Calibration.Note, "schedule depends on the data") {
		t.Errorf("FedUCB recorded as %v: %q", r1.Calibration.DeliveredEps, r1.Calibration.Note)
	}
	if want := 1 + 8; r1.Calibration.Kappa != want { // 1 + floor(log2 400): a tree over all 400 rounds
		t.Errorf("kappa %d, want %d", r1.Calibration.Kappa, want)
	}
	// A larger threshold synchronises less.
	s.Params = map[string]float64{"sync_threshold": 10 * DefaultSyncThreshold(s.T, s.M, s.Synthetic.D)}
	r3, _ := Run(context.Background(), s)
	if r3.Syncs >= r1.Syncs {
		t.Errorf("threshold x10: %d syncs, default %d", r3.Syncs, r1.Syncs)
	}
}

func slicesEqualBits(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestFedUCBLogDet: the schedule's running log-det growth, summed from the
// learner step's leverages, is log det(V_i) - log det(V_last) computed
// directly (noise off, so V_last is lambda I + W_syn exactly).
func TestFedUCBLogDet(t *testing.T) {
	s := Spec{Algorithm: AlgFedUCB, Protocol: ProtocolPAlt, Eps: 1, Delta: 0.1, M: 2, T: 60, B: 10, Seed: 1,
		Params:    map[string]float64{"sync_threshold": 1e9}, // never fires: the growth accumulates
		Synthetic: SyntheticSpec{D: 3, K: 5, NoiseVar: 0.25, Seed: 2}}
	sm := newTestSim(t, s, hooks{noise: zeroNoise})
	sched := sm.schedule.(*logDetSchedule)
	for tt := 1; tt <= 30; tt++ {
		sm.round(tt)
	}
	d := sm.d
	for i := range sm.silos {
		v := mat.NewSymDense(d, nil)
		v0 := mat.NewSymDense(d, nil)
		w := sm.silos[i].batch.w
		idx := 0
		for r := 0; r < d; r++ {
			for c := r; c < d; c++ {
				v.SetSym(r, c, w[idx])
				idx++
			}
			v.SetSym(r, r, v.At(r, r)+sm.lambda)
			v0.SetSym(r, r, sm.lambda)
		}
		var ch, ch0 mat.Cholesky
		ch.Factorize(v)
		ch0.Factorize(v0)
		want := ch.LogDet() - ch0.LogDet()
		if got := sched.logdet[i]; math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
			t.Errorf("silo %d: schedule's log-det growth %v, direct %v", i, got, want)
		}
	}
}

// TestFedUCBScheduleLeak is the leak of FedUCB's schedule (Zhou &
// Chowdhury 2024, Section 3 and Appendix B; protocol.md section 7): with
// threshold D, a synchronisation at t = 1 happens exactly when
// ||x_1||^2 > lambda (e^D - 1). Two neighbouring datasets differ only in
// the first user's context (x = e1 or e1/2): with D set so that the
// boundary is 1/2, one synchronises at t = 1 and the other does not,
// whatever the privacy noise (every noise seed): the message transcript
// tells them apart with probability 1, which no noise level can hide. LDP
// with its fixed schedule sends the same transcript for both.
func TestFedUCBScheduleLeak(t *testing.T) {
	transcript := func(alg string, scale float64, seed uint64) []int {
		s := Spec{Algorithm: alg, Protocol: ProtocolPAlt, Eps: 1, Delta: 0.1, M: 1, T: 10, B: 5, Seed: seed,
			Synthetic: SyntheticSpec{D: 2, K: 2, NoiseVar: 0.25}}
		s = s.WithDefaults()
		cal, err := calibration(s)
		if err != nil {
			t.Fatal(err)
		}
		if alg == AlgFedUCB {
			s.Params = map[string]float64{"sync_threshold": math.Log1p(0.5 / cal.Lambda)} // boundary ||x||^2 = 1/2
		}
		var rounds []int
		var sm *sim
		sm, err = newSim(s, cal, hooks{sent: func(k, i int, stream string, _ []float64) {
			if stream == "gram" {
				rounds = append(rounds, sm.t)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		sm.inst = newAuditInstance([]float64{scale, 0, scale, 0}, []float64{0.5, 0.5}, []float64{0.5, 0.5})
		for tt := 1; tt <= s.T; tt++ {
			sm.round(tt)
		}
		return rounds
	}
	for seed := uint64(1); seed <= 20; seed++ {
		big, small := transcript(AlgFedUCB, 1, seed), transcript(AlgFedUCB, 0.5, seed)
		if len(big) == 0 || big[0] != 1 || (len(small) > 0 && small[0] == 1) {
			t.Fatalf("seed %d: FedUCB syncs at %v (||x_1|| = 1) and %v (||x_1|| = 1/2); want a sync at t = 1 exactly for the first", seed, big, small)
		}
		a, b := transcript(AlgLDP, 1, seed), transcript(AlgLDP, 0.5, seed)
		if len(a) != len(b) || a[0] != b[0] {
			t.Fatalf("seed %d: LDP's fixed schedule differs between the datasets: %v vs %v", seed, a, b)
		}
	}
}

// TestFedUCBForcedScheduleIsFedLinUCB is issue 12's golden equivalence:
// FedUCB with its trigger forced to every B rounds and its noise off is
// FedLinUCB (the eager learner with the same Lambda and beta): every
// silo plays the same action in every round, and the regret agrees to
// floating-point reassociation (FedUCB's tree adds the batches in
// another order than FedLinUCB's running sums).
func TestFedUCBForcedScheduleIsFedLinUCB(t *testing.T) {
	base := Spec{M: 3, T: 300, B: 10, Seed: 4, Eps: 1, Delta: 0.1, Synthetic: SyntheticSpec{D: 4, K: 12, NoiseVar: 0.25, Seed: 2}}
	lin := base
	lin.Algorithm = AlgFedLinUCB
	lin = lin.WithDefaults()
	cal, err := calibration(lin)
	if err != nil {
		t.Fatal(err)
	}
	play := func(s Spec, h hooks) ([]int, float64) {
		var arms []int
		h.played = func(_, _, arm int) { arms = append(arms, arm) }
		sm, err := newSim(s.WithDefaults(), cal, h)
		if err != nil {
			t.Fatal(err)
		}
		for tt := 1; tt <= s.T; tt++ {
			sm.round(tt)
		}
		return arms, sm.pseudo
	}
	fed := base
	fed.Algorithm = AlgFedUCB
	a1, r1 := play(lin, hooks{})
	a2, r2 := play(fed, hooks{noise: zeroNoise, schedule: everyB{b: base.B}})
	diff := 0
	for i := range a1 {
		if a1[i] != a2[i] {
			diff++
		}
	}
	if len(a1) != len(a2) || diff != 0 || math.Abs(r1-r2) > 1e-9*math.Abs(r1) {
		t.Errorf("forced FedUCB vs FedLinUCB: %d of %d actions differ, regret %v vs %v", diff, len(a1), r2, r1)
	}
	// Control: FedUCB's own schedule plays differently.
	a3, _ := play(fed, hooks{noise: zeroNoise})
	same := len(a3) == len(a1)
	for i := range a1 {
		same = same && a1[i] == a3[i]
	}
	if same {
		t.Error("FedUCB's own schedule played exactly like FedLinUCB: the forced schedule shows nothing")
	}
}

// TestFedUCBRegimes: the communication regimes of Dubey & Pentland's
// Figure 1 B. Their thresholds are the paper's formulas (golden values);
// n = O(M T) synchronises after every one of the T rounds, private or
// not, and its non-private run is FedLinUCB with B = 1 (eager learner,
// protocol P_alt) bit for bit; n = O(M^1.5) and n = O(M log T) stay
// within Proposition 1's bound 2 sqrt((d T/D) ln(1 + T/d)) + 4 (rho_min =
// rho_max = 1, L = 1) and synchronise fewer times than every round,
// O(M^1.5) more often than O(M log T). Mutation-checked: regime 2 with
// D = 0 (every round) breaks the bound; regime 1 with regime 2's D breaks
// the order.
func TestFedUCBRegimes(t *testing.T) {
	if got, want := RegimeThreshold(RegimeMLogT, 1000, 7, 10), 2*1000*10/(math.Log(101)+1); math.Abs(got-want) > 1e-12*want {
		t.Errorf("O(M log T) threshold %v, want %v", got, want)
	}
	if got, want := RegimeThreshold(RegimeM15, 1000, 7, 10), 1000*math.Log(7000)/(10*7); math.Abs(got-want) > 1e-12*want {
		t.Errorf("O(M^1.5) threshold %v, want %v", got, want)
	}
	if got := RegimeThreshold(RegimeMT, 1000, 7, 10); got != 0 {
		t.Errorf("O(M T) threshold %v, want 0", got)
	}
	for _, alg := range []string{AlgFedUCB, AlgFedUCBNonPrivate} {
		r, err := Run(context.Background(), dubeySpec(alg, 4, 300, RegimeMT))
		if err != nil {
			t.Fatal(err)
		}
		if r.Syncs != 300 {
			t.Errorf("%s, n = O(M T): %d synchronisations in 300 rounds", alg, r.Syncs)
		}
	}
	np, _ := Run(context.Background(), dubeySpec(AlgFedUCBNonPrivate, 4, 300, RegimeMT))
	fl := dubeySpec(AlgFedLinUCB, 4, 300, 0)
	fl.Lazy = false
	flr, err := Run(context.Background(), fl)
	if err != nil {
		t.Fatal(err)
	}
	if !slicesEqualBits(resultBits(np), resultBits(flr)) {
		t.Errorf("non-private FedUCB every round (pseudo %v) is not FedLinUCB with B = 1 (pseudo %v)", np.Pseudo, flr.Pseudo)
	}
	d := 5.0
	for _, m := range []int{4, 16} {
		for _, T := range []int{500, 4000} {
			syncs := map[int]int{}
			for _, regime := range []int{RegimeM15, RegimeMLogT} {
				s := dubeySpec(AlgFedUCBNonPrivate, m, T, float64(regime))
				r, err := Run(context.Background(), s)
				if err != nil {
					t.Fatal(err)
				}
				D := RegimeThreshold(regime, T, m, int(d))
				if got := r.Calibration; got.Lambda <= 0 {
					t.Fatalf("lambda %v", got.Lambda)
				}
				bound := 2*math.Sqrt(d*float64(T)/D*math.Log(1+float64(T)/d)) + 4
				if float64(r.Syncs) > bound || r.Syncs < 1 || r.Syncs >= T {
					t.Errorf("regime %d, M = %d, T = %d: %d synchronisations, want 1 to %.1f (Proposition 1)", regime, m, T, r.Syncs, bound)
				}
				syncs[regime] = r.Syncs
			}
			if syncs[RegimeM15] <= syncs[RegimeMLogT] {
				t.Errorf("M = %d, T = %d: O(M^1.5) %d synchronisations, O(M log T) %d", m, T, syncs[RegimeM15], syncs[RegimeMLogT])
			}
		}
	}
}

// TestFedUCBRegimeParams: without a regime sync_threshold takes its
// default; under a regime it stays absent (the regime sets D for the
// run's own T, M and d); a threshold given with a regime is an error
// naming sync_threshold, and a regime out of range one naming regime.
func TestFedUCBRegimeParams(t *testing.T) {
	s := dubeySpec(AlgFedUCB, 4, 1000, RegimeMLogT).WithDefaults()
	if v, ok := s.Params["sync_threshold"]; ok {
		t.Errorf("regime 2: sync_threshold %v, want absent", v)
	}
	s = dubeySpec(AlgFedUCB, 4, 1000, 0).WithDefaults()
	if got, want := s.Params["sync_threshold"], DefaultSyncThreshold(1000, 4, 5); got != want || s.Params["regime"] != 0 {
		t.Errorf("no regime: sync_threshold %v (want %v), regime %v", got, want, s.Params["regime"])
	}
	s = dubeySpec(AlgFedUCBNonPrivate, 4, 1000, RegimeMT)
	s.Params["sync_threshold"] = 0
	err := s.Validate()
	if fe, ok := err.(*FieldError); !ok || fe.Field != "Params.sync_threshold" || !strings.Contains(fe.Msg, "regime = 3") {
		t.Errorf("threshold with a regime: %v", err)
	}
	s.Params = map[string]float64{"regime": 4}
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "regime") {
		t.Errorf("regime 4: %v", err)
	}
}
