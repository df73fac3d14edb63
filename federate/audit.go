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
}

// AuditResult is an empirical privacy audit of one silo's first release
// (privacy.md T8): the noisy level-1 tree node of both streams under two
// neighbouring datasets, drawn Trials times each through the real code
// path (action selection, clipping, the learner, the tree, the noise).
type AuditResult struct {
	Spec Spec // the audited spec (one silo, one batch)
	// Pair describes the neighbouring datasets.
	Pair string
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
	// ClaimEps is the eps the claimed mu gives at the spec's delta.
	ClaimEps float64
	// Verdict is "pass", or why not: the empirical mu exceeds the claim
	// (lower bound above it), or the noise's scale is not the claimed one
	// (the SD interval excludes 1).
	Verdict string
}

// Audit measures the privacy of one silo's first release of spec's
// algorithm empirically. The neighbouring datasets differ in one user:
// the first user's rewards are 1 for both of two documents in one, 0 in
// the other; later users' means are 0.3 and 0.9, and there is no reward
// noise. The documents are chosen from the calibration so that, under
// the eager learner, the second user's action follows the first user's
// reward. Under the lazy learner only that user's own summand
// differs; under the eager learner her reward changes the later users'
// actions (docs/privacy.md 2.1), which the audit detects as an empirical
// mu above the claim. The spec must be private; M, T, the instance and
// the algorithm's own noise are set by the audit (one silo, T = B, d = 2).
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
	s.M, s.T = 1, s.B
	s.Every, s.Calib = 0, nil
	s = s.WithDefaults()
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	if !s.Private() {
		return nil, errors.New("audit: the algorithm is not private: there is nothing to audit")
	}
	if a, _ := LookupAlgorithm(s.Algorithm); a.LocalNoise {
		return nil, fmt.Errorf("audit: %s noises each user's report, not a tree node: this audit measures tree releases", s.Algorithm)
	}
	cal, err := calibration(s)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	gstd, err := tree.GramStd(2, cal.Sigma, s.GramNoise)
	if err != nil {
		return nil, err
	}
	std := append(gstd, cal.Sigma, cal.Sigma)
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
		sm, err := newSim(s, cal, h)
		if err != nil {
			return nil, err
		}
		sm.inst = newAuditInstance(docs, []float64{first, first}, []float64{0.3, 0.9})
		for t := 1; t <= s.T; t++ {
			sm.round(t)
		}
		st := sm.protocol.(treeProtocol).trees()
		l := tree.Level(1)
		z := append(append([]float64(nil), st.gram[0].Node(l)...), st.bias[0].Node(l)...)
		for e := range z {
			z[e] /= std[e]
		}
		return z, nil
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
	}
	res := &AuditResult{Spec: s, Pair: fmt.Sprintf("first user's rewards 1 vs 0; documents c e2 (c = %.6g) and e1, later means 0.3 and 0.9", c), ExactMu: exact}
	// One node of both streams: the tree's mu with kappa = 1.
	res.ClaimMu, err = accountant.TreeMu(cal.Sigma, 1, s.Relation)
	if err != nil {
		return nil, err
	}
	if res.ClaimEps, err = accountant.GDPEps(res.ClaimMu, s.Delta); err != nil {
		return nil, err
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
	case res.MuLo > res.ClaimMu:
		res.Verdict = fmt.Sprintf("VIOLATION: empirical mu >= %.3g (99%% lower bound) exceeds the claimed %.3g", res.MuLo, res.ClaimMu)
	case res.SDLo > 1 || res.SDHi < 1:
		res.Verdict = fmt.Sprintf("NOISE SCALE: the released noise has %.3g times the claimed standard deviation (99%% interval %.3g-%.3g)", res.SD, res.SDLo, res.SDHi)
	default:
		res.Verdict = "pass"
	}
	return res, nil
}

// auditInstance is Audit's instance: the same two documents (rows of
// docs, d = 2) every round, with means first in round 1 and later after.
type auditInstance struct {
	set          actionSet
	first, later []float64
	calls        int
}

func newAuditInstance(docs, first, later []float64) *auditInstance {
	in := &auditInstance{first: first, later: later}
	p := panel{x: make([]float64, panelLen(2, 2)), n: 2}
	toPanel(p.x, docs, 2, 2)
	in.set = actionSet{panels: []panel{p}, mu: make([]float64, panelLen(2, 1)), n: 2}
	return in
}

func (in *auditInstance) next(int) *actionSet {
	in.calls++
	if in.calls == 1 {
		copy(in.set.mu, in.first)
	} else {
		copy(in.set.mu, in.later)
	}
	return &in.set
}

func (in *auditInstance) noiseStd() float64 { return 0 }

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
