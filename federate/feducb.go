package federate

import "github.com/fedbandit/fedbandit/internal/fmath"

// AlgFedUCB is FedUCB (Dubey & Pentland, NeurIPS 2020; protocol.md section
// 7): the eager learner, a synchronisation whenever a silo's log-det
// condition fires on its own non-private data, and every silo's
// cumulative statistics through its own tree mechanism (protocol P_alt)
// with FedUCB's noise. Its registry entry is in algorithms.go. The
// schedule depends on the data, which the accountant does not cover: its
// runs are recorded as not certified (Spec.Uncertified).
const AlgFedUCB = "feducb"

// DefaultSyncThreshold is FedUCB's threshold D when its parameter
// sync_threshold is absent: T ln(M T) / (d M), the choice of the distributed-LinUCB analyses
// (Wang et al. 2020) that FedUCB follows.
func DefaultSyncThreshold(t, m, d int) float64 {
	return float64(t) * fmath.Log(float64(m)*float64(t)) / (float64(d) * float64(m))
}

// fedUCBParts builds FedUCB: the eager learner, the log-det schedule and
// each silo's noisy prefix sums (protocol P_alt) at FedUCB's sigma.
func fedUCBParts(su runSetup) (parts, error) {
	s := su.spec
	st, err := newSiloTrees(s.M, su.d, su.cal.Sigma, s.GramNoise, su.noise)
	if err != nil {
		return parts{}, err
	}
	d := s.Params["sync_threshold"] // WithDefaults filled it
	return parts{
		learner:  newEagerLearner(s.M, su.d),
		schedule: &logDetSchedule{threshold: d, logdet: make([]float64, s.M)},
		protocol: newTreePrefixes(st, su.d),
	}, nil
}

// logDetSchedule is FedUCB's trigger: silo i asks for a synchronisation
// when log det(V_i) - log det(V_last), the growth of its local V since the
// last synchronisation, exceeds D / (t - t_last). Each observation adds
// log1p(x^T V^-1 x) (det(V + x x^T) = det(V)(1 + x^T V^-1 x)), the
// leverage the learner step returns.
type logDetSchedule struct {
	threshold float64
	logdet    []float64 // per silo, since the last synchronisation
	last      int       // round of the last synchronisation
}

func (l *logDetSchedule) observed(i int, q float64) { l.logdet[i] += fmath.Log1p(q) }

func (l *logDetSchedule) due(t int) bool {
	limit := l.threshold / float64(t-l.last)
	fire := false
	for _, v := range l.logdet {
		if v > limit {
			fire = true
			break
		}
	}
	if fire {
		clear(l.logdet)
		l.last = t
	}
	return fire
}
