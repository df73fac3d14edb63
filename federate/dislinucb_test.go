package federate

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// disLinSpec is a small synthetic DisLinUCB run (d = 3, M = 4).
func disLinSpec(T int, D, each float64) Spec {
	return Spec{Algorithm: AlgDisLinUCB, M: 4, T: T, B: 1, Every: 10, Seed: 3,
		Params:    map[string]float64{"sync_threshold": D, "each_silo": each},
		Synthetic: SyntheticSpec{D: 3, K: 6, NoiseVar: 0.25, Seed: 2}}
}

// logDet is log det(lambda I + w) of a packed symmetric w, by gonum's
// Cholesky (independent of the simulator's kernels).
func logDet(w []float64, d int, lambda float64) float64 {
	v := mat.NewSymDense(d, nil)
	idx := 0
	for r := 0; r < d; r++ {
		for c := r; c < d; c++ {
			v.SetSym(r, c, w[idx])
			idx++
		}
		v.SetSym(r, r, v.At(r, r)+lambda)
	}
	var ch mat.Cholesky
	if !ch.Factorize(v) {
		panic("not positive definite")
	}
	return ch.LogDet()
}

// handTrigger wraps DisLinUCB's schedule and checks every decision
// against the rule computed by hand from the simulator's statistics:
// silo i signals after round t when (t - t_last,i) (log det(Lambda I +
// W_syn,i + W_i) - log det(Lambda I + W_syn,i)) > D, W_syn,i the sums it
// last downloaded; every silo takes part on a signal, or (each) only the
// signalling ones. It also checks that each synchronisation publishes
// exactly the previous sums plus the batches of the silos taking part.
type handTrigger struct {
	t       *testing.T
	inner   schedule
	sm      *sim
	D       float64
	each    bool
	last    []int
	wlast   [][]float64 // per silo: the W_syn it last downloaded
	pending []bool      // took part in the last synchronisation: downloads the sums now published
	want    []float64   // W_syn the pending synchronisation must publish
	checked int         // synchronisations checked
	subsets int         // synchronisations of a strict subset
}

func (h *handTrigger) observed(i int, q float64) { h.inner.observed(i, q) }

func (h *handTrigger) due(t int, up []bool) bool {
	sm, d := h.sm, h.sm.d
	if h.want != nil {
		if !slices.Equal(sm.wsyn, h.want) {
			h.t.Errorf("round %d: published W_syn %v, want the sum of the uploaded batches %v", t, sm.wsyn, h.want)
		}
		h.want = nil
	}
	for i, p := range h.pending {
		if p {
			h.wlast[i] = slices.Clone(sm.wsyn)
			h.pending[i] = false
		}
	}
	pred := make([]bool, len(up))
	anySignal := false
	for i := range sm.silos {
		w := slices.Clone(h.wlast[i])
		addTo(w, sm.silos[i].batch.w)
		growth := logDet(w, d, sm.lambda) - logDet(h.wlast[i], d, sm.lambda)
		pred[i] = float64(t-h.last[i])*growth > h.D
		anySignal = anySignal || pred[i]
	}
	if !h.each && anySignal {
		for i := range pred {
			pred[i] = true
		}
	}
	fire := h.inner.due(t, up)
	if fire != anySignal || !slices.Equal(up[:len(pred)], pred) && anySignal {
		h.t.Fatalf("round %d: schedule fires %v for %v, hand computation %v for %v", t, fire, up, anySignal, pred)
	}
	if fire {
		h.checked++
		h.want = slices.Clone(sm.wsyn)
		n := 0
		for i, u := range up {
			if u {
				addTo(h.want, sm.silos[i].batch.w)
				h.last[i], h.pending[i] = t, true
				n++
			}
		}
		if n < len(up) {
			h.subsets++
		}
	}
	return fire
}

// TestDisLinUCBTrigger: DisLinUCB's synchronisations are exactly those
// of its rule computed by hand (gonum's log-determinants of the silos'
// statistics, the product form (t - t_last) log det ratio > D), at D =
// 0.05, 0.5 and 2, for the paper's rule (every silo on a signal) and for
// each silo alone, where some synchronisations involve a strict subset of
// the silos and publish only their batches. Mutation controls (tried
// 2026-12-02): the growth not multiplied by t - t_last (the extension
// trial's variant); each silo's t_last shared (the last synchronisation
// of any silo); the eager learner restarting the silos left out; and the
// simulator clearing their batches: each fails it.
func TestDisLinUCBTrigger(t *testing.T) {
	for _, each := range []float64{0, 1} {
		for _, D := range []float64{0.05, 0.5, 2} {
			s := disLinSpec(200, D, each)
			h := &handTrigger{t: t, D: D, each: each == 1, last: make([]int, s.M), wlast: make([][]float64, s.M), pending: make([]bool, s.M)}
			sm := newTestSim(t, s, hooks{schedule: h})
			h.sm = sm
			h.inner = newLogDetSchedule(sm.s.Params["sync_threshold"], s.M, each == 1)
			for i := range h.wlast {
				h.wlast[i] = make([]float64, sm.np)
			}
			for tt := 1; tt <= s.T; tt++ {
				sm.round(tt)
			}
			t.Logf("each_silo %v, D = %v: %d synchronisations, %d of a strict subset", each, D, h.checked, h.subsets)
			if h.checked == 0 || h.checked != sm.syncs {
				t.Errorf("each_silo %v, D = %v: %d synchronisations, %d checked", each, D, sm.syncs, h.checked)
			}
			if (each == 1) != (h.subsets > 0) {
				t.Errorf("each_silo %v, D = %v: %d of %d synchronisations of a strict subset", each, D, h.subsets, h.checked)
			}
		}
	}
}

// TestDisLinUCBCommunication: every synchronisation sends d(d+1)/2 + d
// scalars per silo taking part (M of them under the paper's rule); a
// larger D synchronises less; each silo alone sends less than the
// paper's rule at the same D.
func TestDisLinUCBCommunication(t *testing.T) {
	const per = 3*4/2 + 3
	scalars := map[float64]int64{}
	for _, each := range []float64{0, 1} {
		prev := math.MaxInt
		for _, D := range []float64{0.05, 0.5, 2} {
			var sent int64
			h := hooks{sent: func(_, _ int, _ string, msg []float64) { sent += int64(len(msg)) }}
			sm := newTestSim(t, disLinSpec(400, D, each), h)
			r := runSim(sm)
			if r.Scalars != sent || sent%per != 0 || each == 0 && r.Scalars != int64(r.Syncs*4*per) {
				t.Errorf("each_silo %v, D = %v: %d scalars in %d synchronisations (%d sent)", each, D, r.Scalars, r.Syncs, sent)
			}
			if r.Syncs >= prev {
				t.Errorf("each_silo %v: D = %v synchronises %d times, a smaller D %d", each, D, r.Syncs, prev)
			}
			prev = r.Syncs
			if each == 1 && r.Scalars >= scalars[D] {
				t.Errorf("D = %v: each silo alone sends %d scalars, the paper's rule %d", D, r.Scalars, scalars[D])
			}
			scalars[D] = r.Scalars
		}
	}
}

// TestDisLinUCBEqualities: with D = 0 every silo synchronises after
// every round, and DisLinUCB is FedLinUCB with B = 1 (eager learner) bit
// for bit, each silo alone or not; under the paper's rule it is the
// non-private FedUCB at the same threshold bit for bit (the same rule,
// one schedule type).
func TestDisLinUCBEqualities(t *testing.T) {
	run := func(s Spec) *Result {
		r, err := Run(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	fl := disLinSpec(150, 0, 0)
	fl.Algorithm, fl.Params = AlgFedLinUCB, nil
	want := run(fl)
	for _, each := range []float64{0, 1} {
		r := run(disLinSpec(150, 0, each))
		if r.Syncs != 150 || !slicesEqualBits(resultBits(r), resultBits(want)) {
			t.Errorf("each_silo %v, D = 0: %d synchronisations, pseudo %v; FedLinUCB B = 1: %v", each, r.Syncs, r.Pseudo, want.Pseudo)
		}
	}
	np := disLinSpec(300, 0.5, 0)
	np.Algorithm, np.Protocol, np.Params = AlgFedUCBNonPrivate, ProtocolPAlt, map[string]float64{"sync_threshold": 0.5}
	if a, b := run(disLinSpec(300, 0.5, 0)), run(np); !slicesEqualBits(resultBits(a), resultBits(b)) || a.Syncs < 2 {
		t.Errorf("DisLinUCB (%d synchronisations, pseudo %v) is not feducb-np (%d, %v)", a.Syncs, a.Pseudo, b.Syncs, b.Pseudo)
	}
}

// TestDisLinUCBParams: sync_threshold defaults to T ln(MT)/(dM) and
// each_silo to 0 (the paper's rule), both recorded; an explicit 0 is
// kept; the lazy learner is refused naming Lazy.
func TestDisLinUCBParams(t *testing.T) {
	s := disLinSpec(100, 0, 0)
	s.Params = nil
	w := s.WithDefaults()
	if got, want := w.Params["sync_threshold"], DefaultSyncThreshold(100, 4, 3); got != want || w.Params["each_silo"] != 0 {
		t.Errorf("defaults %v, want sync_threshold %v and each_silo 0", w.Params, want)
	}
	if v, ok := disLinSpec(100, 0, 0).WithDefaults().Params["sync_threshold"]; !ok || v != 0 {
		t.Errorf("explicit sync_threshold 0 became %v", v)
	}
	s.Lazy = true
	if err := s.WithDefaults().Validate(); err == nil || !strings.Contains(err.Error(), "Lazy") {
		t.Errorf("lazy DisLinUCB: %v", err)
	}
}
