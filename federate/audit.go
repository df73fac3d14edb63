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
	"github.com/fedbandit/fedbandit/internal/fmath"
	"github.com/fedbandit/fedbandit/internal/mutation"
	"github.com/fedbandit/fedbandit/internal/rng"
	"github.com/fedbandit/fedbandit/internal/vec"
)

// AuditOptions configure Audit. Every field is taken as given: there are
// no zero-means-default values.
type AuditOptions struct {
	// Trials is the number of releases drawn under each of the two
	// neighbouring datasets (at least 10).
	Trials int
	// Seed and Config seed the trials: trial n under dataset j runs with
	// the spec's seed replaced by one derived from (Seed, Config, n, j),
	// so every trial draws its privacy noise from the production noise
	// sources on their own streams, and two configurations of a sweep
	// (different Config) draw independent noise: their false alarms are
	// independent.
	Seed   uint64
	Config string
	// SigmaScale multiplies the Gaussian noise actually drawn (> 0; 1 is
	// the production noise as calibrated). The mutation controls of the
	// audit use 0.5 and 2. The claim is always the calibrated sigma's.
	SigmaScale float64
	// Alpha is the audit's false-alarm rate for one configuration (in
	// (0, 0.5)): a correct release is flagged with probability at most
	// Alpha. It is split evenly over the five checks of a tree release
	// (the mu interval, the eps bound, the projection's scale, every
	// coordinate's scale, every pair's independence), each Bonferroni-
	// corrected within. An audit of n configurations at family-wise rate
	// a gives each Alpha = a/n (run audit does).
	Alpha float64
	// Pair chooses the neighbouring datasets: PairAction, PairReward or
	// PairSchedule. Empty picks PairSchedule for an algorithm whose
	// schedule depends on the data (FedUCB), PairReward for the eager
	// learner (whose leak it shows) and PairAction otherwise.
	Pair string
	// Progress, when non-nil, is called after each trial (one release
	// under each of the two datasets).
	Progress func()
}

// The neighbouring datasets of an audit.
const (
	// PairAction: the first user's context and reward move both streams
	// as far as the relation allows (add-remove: x = e1, y = 1 against
	// an absent user, x = 0; replace-one: x = e1 against x at 120
	// degrees, y = 1); every later user has one context (e2), so no
	// action depends on the noise. The release is everything the run
	// publishes that contains her: the published sums at batches 1, 2,
	// 4, ..., one tree node per level, up to three levels (all of them
	// when the run has fewer), against the claim composed over those
	// levels.
	PairAction = "action"
	// PairReward: the first user's rewards are 1 or 0 (the eager
	// learner's leak, docs/privacy.md 2.1); the release audited is the
	// first published node.
	PairReward = "reward"
	// PairSchedule: the first user's context has norm 1 or 1/2 (FedUCB's
	// schedule leak, docs/privacy.md 2.1b); the release audited is the
	// round of the silo's first synchronisation.
	PairSchedule = "schedule"
)

// auditMaxLevels is the number of tree levels PairAction audits at most
// (the run's T permitting): batches 1, 2 and 4.
const auditMaxLevels = 3

// AuditResult is an empirical privacy audit of one silo's releases
// (privacy.md T8): what the run publishes under two neighbouring datasets,
// drawn Trials times each through the real code path (action selection,
// clipping, the learner, the protocol and its production noise).
type AuditResult struct {
	Spec Spec // the audited spec (one silo, a few batches)
	// Kind is PairAction, PairReward or PairSchedule, and Pair describes
	// the neighbouring datasets.
	Kind, Pair string
	// Trials is the number of releases drawn under each dataset.
	Trials int
	// Alpha is the false-alarm rate the verdict was decided at
	// (AuditOptions.Alpha).
	Alpha float64
	// Levels is the number of tree levels whose node containing the first
	// user is released (and audited); Kappa the number the run's
	// accountant composes over (its T).
	Levels, Kappa int
	// RunLevels is the number of tree nodes containing a user that a run
	// of the spec's horizon releases (1 + floor(log2) of its
	// synchronisations, counted by one noiseless run); a count above Kappa
	// is a violation (the accountant composes too few releases).
	RunLevels int
	// ClaimMu is the Gaussian-DP mu the run claims for the audited
	// release: the mu whose (eps, delta) curve meets the run's guarantee,
	// times sqrt(Levels/Kappa) (each level carries the same share). For
	// sdp-amp it is the local randomiser's mu at the calibrated sigma
	// (amplification by shuffling acts across silos and is not audited);
	// for sdp-vec it is the Gaussian limit of its binomial noise.
	ClaimMu float64
	// ExactMu is the mu of this pair for the mechanism as simulated: the
	// distance between the two datasets' noiseless releases, each entry
	// divided by its claimed noise standard deviation (no action of the
	// audited batches depends on the privacy noise, so the release is
	// that plus noise).
	ExactMu float64
	// Under PairSchedule the Gaussian-DP fields (ClaimMu, ExactMu, Mu,
	// SD and their intervals) are NaN: the release is a round number.
	//
	// Mu and MuLo, MuHi: the empirical mu (the difference of the mean
	// projections on the direction between the two noiseless releases,
	// in units of the projections' pooled standard deviation) and its
	// confidence interval at level 1 - Alpha/5 (each side).
	Mu, MuLo, MuHi float64
	// SD is the pooled standard deviation of the whitened projections
	// (1 when the noise is what the calibration says) and SDLo, SDHi its
	// confidence interval at level 1 - Alpha/5. Every coordinate of the release is also
	// checked alone (Bonferroni) and every pair for correlation.
	SD, SDLo, SDHi float64
	// EpsLo is a lower confidence bound (level 1 - Alpha/5) on eps at the spec's delta
	// from the best threshold test on the projection (Clopper-Pearson
	// bounds on its error rates); 0 when no threshold gives a positive
	// bound.
	EpsLo float64
	// ClaimEps is the eps the claimed mu gives at the spec's delta (the
	// spec's target eps under PairSchedule: what the algorithm claims).
	ClaimEps float64
	// Released0 and Released1 are the releases under the two datasets,
	// one per trial: the whitened projection minus the noiseless
	// dataset-0 projection, or under PairSchedule the round of the first
	// synchronisation (0: none within the audit's 2B rounds).
	Released0, Released1 []float64
	// P0 and P1 (PairSchedule) are the fractions of trials whose first
	// synchronisation is at round 1 under each dataset.
	P0, P1 float64
	// Ceiling is the most the trials can show: under the tree pairs the
	// largest mu they distinguish at level 1 - Alpha/5
	// (accountant.DistinguishableMu), under PairSchedule the largest eps
	// lower bound they can give (every trial's event under one dataset,
	// none under the other). A claim at or above it cannot be refuted:
	// the verdict is inconclusive, and TrialsNeeded is the fewest trials
	// per dataset whose Ceiling exceeds the claim (+Inf when no number
	// does: a claim of no finite mu or eps).
	Ceiling, TrialsNeeded float64
	// Verdict is "pass", or why not: VIOLATION (the pair's exact mu, or
	// the empirical mu's or eps's lower bound, exceeds the claim), NOISE
	// SCALE (the projection's or a coordinate's SD interval excludes 1),
	// DEPENDENCE (two coordinates' noises are correlated), or
	// inconclusive (the claim is at or above Ceiling). Each starts with
	// its Verdict constant.
	Verdict string
}

// Verdicts of an audit: AuditResult.Verdict is VerdictPass or starts with
// one of the others, followed by the statistic that decided it.
const (
	VerdictPass         = "pass"
	VerdictViolation    = "VIOLATION"
	VerdictNoiseScale   = "NOISE SCALE"
	VerdictDependence   = "DEPENDENCE"
	VerdictInconclusive = "inconclusive"
)

// ErrDegenerate is returned by Audit when its two datasets give the same
// noiseless release: nothing can be measured, which is an error, never a
// pass.
var ErrDegenerate = errors.New("audit: degenerate pair")

// Audit measures the privacy of one silo's releases of spec's algorithm
// empirically, under the neighbouring datasets o.Pair chooses (see
// PairAction, PairReward, PairSchedule). It fails closed: a degenerate
// pair (identical noiseless releases) or a statistic that is not finite is
// an error, never a pass.
//
// PairReward: the first user's rewards are 1 for both of two documents in
// one dataset, 0 in the other; later users' means are 0.3 and 0.9. The
// documents are chosen from the calibration so that, under the eager
// learner, the second user's action follows the first user's reward.
// Under the lazy learner only that user's own summand differs; under the
// eager learner her reward changes the later users' actions
// (docs/privacy.md 2.1), which the audit detects as an exact and an
// empirical mu above the claim.
//
// PairSchedule: the first user's context has norm 1 in one dataset and
// 1/2 in the other (FedUCB's schedule leak, docs/privacy.md 2.1b). The
// release is the round of the silo's first synchronisation, over 2B
// rounds; a fixed schedule releases B under both datasets.
//
// The spec must be private. Its M and T (when set) choose the calibration,
// as in a run of the spec; the audit then simulates one silo on its own
// instance (d = 2, two documents, noiseless rewards) with the production
// noise, reseeded per trial.
// MinAuditTrials is the fewest trials Audit takes.
const MinAuditTrials = 10

func Audit(ctx context.Context, spec Spec, o AuditOptions) (*AuditResult, error) {
	if o.Trials < MinAuditTrials {
		return nil, fmt.Errorf("audit: trials = %d, want >= %d", o.Trials, MinAuditTrials)
	}
	if !(o.Alpha > 0 && o.Alpha < 0.5) {
		return nil, fmt.Errorf("audit: alpha = %v, want a false-alarm rate in (0, 0.5)", o.Alpha)
	}
	if !(o.SigmaScale > 0) || math.IsInf(o.SigmaScale, 0) {
		return nil, fmt.Errorf("audit: sigma scale = %v, want a finite value > 0 (1: the noise as calibrated)", o.SigmaScale)
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
		switch {
		case alg.AdaptiveSchedule:
			pair = PairSchedule
		case !cs.Lazy:
			pair = PairReward
		default:
			pair = PairAction
		}
	}
	runT := cs.T
	s = cs
	s.M, s.T = 1, s.B
	switch pair {
	case PairReward:
		pairs, doc := auditPairs(s, cal, pair, 1)
		return auditTree(ctx, s, cal, o, pair, 1, runT, pairs, doc)
	case PairAction:
		levels := min(auditMaxLevels, cal.Kappa)
		s.T = s.B << (levels - 1)
		pairs, doc := auditPairs(s, cal, pair, levels)
		return auditTree(ctx, s, cal, o, pair, levels, runT, pairs, doc)
	case PairSchedule:
		s.T = 2 * s.B
		return auditSchedule(ctx, s, cal, o)
	}
	return nil, fmt.Errorf("audit: pair %q: want %s, %s or %s", pair, PairAction, PairReward, PairSchedule)
}

// trialSeed is the spec seed of trial n under dataset j: independent
// across trials, datasets and configurations.
func trialSeed(o AuditOptions, n, j int) uint64 {
	return rng.New(rng.NewKey("fedbandit/audit", o.Seed), "config", o.Config, "trial", n, "dataset", j).Uint64()
}

// scaledNoise is the production noise factory of the run with the given
// seed, its standard deviations multiplied by scale, on the discrete
// noise's grid gamma (0: the floating-point Gaussian); nil (the
// production factory itself) when scale is 1.
func scaledNoise(seed uint64, scale, gamma float64) noiseFactory {
	if scale == 1 {
		return nil
	}
	nf := productionNoise(RunKey(seed), gamma)
	return func(i int, stream string, std []float64) tree.Noise {
		return nf(i, stream, scaledStd(std, scale))
	}
}

// auditPair is the instance of one neighbouring dataset: the documents
// of later rounds and their means, and the first round's.
type auditPair struct {
	docs, firstDocs, first, later []float64
}

// auditPairs returns the two datasets of the reward or action pair and
// their description.
func auditPairs(s Spec, cal *accountant.Calibration, kind string, levels int) (pairs [2]auditPair, doc string) {
	switch kind {
	case PairReward:
		// The two documents: a = e1 and b = c e2, listed b first, with c
		// such that, for the eager learner after the first user took a,
		// b's UCB width exceeds a's by eps, 0 < beta_2 eps < 1/(Lambda+1):
		// the second user takes a if the first user's reward was 1 and b
		// if it was 0, whatever the calibration. Under the lazy learner
		// every user of the batch takes a.
		lam, beta2 := cal.Lambda, cal.Beta(2)
		eps := 1 / (2 * beta2 * (lam + 1))
		c := math.Sqrt(lam) * (1/math.Sqrt(lam+1) + eps)
		docs := []float64{0, c, 1, 0}
		later := []float64{0.3, 0.9}
		pairs[0] = auditPair{docs: docs, first: []float64{0, 0}, later: later}
		pairs[1] = auditPair{docs: docs, first: []float64{1, 1}, later: later}
		doc = fmt.Sprintf("first user's rewards 1 vs 0; documents c e2 (c = %.6g) and e1, later means 0.3 and 0.9", c)
	case PairAction:
		e2 := []float64{0, 1, 0, 1}
		mid := []float64{0.5, 0.5}
		other, what := []float64{0, 0, 0, 0}, "absent (x = 0)"
		if s.Relation == accountant.ReplaceOne {
			x, y := -0.5, math.Sqrt(3)/2
			other, what = []float64{x, y, x, y}, "x = (-1/2, sqrt(3)/2), y = 1"
		}
		pairs[0] = auditPair{docs: e2, firstDocs: other, first: []float64{1, 1}, later: mid}
		pairs[1] = auditPair{docs: e2, firstDocs: []float64{1, 0, 1, 0}, first: []float64{1, 1}, later: mid}
		doc = fmt.Sprintf("first user x = e1, y = 1 vs %s; later users x = e2, mean 0.5; nodes of levels 0..%d", what, levels-1)
	}

	return pairs, doc
}

// auditTree audits what the run publishes at batches 1, 2, ..., 2^(levels-1)
// (the tree nodes containing the first user) under the two datasets of
// pairs (kind and doc describe them). It also counts the levels a run of
// the spec's horizon runT releases (one noiseless run of one silo) against
// the accountant's count.
func auditTree(ctx context.Context, s Spec, cal *accountant.Calibration, o AuditOptions, kind string, levels, runT int, pairs [2]auditPair, doc string) (*AuditResult, error) {
	const d = 2
	gamma, err := noiseGrid(s, cal)
	if err != nil {
		return nil, err
	}
	gstd, err := tree.GramStd(d, cal.Sigma, s.GramNoise)
	if err != nil {
		return nil, err
	}
	vec := s.binomialNoise()
	if vec && o.SigmaScale != 1 {
		return nil, fmt.Errorf("audit: --sigma-scale scales Gaussian noise; %s's is binomial", s.Algorithm)
	}
	// The claimed standard deviation of every released entry: the Gram
	// convention's and sigma, or P_Vec's decoded binomial noise per level.
	var std []float64
	for l := 0; l < levels; l++ {
		if vec {
			req := cal.Request
			req.M, req.B, req.D = s.M, s.B, d
			nd := accountant.VecSumParams(req, cal.Sigma, (1<<l)*s.B*s.M)
			sd := math.Sqrt(float64(nd.N)*float64(nd.Draws)*accountant.VecSumP*(1-accountant.VecSumP)) / nd.G
			for range tree.PackedLen(d) + d {
				std = append(std, sd)
			}
			continue
		}
		std = append(std, gstd...)
		for range d {
			std = append(std, cal.Sigma)
		}
	}

	// release plays dataset j with spec seed seed and noise factory nf
	// (nil: production) and returns the published sums at batches
	// 1, 2, ..., 2^(levels-1), each entry divided by std.
	release := func(j int, seed uint64, nf noiseFactory, alg string) ([]float64, error) {
		rs := s
		rs.Seed, rs.Algorithm = seed, alg
		var z []float64
		h := hooks{noise: nf, published: func(k int, w, u []float64) {
			if k&(k-1) == 0 && len(z) < len(std) {
				z = append(append(z, w...), u...)
			}
		}}
		sm, err := newSim(rs, cal, h)
		if err != nil {
			return nil, err
		}
		in := newAuditInstance(pairs[j].docs, pairs[j].first, pairs[j].later)
		in.firstDocs = pairs[j].firstDocs
		sm.inst = in
		sm.noiseStd, sm.bernoulli = in.noiseStd(), in.bernoulli() // noiseless rewards
		for t := 1; t <= rs.T; t++ {
			sm.round(t)
		}
		if len(z) != len(std) {
			return nil, fmt.Errorf("audit: %s published %d entries at batches 1..%d, want %d", s.Algorithm, len(z), 1<<(levels-1), len(std))
		}
		for e := range z {
			z[e] /= std[e]
		}
		return z, nil
	}
	// The tree nodes a run of the whole horizon releases that contain
	// its first batch, counted from what one noiseless run draws (a node
	// of level l drawn at batch k covers batches k-2^l+1..k, so it
	// contains batch 1 exactly when k = 2^l), not from the accountant's
	// Kappa, which the comparison checks (privacy-review-2, P5-13).
	// P_TVec draws no tree noise: there the released prefixes at batches
	// 1, 2, 4, ... of the synchronisations are counted.
	syncs := 0
	var recorders []*tree.Recorder
	{
		rs := s
		rs.T = runT
		sm, err := newSim(rs, cal, hooks{noise: func(i int, _ string, _ []float64) tree.Noise {
			r := &tree.Recorder{}
			if i == 0 {
				recorders = append(recorders, r)
			}
			return r
		},
			published: func(int, []float64, []float64) { syncs++ }})
		if err != nil {
			return nil, err
		}
		in := newAuditInstance(pairs[1].docs, pairs[1].first, pairs[1].later)
		sm.inst = in
		sm.noiseStd, sm.bernoulli = in.noiseStd(), in.bernoulli()
		for t := 1; t <= runT; t++ {
			sm.round(t)
		}
	}
	// The noiseless releases: the Gaussian protocols with zero noise;
	// P_TVec's exact sums, from LDP-FedLinUCB with its noise off at the
	// same calibration (protocol P publishes the same nodes).
	zero := func(int, string, []float64) tree.Noise { return &tree.Recorder{} }
	exactAlg := s.Algorithm
	if vec {
		exactAlg = AlgLDP
	}
	var ref [2][]float64
	for j := range ref {
		if ref[j], err = release(j, 0, zero, exactAlg); err != nil {
			return nil, err
		}
	}
	dir := make([]float64, len(std))
	var exact float64
	for e := range dir {
		dir[e] = ref[1][e] - ref[0][e]
		exact += float64(dir[e] * dir[e])
	}
	exact = math.Sqrt(exact)
	if !(exact > 0) || math.IsInf(exact, 0) {
		return nil, fmt.Errorf("%w: the two datasets' noiseless releases are %v apart (whitened): the audit measures nothing (%s)", ErrDegenerate, exact, doc)
	}
	for e := range dir {
		dir[e] /= exact
	}
	proj := func(z []float64) float64 {
		var p float64
		for e := range z {
			p += float64(z[e] * dir[e])
		}
		return p
	}
	p0 := proj(ref[0])
	a, b := make([]float64, o.Trials), make([]float64, o.Trials)
	resid := make([][]float64, 0, 2*o.Trials) // whitened noise of every release
	for n := 0; n < o.Trials; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for j, out := range [][]float64{a, b} {
			seed := trialSeed(o, n, j)
			z, err := release(j, seed, scaledNoise(seed, o.SigmaScale, gamma), s.Algorithm)
			if err != nil {
				return nil, err
			}
			out[n] = proj(z) - p0
			for e := range z {
				z[e] -= ref[j][e]
			}
			resid = append(resid, z)
		}
		if o.Progress != nil {
			o.Progress()
		}
	}
	res := &AuditResult{Spec: s, Kind: kind, Trials: o.Trials, Alpha: o.Alpha, Levels: levels, Kappa: cal.Kappa,
		RunLevels: firstBatchNodes(recorders, syncs), ExactMu: exact,
		Released0: a, Released1: b, P0: math.NaN(), P1: math.NaN(), Pair: doc}
	if res.ClaimMu, res.ClaimEps, err = auditClaim(s, cal, levels); err != nil {
		return nil, err
	}
	ma, mb := mean(a), mean(b)
	n := float64(o.Trials)
	var ss float64
	for i := range a {
		ss += float64((a[i]-ma)*(a[i]-ma)) + float64((b[i]-mb)*(b[i]-mb))
	}
	df := 2*n - 2
	res.SD = math.Sqrt(ss / df)
	a5 := o.Alpha / 5
	res.SDLo, res.SDHi = sdInterval(ss, df, a5)
	res.Mu = (mb - ma) / res.SD
	se := math.Sqrt(2 / n) // of (mb - ma)/sd, for unit-variance samples
	z := distuv.UnitNormal.Quantile(1 - a5)
	res.MuLo, res.MuHi = res.Mu-float64(z*se), res.Mu+float64(z*se)
	res.EpsLo = thresholdEpsLo(a, b, s.Delta, a5)
	for _, v := range []float64{res.Mu, res.MuLo, res.MuHi, res.SD, res.SDLo, res.SDHi, res.EpsLo, res.ClaimMu, res.ClaimEps} {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("%w: a statistic is NaN (mu %v [%v, %v], sd %v [%v, %v], eps lower bound %v, claim mu %v eps %v)",
				ErrDegenerate, res.Mu, res.MuLo, res.MuHi, res.SD, res.SDLo, res.SDHi, res.EpsLo, res.ClaimMu, res.ClaimEps)
		}
	}
	res.Ceiling = accountant.DistinguishableMu(o.Trials, a5)
	if !(res.ClaimMu < res.Ceiling) {
		res.TrialsNeeded = accountant.TrialsToDistinguish(res.ClaimMu, a5)
	}
	res.Verdict = treeVerdict(res, resid, d, a5)
	return res, nil
}

// firstBatchNodes counts the released nodes that contain the first
// batch: the most, over one silo's trees, of the draws at batch k = 2^l of
// level l; without tree draws, the powers of two up to syncs (the
// prefixes a run of syncs synchronisations releases that contain it).
func firstBatchNodes(recorders []*tree.Recorder, syncs int) int {
	most, drew := 0, false
	for _, r := range recorders {
		n := 0
		for _, d := range r.Draws {
			drew = true
			if d.K == 1<<d.Level {
				n++
			}
		}
		most = max(most, n)
	}
	if drew {
		return most
	}
	for k := 1; k <= syncs; k *= 2 {
		most++
	}
	return most
}

// auditClaim is the Gaussian-DP mu (and its eps at the spec's delta) that
// a run of s claims for the release of its first user's nodes at the given
// number of levels (see AuditResult.ClaimMu).
func auditClaim(s Spec, cal *accountant.Calibration, levels int) (mu, eps float64, err error) {
	if s.model() == accountant.ModelSDPAmp {
		mu, err = accountant.TreeMu(cal.Sigma, levels, s.Relation)
	} else {
		// The run's guarantee: the target it is calibrated to, or under
		// reference-code (whose formula does not deliver its target) what
		// it records.
		target := s.Eps
		if s.Preset == accountant.PresetReferenceCode {
			target = cal.DeliveredEps
		}
		if math.IsInf(target, 1) {
			return math.Inf(1), math.Inf(1), nil
		}
		var runMu float64
		if runMu, err = accountant.GDPMu(target, s.Delta); err != nil {
			return 0, 0, fmt.Errorf("audit: claim: %w", err)
		}
		mu = runMu * math.Sqrt(float64(levels)/float64(cal.Kappa))
		if mutation.On("P5-15") { // the claim not restricted to the audited levels
			mu = runMu
		}
	}
	if err != nil {
		return 0, 0, fmt.Errorf("audit: claim: %w", err)
	}
	eps, err = accountant.GDPEps(mu, s.Delta)
	if err != nil {
		return 0, 0, fmt.Errorf("audit: claim: %w", err)
	}
	return mu, eps, nil
}

// sdInterval is the (1-alpha) chi-square confidence interval of a standard
// deviation from a sum of squares ss with df degrees of freedom.
func sdInterval(ss, df, alpha float64) (lo, hi float64) {
	chi := distuv.ChiSquared{K: df}
	return math.Sqrt(ss / chi.Quantile(1-float64(alpha/2))), math.Sqrt(ss / chi.Quantile(alpha/2))
}

// treeVerdict decides an audit of tree releases: violation first (the
// pair's exact mu, the empirical mu's lower bound, the eps lower bound),
// then the noise's scale (the projection, then each coordinate alone at
// level alpha/coordinates), then the independence of the coordinates'
// noises (every pair, at level alpha/pairs). resid holds each release's
// whitened noise: nodes of packed Gram then bias (dimension d).
func treeVerdict(r *AuditResult, resid [][]float64, d int, alpha float64) string {
	const slack = 1 + 1e-9 // the claim's own rounding
	switch {
	case r.RunLevels > r.Kappa:
		return fmt.Sprintf("VIOLATION: a run releases %d tree nodes containing a user; its accountant composes %d", r.RunLevels, r.Kappa)
	case r.ExactMu > r.ClaimMu*slack:
		return fmt.Sprintf("VIOLATION: the pair's exact mu %.3g at the calibrated noise exceeds the claimed %.3g", r.ExactMu, r.ClaimMu)
	case r.MuLo > r.ClaimMu:
		return fmt.Sprintf("VIOLATION: empirical mu >= %.3g (lower confidence bound) exceeds the claimed %.3g", r.MuLo, r.ClaimMu)
	case r.EpsLo > r.ClaimEps:
		return fmt.Sprintf("VIOLATION: eps >= %.3g (lower confidence bound) exceeds the claimed %.3g", r.EpsLo, r.ClaimEps)
	case r.SDLo > 1 || r.SDHi < 1:
		return fmt.Sprintf("NOISE SCALE: the released noise has %.3g times the claimed standard deviation (interval %.3g-%.3g)", r.SD, r.SDLo, r.SDHi)
	}
	per := tree.PackedLen(d) + d
	name := func(e int) string {
		l, k := e/per, e%per
		if k < tree.PackedLen(d) {
			return fmt.Sprintf("level %d Gram entry %d", l, k)
		}
		return fmt.Sprintf("level %d bias entry %d", l, k-tree.PackedLen(d))
	}
	n, dim := len(resid), len(resid[0])
	ss := make([]float64, dim)
	for _, z := range resid {
		for e, v := range z {
			ss[e] += float64(v * v)
		}
	}
	for e := range ss {
		// The noise has mean zero: n degrees of freedom.
		lo, hi := sdInterval(ss[e], float64(n), alpha/float64(dim))
		if lo > 1 || hi < 1 {
			return fmt.Sprintf("NOISE SCALE: %s has %.3g times the claimed standard deviation (interval %.3g-%.3g)", name(e), math.Sqrt(ss[e]/float64(n)), lo, hi)
		}
	}
	pairs := dim * (dim - 1) / 2
	zc := distuv.UnitNormal.Quantile(1 - alpha/float64(2*pairs))
	for e := 0; e < dim; e++ {
		for f := e + 1; f < dim; f++ {
			var c float64
			for _, z := range resid {
				c += float64(z[e] * z[f])
			}
			rho := c / math.Sqrt(ss[e]*ss[f])
			if math.Abs(rho)*math.Sqrt(float64(n)) > zc {
				return fmt.Sprintf("DEPENDENCE: the noises of %s and %s are correlated (r = %.3g, beyond %.3g)", name(e), name(f), rho, zc/math.Sqrt(float64(n)))
			}
		}
	}
	if !(r.ClaimMu < r.Ceiling) {
		return fmt.Sprintf("inconclusive: the claimed mu %.4g is at or above %.4g, the largest mu %d trials per dataset can distinguish at level 1 - %.3g; %s",
			r.ClaimMu, r.Ceiling, r.Trials, alpha, trialsNeeded(r.TrialsNeeded))
	}
	return VerdictPass
}

// trialsNeeded says how many trials would settle an inconclusive audit.
func trialsNeeded(n float64) string {
	if math.IsInf(n, 1) {
		return "no number of trials can refute it (the claim is not finite)"
	}
	return fmt.Sprintf("%.0f trials per dataset (--trials) would settle it", n)
}

// auditSchedule is Audit under PairSchedule: the release is the round of
// the first synchronisation. The empirical eps is a lower confidence bound (level 1 - Alpha) from
// the event "the first synchronisation is at round 1" (Clopper-Pearson,
// both directions, Bonferroni): when the schedule depends on the first
// user's norm, the event has probability 1 under one dataset and 0 under
// the other, and the bound grows as ln(trials) without limit.
func auditSchedule(ctx context.Context, s Spec, cal *accountant.Calibration, o AuditOptions) (*AuditResult, error) {
	gamma, err := noiseGrid(s, cal)
	if err != nil {
		return nil, err
	}
	// FedUCB fires at t = 1 iff ln(1 + ||x_1||^2/Lambda) > D. The pair's
	// norms 1 and 1/2 straddle the boundary ||x||^2 = Lambda expm1(D) when
	// it lies in (1/4, 1); otherwise the audit sets D to put it at 1/2.
	note := ""
	if a, _ := LookupAlgorithm(s.Algorithm); a.AdaptiveSchedule {
		if b := cal.Lambda * fmath.Expm1(s.Params["sync_threshold"]); !(b > 0.25 && b < 1) {
			s.Params = map[string]float64{"sync_threshold": fmath.Log1p(0.5 / cal.Lambda)}
			note = fmt.Sprintf("; sync threshold D = %.6g (boundary ||x_1||^2 = 1/2)", s.Params["sync_threshold"])
		}
	}
	release := func(scale float64, n int) (float64, error) {
		j := 0
		if scale == 1 {
			j = 1
		}
		rs := s
		rs.Seed = trialSeed(o, n, j)
		h := hooks{noise: scaledNoise(rs.Seed, o.SigmaScale, gamma)}
		first := 0
		var sm *sim
		h.sent = func(k, i int, stream string, _ []float64) {
			if first == 0 {
				first = sm.t
			}
		}
		sm, err := newSim(rs, cal, h)
		if err != nil {
			return 0, err
		}
		in := newAuditInstance([]float64{1, 0, 0, 1}, []float64{0.5, 0.5}, []float64{0.5, 0.5})
		in.firstDocs = []float64{scale, 0, 0, scale}
		sm.inst = in
		sm.noiseStd, sm.bernoulli = in.noiseStd(), in.bernoulli()
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
	res.Alpha, res.Kappa = o.Alpha, cal.Kappa
	res.EpsLo = math.Max(eventEpsLo(k1, k0, o.Trials, s.Delta, o.Alpha), eventEpsLo(k0, k1, o.Trials, s.Delta, o.Alpha))
	res.Ceiling = eventEpsLo(o.Trials, 0, o.Trials, s.Delta, o.Alpha)
	switch {
	case res.EpsLo > res.ClaimEps:
		res.Verdict = fmt.Sprintf("VIOLATION: the first synchronisation is at round 1 in %d/%d trials under norm 1 and %d/%d under norm 1/2: eps >= %.3g (lower confidence bound), above the claimed %.3g",
			k1, o.Trials, k0, o.Trials, res.EpsLo, res.ClaimEps)
	case !(res.ClaimEps < res.Ceiling):
		res.TrialsNeeded = eventTrialsNeeded(res.ClaimEps, s.Delta, o.Alpha)
		res.Verdict = fmt.Sprintf("inconclusive: the claimed eps %.4g is at or above %.4g, the largest lower bound %d trials per dataset can give at level 1 - %.3g; %s",
			res.ClaimEps, res.Ceiling, o.Trials, o.Alpha, trialsNeeded(res.TrialsNeeded))
	default:
		res.Verdict = VerdictPass
	}
	return res, nil
}

// eventTrialsNeeded is the fewest trials n whose eventEpsLo ceiling (the
// event seen n of n times under one dataset, never under the other)
// exceeds eps, or +Inf beyond 2^40 trials.
func eventTrialsNeeded(eps, delta, level float64) float64 {
	ceil := func(n int) float64 { return eventEpsLo(n, 0, n, delta, level) }
	hi := 1
	for !(ceil(hi) > eps) {
		if hi > 1<<40 {
			return math.Inf(1)
		}
		hi *= 2
	}
	lo := hi / 2 // ceil(lo) <= eps (or lo = 0)
	for hi-lo > 1 {
		if mid := lo + (hi-lo)/2; ceil(mid) > eps {
			hi = mid
		} else {
			lo = mid
		}
	}
	return float64(hi)
}

// eventEpsLo is a lower confidence bound (level 1 - level) on eps at
// delta from an event seen k of n times under one dataset and j of n under
// the other: log((P_lo - delta) / Q_hi) with Clopper-Pearson bounds at
// level/4 each (two bounds, and two directions are tried).
func eventEpsLo(k, j, n int, delta, level float64) float64 {
	alpha := level / 4
	plo := 1 - cpUpper(n-k, n, alpha)
	qhi := cpUpper(j, n, alpha)
	if num := plo - delta; num > 0 && qhi > 0 {
		return math.Max(0, fmath.Log(num/qhi))
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
	p := panel{x: make([]float64, vec.PanelLen(2, 2)), n: 2}
	vec.ToPanel(p.x, docs, 2, 2)
	in.set = actionSet{panels: []panel{p}, mu: make([]float64, vec.PanelLen(2, 1)), n: 2}
	return in
}

func (in *auditInstance) next(int) *actionSet {
	in.calls++
	switch {
	case in.calls == 1 && in.firstDocs != nil:
		vec.ToPanel(in.set.panels[0].x, in.firstDocs, 2, 2)
	case in.calls == 2 && in.firstDocs != nil:
		vec.ToPanel(in.set.panels[0].x, in.docs, 2, 2)
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

// thresholdEpsLo is the largest lower bound (level 1 - level) on eps at
// delta over threshold tests "b-side if the projection exceeds tau": with
// Clopper-Pearson upper bounds FPR_u on P(a > tau) and FNR_u on
// P(b <= tau), eps >= log((1 - delta - FNR_u) / FPR_u) (the thresholds are
// the sample quantiles of a; a Bonferroni split over them keeps the level).
func thresholdEpsLo(a, b []float64, delta, level float64) float64 {
	sa := append([]float64(nil), a...)
	sort.Float64s(sa)
	n := len(sa)
	qs := []float64{0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995}
	alpha := level / float64(2*len(qs))
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
			best = math.Max(best, fmath.Log(num/fpu))
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
	return distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - float64(alpha))
}
