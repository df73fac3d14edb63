package federate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/fedbandit/fedbandit/federate/accountant"
	"github.com/fedbandit/fedbandit/federate/tree"
	"github.com/fedbandit/fedbandit/internal/rng"
)

// AuditOptions configure Audit.
type AuditOptions struct {
	// Trials is the number of releases drawn under each of the two
	// neighbouring datasets (default 2000).
	Trials int
	// Seed seeds the releases' privacy noise (the audit's own streams).
	Seed uint64
	// SigmaScale multiplies the noise actually drawn (default 1): the
	// mutation controls of the audit use 0.5 and 2. The claim is always
	// the calibrated sigma's.
	SigmaScale float64
	// Pair chooses the neighbouring datasets: PairReward or PairSchedule.
	// Empty picks PairSchedule for an algorithm whose schedule depends on
	// the data (FedUCB) and PairReward otherwise.
	Pair string
	// Progress, when non-nil, is called after each trial (one release
	// under each of the two datasets).
	Progress func()
}

// The neighbouring datasets of an audit.
const (
	// PairReward: the first user's rewards are 1 or 0 (the eager
	// learner's leak, docs/privacy.md 2.1); the release audited is the
	// silo's first tree node.
	PairReward = "reward"
	// PairSchedule: the first user's context has norm 1 or 1/2 (FedUCB's
	// schedule leak, docs/privacy.md 2.1b); the release audited is the
	// round of the silo's first synchronisation.
	PairSchedule = "schedule"
)

// AuditResult is an empirical privacy audit of one silo's first release
// (privacy.md T8): the noisy level-1 tree node of both streams under two
// neighbouring datasets, drawn Trials times each through the real code
// path (action selection, clipping, the learner, the tree, the noise).
type AuditResult struct {
	Spec Spec // the audited spec (one silo, one batch)
	// Kind is PairReward or PairSchedule, and Pair describes the
	// neighbouring datasets.
	Kind, Pair string
	// Trials is the number of releases drawn under each dataset.
	Trials int
	// ClaimMu is the Gaussian-DP mu the accountant's calibration claims
	// for one node of both streams: sqrt(DeltaG^2 + Deltab^2)/sigma under
	// the spec's relation.
	ClaimMu float64
	// ExactMu is the mu of this pair for the mechanism as simulated: the
	// distance between the two datasets' noiseless nodes, each entry
	// divided by its noise standard deviation (the first batch's actions
	// do not depend on the privacy noise, so the release is that node
	// plus Gaussian noise).
	ExactMu float64
	// Under PairSchedule the Gaussian-DP fields (ClaimMu, ExactMu, Mu,
	// SD and their intervals) are NaN: the release is a round number.
	//
	// Mu and MuLo, MuHi: the empirical mu (the difference of the mean
	// projections on the direction between the two noiseless nodes, in
	// units of the projections' pooled standard deviation) and its 99%
	// confidence interval.
	Mu, MuLo, MuHi float64
	// SD is the pooled standard deviation of the whitened projections
	// (1 when the noise is what the calibration says) and SDLo, SDHi its
	// 99% confidence interval.
	SD, SDLo, SDHi float64
	// EpsLo is a 95% lower confidence bound on eps at the spec's delta
	// from the best threshold test on the projection (Clopper-Pearson
	// bounds on its error rates); 0 when no threshold gives a positive
	// bound.
	EpsLo float64
	// ClaimEps is the eps the claimed mu gives at the spec's delta (the
	// spec's target eps under PairSchedule: what the algorithm claims).
	ClaimEps float64
	// Released0 and Released1 are the releases under the two datasets
	// (reward rewards 0 and 1; schedule norms 1/2 and 1), one per trial:
	// the whitened projection minus the noiseless dataset-0 projection
	// under PairReward, the round of the first synchronisation (0: none
	// within the audit's 2B rounds) under PairSchedule.
	Released0, Released1 []float64
	// P0 and P1 (PairSchedule) are the fractions of trials whose first
	// synchronisation is at round 1 under each dataset.
	P0, P1 float64
	// Verdict is "pass", or why not: the empirical mu exceeds the claim
	// (lower bound above it), or the noise's scale is not the claimed one
	// (the SD interval excludes 1).
	Verdict string
}

// Audit measures the privacy of one silo's release of spec's algorithm
// empirically, under the neighbouring datasets o.Pair chooses.
//
// PairReward: the first user's rewards are 1 for both of two documents in
// one dataset, 0 in the other; later users' means are 0.3 and 0.9, with
// reward noise N(0, 1/4) from the spec's seed: the same draws in every
// trial and under both datasets (the users' outcomes are part of the
// datasets; the trials redraw only the privacy noise). The documents are
// chosen from the calibration
// so that, under the eager learner, the second user's action follows the
// first user's reward. Under the lazy learner only that user's own
// summand differs; under the eager learner her reward changes the later
// users' actions (docs/privacy.md 2.1), which the audit detects as an
// empirical mu above the claim. The release is the silo's first tree node.
//
// PairSchedule: the first user's context has norm 1 in one dataset and
// 1/2 in the other (FedUCB's schedule leak, docs/privacy.md 2.1b). The
// release is the round of the silo's first synchronisation, over 2B
// rounds; a fixed schedule releases B under both datasets.
//
// The spec must be private. Its M and T (when set) choose the
// calibration, as in a run of the spec; the audit then simulates one
// silo on its own instance (d = 2, two documents) for one batch
// (PairReward) or two (PairSchedule).
func Audit(ctx context.Context, spec Spec, o AuditOptions) (*AuditResult, error) {
	if o.Trials == 0 {
		o.Trials = 2000
	}
	if o.SigmaScale == 0 {
		o.SigmaScale = 1
	}
	if o.Trials < 10 || !(o.SigmaScale > 0) || math.IsInf(o.SigmaScale, 0) {
		return nil, fmt.Errorf("audit: trials %d (want >= 10), sigma scale %v (want > 0)", o.Trials, o.SigmaScale)
	}
	s := spec
	s.Instance, s.LTR = InstanceSynthetic, nil
	s.Synthetic = SyntheticSpec{D: 2, K: 2, NoiseVar: 0.25}
	s.Every, s.Calib, s.Seed = 0, nil, 0
	// The calibration is the spec's own (its M and T); the simulation is
	// one silo.
	cs := s
	if cs.M == 0 {
		cs.M = 1
	}
	if cs.T == 0 {
		cs.T = cs.B
	}
	cs = cs.WithDefaults()
	if err := cs.Validate(); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	if !cs.Private() {
		return nil, errors.New("audit: the algorithm is not private: there is nothing to audit")
	}
	alg, _ := LookupAlgorithm(cs.Algorithm)
	if alg.LocalNoise {
		return nil, fmt.Errorf("audit: %s noises each user's report, not a tree node: this audit measures tree releases", cs.Algorithm)
	}
	cal, err := calibration(cs)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	pair := o.Pair
	if pair == "" {
		pair = PairReward
		if alg.AdaptiveSchedule {
			pair = PairSchedule
		}
	}
	s = cs
	s.M, s.T = 1, s.B
	switch pair {
	case PairReward:
		return auditReward(ctx, s, cal, o)
	case PairSchedule:
		s.T = 2 * s.B
		return auditSchedule(ctx, s, cal, o)
	}
	return nil, fmt.Errorf("audit: pair %q: want %s or %s", pair, PairReward, PairSchedule)
}

// auditReward is Audit under PairReward.
func auditReward(ctx context.Context, s Spec, cal *accountant.Calibration, o AuditOptions) (*AuditResult, error) {
	gstd, err := tree.GramStd(2, cal.Sigma, s.GramNoise)
	if err != nil {
		return nil, err
	}
	std := append(gstd, cal.Sigma, cal.Sigma)
	// P_TVec releases its first node by P_Vec (binomial noise): whitened
	// by the decoded noise's standard deviation, claimed by the
	// accountant's bound for that one node of both streams.
	vec := s.model() == accountant.ModelSDPVec
	var vecReq accountant.Request
	if vec {
		if o.SigmaScale != 1 {
			return nil, fmt.Errorf("audit: --sigma-scale scales Gaussian noise; %s's is binomial", s.Algorithm)
		}
		vecReq = cal.Request
		vecReq.M, vecReq.B, vecReq.D = s.M, s.B, 2
		nd := accountant.VecSumParams(vecReq, cal.Sigma, s.B*s.M)
		sd := math.Sqrt(float64(nd.N)*float64(nd.Draws)*accountant.VecSumP*(1-accountant.VecSumP)) / nd.G
		for e := range std {
			std[e] = sd
		}
	}
	// The two documents: a = e1 and b = c e2, listed b first, with c such
	// that, for the eager learner after the first user took a, b's UCB
	// width exceeds a's by eps, 0 < beta_2 eps < 1/(Lambda+1): the second
	// user takes a if the first user's reward was 1 and b if it was 0,
	// whatever the calibration. Under the lazy learner every user of the
	// batch takes a.
	lam, beta2 := cal.Lambda, cal.Beta(2)
	eps := 1 / (2 * beta2 * (lam + 1))
	c := math.Sqrt(lam) * (1/math.Sqrt(lam+1) + eps)
	docs := []float64{0, c, 1, 0}

	// release returns the whitened released node (Gram then bias) of
	// dataset first (the first user's rewards) with noise from stream n.
	release := func(first float64, n int, noisy bool) ([]float64, error) {
		if vec {
			return vecRelease(s, cal, docs, first, n, noisy, o.Seed, std)
		}
		h := hooks{noise: func(i int, stream string, sd []float64) tree.Noise {
			if !noisy {
				return &tree.Recorder{}
			}
			scaled := make([]float64, len(sd))
			for e, v := range sd {
				scaled[e] = v * o.SigmaScale
			}
			return &tree.Gaussian{R: rng.New(rng.NewKey("fedbandit/audit", o.Seed), "trial", n, stream, int(first)), Std: scaled}
		}}
		return auditNode(s, cal, h, nil, docs, first, std)
	}
	v1, err := release(1, -1, false)
	if err != nil {
		return nil, err
	}
	v0, err := release(0, -1, false)
	if err != nil {
		return nil, err
	}
	dir := make([]float64, len(v1))
	var exact float64
	for e := range dir {
		dir[e] = v1[e] - v0[e]
		exact += dir[e] * dir[e]
	}
	exact = math.Sqrt(exact)
	for e := range dir {
		dir[e] /= exact
	}
	proj := func(z []float64) float64 {
		var p float64
		for e := range z {
			p += z[e] * dir[e]
		}
		return p
	}
	a, b := make([]float64, o.Trials), make([]float64, o.Trials)
	for n := 0; n < o.Trials; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		z0, err := release(0, n, true)
		if err != nil {
			return nil, err
		}
		z1, err := release(1, n, true)
		if err != nil {
			return nil, err
		}
		a[n], b[n] = proj(z0)-proj(v0), proj(z1)-proj(v0)
		if o.Progress != nil {
			o.Progress()
		}
	}
	res := &AuditResult{Spec: s, Kind: PairReward, Trials: o.Trials, ExactMu: exact, Released0: a, Released1: b,
		P0: math.NaN(), P1: math.NaN(),
		Pair: fmt.Sprintf("first user's rewards 1 vs 0; documents c e2 (c = %.6g) and e1, later means 0.3 and 0.9", c)}
	if vec {
		// One P_Vec node of both streams: the accountant's bound.
		res.ClaimMu = math.NaN()
		if res.ClaimEps, err = accountant.VecSumBound(vecReq, cal.Sigma, 1); err != nil {
			return nil, err
		}
	} else {
		// One node of both streams: the tree's mu with kappa = 1.
		if res.ClaimMu, err = accountant.TreeMu(cal.Sigma, 1, s.Relation); err != nil {
			return nil, err
		}
		if res.ClaimEps, err = accountant.GDPEps(res.ClaimMu, s.Delta); err != nil {
			return nil, err
		}
	}
	ma, mb := mean(a), mean(b)
	n := float64(o.Trials)
	var ss float64
	for i := range a {
		ss += (a[i]-ma)*(a[i]-ma) + (b[i]-mb)*(b[i]-mb)
	}
	df := 2*n - 2
	res.SD = math.Sqrt(ss / df)
	chi := distuv.ChiSquared{K: df}
	res.SDLo = math.Sqrt(ss / chi.Quantile(0.995))
	res.SDHi = math.Sqrt(ss / chi.Quantile(0.005))
	res.Mu = (mb - ma) / res.SD
	se := math.Sqrt(2 / n) // of (mb - ma)/sd, for unit-variance samples
	z := distuv.UnitNormal.Quantile(0.995)
	res.MuLo, res.MuHi = res.Mu-z*se, res.Mu+z*se
	res.EpsLo = thresholdEpsLo(a, b, s.Delta)
	switch {
	case vec && res.EpsLo > res.ClaimEps:
		res.Verdict = fmt.Sprintf("VIOLATION: eps >= %.3g (95%% lower bound) exceeds the claimed %.3g", res.EpsLo, res.ClaimEps)
	case res.MuLo > res.ClaimMu:
		res.Verdict = fmt.Sprintf("VIOLATION: empirical mu >= %.3g (99%% lower bound) exceeds the claimed %.3g", res.MuLo, res.ClaimMu)
	case res.SDLo > 1 || res.SDHi < 1:
		res.Verdict = fmt.Sprintf("NOISE SCALE: the released noise has %.3g times the claimed standard deviation (99%% interval %.3g-%.3g)", res.SD, res.SDLo, res.SDHi)
	default:
		res.Verdict = "pass"
	}
	return res, nil
}

// vecRelease is auditReward's release of P_TVec's first node (level 0,
// the silo's first batch) under dataset first, whitened by std: noisy,
// with the trial's own users' roundings and shuffler's noise bits;
// noiseless, the node's exact sums, from LDP-FedLinUCB with its noise off
// at the same calibration (the first batch's actions do not depend on any
// privacy noise).
func vecRelease(s Spec, cal *accountant.Calibration, docs []float64, first float64, n int, noisy bool, seed uint64, std []float64) ([]float64, error) {
	if !noisy {
		s.Algorithm = AlgLDP
		return auditNode(s, cal, hooks{noise: func(int, string, []float64) tree.Noise { return &tree.Recorder{} }}, nil, docs, first, std)
	}
	// The trial's own roundings and noise bits; the rewards stay those of
	// the spec's seed (part of the datasets).
	key := rng.NewKey("fedbandit/audit", seed)
	reseed := func(sm *sim) {
		sm.protocol.(*vecSum).noise = rng.Source(key, "trial", n, "vecsum-noise", int(first))
		enc := sm.learner.(*vecSumEncoder)
		for i := range enc.r {
			enc.r[i] = bitSource{r: rng.Source(key, "trial", n, "vecsum-rounding", i, int(first))}
		}
	}
	return auditNode(s, cal, hooks{}, reseed, docs, first, std)
}

// auditNode plays one silo's first batch of s on the audit instance
// (dataset first) with hooks h, after prepare (if any) has adjusted the
// run, and returns the first released node (Gram then bias), each entry
// divided by std.
func auditNode(s Spec, cal *accountant.Calibration, h hooks, prepare func(*sim), docs []float64, first float64, std []float64) ([]float64, error) {
	sm, err := newSim(s, cal, h)
	if err != nil {
		return nil, err
	}
	if prepare != nil {
		prepare(sm)
	}
	sm.inst = newAuditInstance(docs, []float64{first, first}, []float64{0.3, 0.9})
	for t := 1; t <= s.T; t++ {
		sm.round(t)
	}
	var z []float64
	switch p := sm.protocol.(type) {
	case *vecSum:
		z = append([]float64(nil), p.node[0]...)
	case treeProtocol:
		st := p.trees()
		l := tree.Level(1)
		z = append(append([]float64(nil), st.gram[0].Node(l)...), st.bias[0].Node(l)...)
	default:
		return nil, fmt.Errorf("audit: %s does not release tree nodes: the reward pair measures those (its schedule can be audited with the schedule pair)", s.Algorithm)
	}
	for e := range z {
		z[e] /= std[e]
	}
	return z, nil
}

// auditSchedule is Audit under PairSchedule: the release is the round of
// the first synchronisation. The empirical eps is a 95% lower bound from
// the event "the first synchronisation is at round 1" (Clopper-Pearson,
// both directions, Bonferroni): when the schedule depends on the first
// user's norm, the event has probability 1 under one dataset and 0 under
// the other, and the bound grows as ln(trials) without limit.
func auditSchedule(ctx context.Context, s Spec, cal *accountant.Calibration, o AuditOptions) (*AuditResult, error) {
	// FedUCB fires at t = 1 iff ln(1 + ||x_1||^2/Lambda) > D. The pair's
	// norms 1 and 1/2 straddle the boundary ||x||^2 = Lambda expm1(D) when
	// it lies in (1/4, 1); otherwise the audit sets D to put it at 1/2.
	note := ""
	if a, _ := LookupAlgorithm(s.Algorithm); a.AdaptiveSchedule {
		if b := cal.Lambda * math.Expm1(s.Params["sync_threshold"]); !(b > 0.25 && b < 1) {
			s.Params = map[string]float64{"sync_threshold": math.Log1p(0.5 / cal.Lambda)}
			note = fmt.Sprintf("; sync threshold D = %.6g (boundary ||x_1||^2 = 1/2)", s.Params["sync_threshold"])
		}
	}
	release := func(scale float64, n int) (float64, error) {
		h := hooks{noise: func(i int, stream string, sd []float64) tree.Noise {
			scaled := make([]float64, len(sd))
			for e, v := range sd {
				scaled[e] = v * o.SigmaScale
			}
			return &tree.Gaussian{R: rng.New(rng.NewKey("fedbandit/audit", o.Seed), "schedule", n, stream, int(2*scale)), Std: scaled}
		}}
		first := 0
		var sm *sim
		h.sent = func(k, i int, stream string, _ int) {
			if first == 0 {
				first = sm.t
			}
		}
		sm, err := newSim(s, cal, h)
		if err != nil {
			return 0, err
		}
		in := newAuditInstance([]float64{1, 0, 0, 1}, []float64{0.5, 0.5}, []float64{0.5, 0.5})
		in.firstDocs = []float64{scale, 0, 0, scale}
		sm.inst = in
		for t := 1; t <= s.T; t++ {
			sm.round(t)
		}
		return float64(first), nil
	}
	a, b := make([]float64, o.Trials), make([]float64, o.Trials)
	k0, k1 := 0, 0
	for n := 0; n < o.Trials; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var err error
		if a[n], err = release(0.5, n); err != nil {
			return nil, err
		}
		if b[n], err = release(1, n); err != nil {
			return nil, err
		}
		if a[n] == 1 {
			k0++
		}
		if b[n] == 1 {
			k1++
		}
		if o.Progress != nil {
			o.Progress()
		}
	}
	nan := math.NaN()
	res := &AuditResult{Spec: s, Kind: PairSchedule, Trials: o.Trials, Released0: a, Released1: b,
		ClaimMu: nan, ExactMu: nan, Mu: nan, MuLo: nan, MuHi: nan, SD: nan, SDLo: nan, SDHi: nan,
		ClaimEps: s.Eps, P0: float64(k0) / float64(o.Trials), P1: float64(k1) / float64(o.Trials),
		Pair: "first user's context norm 1 vs 1/2 (two orthogonal documents), all means 0.5" + note}
	res.EpsLo = math.Max(eventEpsLo(k1, k0, o.Trials, s.Delta), eventEpsLo(k0, k1, o.Trials, s.Delta))
	if res.EpsLo > res.ClaimEps {
		res.Verdict = fmt.Sprintf("VIOLATION: the first synchronisation is at round 1 in %d/%d trials under norm 1 and %d/%d under norm 1/2: eps >= %.3g (95%%), above the claimed %.3g",
			k1, o.Trials, k0, o.Trials, res.EpsLo, res.ClaimEps)
	} else {
		res.Verdict = "pass"
	}
	return res, nil
}

// eventEpsLo is a 95% lower confidence bound on eps at delta from an event
// seen k of n times under one dataset and j of n under the other:
// log((P_lo - delta) / Q_hi) with Clopper-Pearson bounds at level 0.025
// each (two directions are tried, so each uses half of 5%).
func eventEpsLo(k, j, n int, delta float64) float64 {
	const alpha = 0.025 / 2
	plo := 1 - cpUpper(n-k, n, alpha)
	qhi := cpUpper(j, n, alpha)
	if num := plo - delta; num > 0 && qhi > 0 {
		return math.Max(0, math.Log(num/qhi))
	}
	return 0
}

// auditInstance is Audit's instance: the same two documents (rows of
// docs, d = 2) every round (firstDocs, when set, in round 1), with means
// first in round 1 and later after.
type auditInstance struct {
	set          actionSet
	docs         []float64
	firstDocs    []float64
	first, later []float64
	calls        int
}

func newAuditInstance(docs, first, later []float64) *auditInstance {
	in := &auditInstance{first: first, later: later, docs: docs}
	p := panel{x: make([]float64, panelLen(2, 2)), n: 2}
	toPanel(p.x, docs, 2, 2)
	in.set = actionSet{panels: []panel{p}, mu: make([]float64, panelLen(2, 1)), n: 2}
	return in
}

func (in *auditInstance) next(int) *actionSet {
	in.calls++
	switch {
	case in.calls == 1 && in.firstDocs != nil:
		toPanel(in.set.panels[0].x, in.firstDocs, 2, 2)
	case in.calls == 2 && in.firstDocs != nil:
		toPanel(in.set.panels[0].x, in.docs, 2, 2)
	}
	if in.calls == 1 {
		copy(in.set.mu, in.first)
	} else {
		copy(in.set.mu, in.later)
	}
	return &in.set
}

func (in *auditInstance) noiseStd() float64 { return 0 }

func (in *auditInstance) bernoulli() bool { return false }

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// thresholdEpsLo is the largest 95% lower bound on eps at delta over
// threshold tests "b-side if the projection exceeds tau": with
// Clopper-Pearson upper bounds FPR_u on P(a > tau) and FNR_u on
// P(b <= tau), eps >= log((1 - delta - FNR_u) / FPR_u) (the thresholds are
// the sample quantiles of a; a Bonferroni split over them keeps the level).
func thresholdEpsLo(a, b []float64, delta float64) float64 {
	sa := append([]float64(nil), a...)
	sort.Float64s(sa)
	n := len(sa)
	qs := []float64{0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995}
	alpha := 0.05 / float64(2*len(qs))
	best := 0.0
	for _, q := range qs {
		tau := sa[int(q*float64(n-1))]
		fp, fn := 0, 0
		for _, x := range a {
			if x > tau {
				fp++
			}
		}
		for _, x := range b {
			if x <= tau {
				fn++
			}
		}
		fpu, fnu := cpUpper(fp, len(a), alpha), cpUpper(fn, len(b), alpha)
		if num := 1 - delta - fnu; num > 0 && fpu > 0 {
			best = math.Max(best, math.Log(num/fpu))
		}
	}
	return best
}

// cpUpper is the Clopper-Pearson upper confidence bound (level 1-alpha)
// on a binomial proportion with k successes in n trials.
func cpUpper(k, n int, alpha float64) float64 {
	if k >= n {
		return 1
	}
	return distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - alpha)
}
