package federate

import (
	"fmt"

	"github.com/fedbandit/fedbandit/internal/fmath"
)

// AlgFedUCB is FedUCB (Dubey & Pentland, NeurIPS 2020; protocol.md section
// 7): the eager learner, a synchronisation whenever a silo's log-det
// condition fires on its own non-private data, and every silo's
// cumulative statistics through its own tree mechanism (protocol P_alt)
// with FedUCB's noise. Its registry entry is in algorithms.go. The
// schedule depends on the data, which the accountant does not cover: its
// runs are recorded as not certified (Spec.Uncertified).
const AlgFedUCB = "feducb"

// AlgFedUCBNonPrivate is FedUCB without noise: the same learner and
// schedule, the silos' exact statistics summed (the dashed curves of
// Dubey & Pentland's Figure 1 B).
const AlgFedUCBNonPrivate = "feducb-np"

// DefaultSyncThreshold is FedUCB's threshold D when its parameter
// sync_threshold is absent: T ln(M T) / (d M), the choice of the distributed-LinUCB analyses
// (Wang et al. 2020) that FedUCB follows.
func DefaultSyncThreshold(t, m, d int) float64 {
	return float64(t) * fmath.Log(float64(m)*float64(t)) / (float64(d) * float64(m))
}

// FedUCB's communication regimes (its parameter regime; Dubey & Pentland
// 2020, Theorem 1, Remark 1 and Figure 1 B). Each sets the threshold D:
// the number n of messages (M per synchronisation) is then of the order
// the name says.
const (
	// RegimeNone: D is the parameter sync_threshold as given (default
	// DefaultSyncThreshold).
	RegimeNone = 0
	// RegimeM15 is n = O(M^1.5) (Remark 1, "following the reasoning in
	// [48]", Wang et al. 2020): D = T ln(MT)/(dM), DefaultSyncThreshold;
	// Proposition 1 bounds the synchronisations by O(d sqrt(M)), whatever
	// T up to a logarithm.
	RegimeM15 = 1
	// RegimeMLogT is n = O(M log T) (Theorem 1): D = 2 T d / (ln(rho_max /
	// rho_min + T L^2/(d rho_min)) + 1), with L = 1 and rho_min = rho_max
	// = 1 (the non-private ridge), the same rule for private and
	// non-private runs; Proposition 1 bounds the synchronisations by
	// O(log T).
	RegimeMLogT = 2
	// RegimeMT is n = O(M T) (Remark 1, "synchronize every round"): D = 0,
	// which the schedule reads as a synchronisation after every round.
	RegimeMT = 3
)

// RegimeThreshold returns the threshold D of a communication regime for
// horizon t, m silos and dimension d (RegimeNone: DefaultSyncThreshold).
func RegimeThreshold(regime, t, m, d int) float64 {
	switch regime {
	case RegimeMLogT:
		return float64(2*float64(t)*float64(d)) / (fmath.Log(1+float64(t)/float64(d)) + 1)
	case RegimeMT:
		return 0
	}
	return DefaultSyncThreshold(t, m, d)
}

// fedUCBThreshold is the paramDefault of FedUCB's sync_threshold:
// DefaultSyncThreshold without a regime; absent under a regime, whose D
// the run computes from its own T, M and d (fedUCBParts), so that a spec
// copied to another horizon (a timing pilot) keeps its rule.
func fedUCBThreshold(s Spec, key string) (float64, bool) {
	d := s.Dim()
	if key != "sync_threshold" || s.Params["regime"] != RegimeNone {
		return 0, false
	}
	return DefaultSyncThreshold(s.T, s.M, d), d > 0 && s.T > 0 && s.M > 0
}

// validateFedUCB checks FedUCB's learner and that the threshold D is
// given one way: by sync_threshold or by a regime, not both.
func validateFedUCB(s Spec) error {
	if s.Lazy {
		return &FieldError{Field: "Lazy", Msg: fmt.Sprintf("Lazy with %s: its schedule needs the eager learner's leverage x^T V^-1 x", s.Algorithm)}
	}
	if r := s.Params["regime"]; r != RegimeNone {
		if v, ok := s.Params["sync_threshold"]; ok {
			return &FieldError{Field: "Params.sync_threshold", Msg: fmt.Sprintf("sync_threshold = %v with regime = %v: the regime sets D; give one of them", v, r)}
		}
	}
	return nil
}

// fedUCBParts builds FedUCB: the eager learner, the log-det schedule with
// the threshold D (sync_threshold, or its regime's for the run's T, M and
// d) and each silo's noisy prefix sums (protocol P_alt) at FedUCB's sigma,
// or the exact sum for the non-private variant.
func fedUCBParts(su runSetup) (parts, error) {
	s := su.spec
	d, ok := s.Params["sync_threshold"] // WithDefaults filled it without a regime
	if r := int(s.Params["regime"]); r != RegimeNone || !ok {
		d = RegimeThreshold(r, s.T, s.M, su.d)
	}
	p := parts{
		learner:  newEagerLearner(s.M, su.d),
		schedule: newLogDetSchedule(d, s.M, false),
		protocol: exactSum{},
	}
	if !su.alg.Private() {
		return p, nil
	}
	st, err := newSiloTrees(s.M, su.d, su.cal.Sigma, s.GramNoise, su.noise)
	if err != nil {
		return parts{}, err
	}
	p.protocol = newTreePrefixes(st, su.d)
	return p, nil
}

// logDetSchedule is the log-det trigger of DisLinUCB (Wang et al. 2020),
// which FedUCB follows: silo i signals a synchronisation after round t
// when (t - t_last) (log det(V_i) - log det(V_last)) > D, the growth of
// its local V since its last synchronisation times the rounds since then;
// it is tested as growth > D / (t - t_last). Each observation adds
// log1p(x^T V^-1 x) (det(V + x x^T) = det(V)(1 + x^T V^-1 x)), the
// leverage the learner step returns. On a signal every silo takes part
// (the papers' rule), or, with each, only the silos whose own condition
// fires, each with its own t_last. D = 0 synchronises every silo after
// every round (the regime n = O(M T)): in exact arithmetic a silo's
// growth after a round is > 0 whenever its action is not zero, and a
// noisy V must not make it otherwise.
type logDetSchedule struct {
	threshold float64
	each      bool
	logdet    []float64 // per silo, since its last synchronisation
	last      []int     // per silo, the round of its last synchronisation
}

func newLogDetSchedule(threshold float64, m int, each bool) *logDetSchedule {
	return &logDetSchedule{threshold: threshold, each: each, logdet: make([]float64, m), last: make([]int, m)}
}

func (l *logDetSchedule) observed(i int, q float64) { l.logdet[i] += fmath.Log1p(q) }

func (l *logDetSchedule) due(t int, up []bool) bool {
	fire := false
	for i, v := range l.logdet {
		if l.threshold == 0 || v > l.threshold/float64(t-l.last[i]) {
			up[i], fire = true, true
		}
	}
	if fire && !l.each {
		all(up, true)
	}
	for i, u := range up {
		if u {
			l.logdet[i], l.last[i] = 0, t
		}
	}
	return fire
}
