package mab

import (
	"fmt"
	"maps"
	"math"
	"sort"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/fmath"
	"github.com/fedbandit/fedbandit/internal/mutation"
	"github.com/fedbandit/fedbandit/internal/rng"
	"gonum.org/v1/gonum/stat/distuv"
)

// AuditSpec is one audit of a batch release as the protocol makes it:
// a batch of N users on each of Slots active arms, every reward 0 except
// one user's on the last slot (never the first), 0 in D and 1 in D', each
// released Trials times through the protocol's real encode-noise-modular
// sum-decode path, in every mode the entry offers (aggregate and per-user).
type AuditSpec struct {
	Algorithm string
	Eps       float64
	// Delta is the delta of the (eps, delta) claim audited, in (0, 1) for
	// the Renyi and concentrated entries; the pure entries are audited at
	// delta 0 (their claim), and take 0 or a delta in (0, 1), ignored.
	Delta  float64
	Params map[string]float64
	N      int // users per arm in the audited batch: one of the run's batch sizes
	T      int // horizon of the run whose claim is audited (0: N, so that the batch is its last)
	Slots  int // active arms in the batch, at least 2 (0: 2)
	Trials int
	Seed   uint64
	Alpha  float64 // false-alarm rate of the audit (Clopper-Pearson, Bonferroni over releases, modes and thresholds)

	// NoiseDivisor, when above 1, divides the noise's scale of the
	// released batches: the mutation control a correct audit must catch
	// (`run audit --sigma-scale 1/k`). 0 and 1 leave the noise as calibrated.
	NoiseDivisor uint64
	// noiseBoost, with NoiseDivisor, sets a fractional scale
	// noiseBoost/NoiseDivisor (the power table's 0.9, 0.8, ...; tests only).
	noiseBoost uint64
}

// MinAuditTrials is the fewest trials Audit takes (`run audit --trials`
// states it).
const MinAuditTrials = 100

// Audit verdicts.
const (
	VerdictPass         = "pass"
	VerdictViolation    = "VIOLATION"
	VerdictInconclusive = "inconclusive" // the claim is above the largest bound the trials can reach
)

// AuditRelease is one audited release: which view, in which mode, and the
// lower bound it gave.
type AuditRelease struct {
	Name      string // e.g. "slot 1 (aggregate)", "slot 1 - slot 0 (per-user)", "message (local)"
	LowerEps  float64
	Threshold float64
}

// AuditResult is an audit's verdict.
type AuditResult struct {
	Claimed   float64 // eps the run's accountant records for this batch at Delta (the pure entries: at 0)
	Delta     float64
	Certified bool    // whether the run's claim is certified (an uncertified mode is audited against its exact-arithmetic bound)
	NoiseEps  float64 // the parameter the noise is drawn at (the calibrated one for the Renyi and concentrated entries)
	LowerEps  float64 // the largest lower bound over the releases, at confidence 1 - Alpha
	Release   string  // the release that gave LowerEps
	Threshold float64 // the output threshold that gave LowerEps
	// Ceiling is the largest lower bound these trials can ever give (every
	// D' release above a threshold no D release reaches); a claim at or
	// above it cannot be refuted, and the verdict is inconclusive.
	Ceiling float64
	// TrialsNeeded is, when inconclusive, the fewest trials whose ceiling
	// exceeds the claim (a necessary condition for power, not a sufficient one).
	TrialsNeeded int
	Releases     []AuditRelease
	Verdict      string
	Pass         bool // Verdict == VerdictPass
}

// Audit estimates, with one-sided confidence 1 - Alpha, a lower bound on
// the privacy loss of one batch release and compares it with the claim
// the run's accountant records for that batch (the ledger the run is
// built with, not a recomputation). For every release (the varying slot's
// sum; its difference with slot 0, a view of the joint release that shared
// noise leaves noiseless; for local noise, the varying user's own message
// at the batch's precision g) in every mode, and every threshold c among
// the quantiles of the outputs, the events {out >= c} and {out <= c} bound
// eps from below by ln((P_hi - delta)/P_lo), with P_hi a Clopper-Pearson
// lower bound under the dataset that makes the event likelier and P_lo an
// upper bound under the other. The verdict is VIOLATION when a bound
// exceeds the claim, inconclusive when the claim is at or above the
// largest bound the trials can reach, pass otherwise.
func Audit(spec AuditSpec) (AuditResult, error) {
	alg, ok := Lookup(spec.Algorithm)
	if !ok || alg.Trust == core.TrustNone {
		return AuditResult{}, fmt.Errorf("algorithm = %q: not a private entry of the mab family", spec.Algorithm)
	}
	if spec.Slots == 0 {
		spec.Slots = 2
	}
	if spec.T == 0 {
		spec.T = spec.N
	}
	if spec.N < 1 || spec.T < spec.N || spec.Slots < 2 || spec.Trials < MinAuditTrials || !(spec.Alpha > 0 && spec.Alpha < 1) {
		return AuditResult{}, fmt.Errorf("audit: need N >= 1, T >= N, Slots >= 2, Trials >= %d and Alpha in (0, 1)", MinAuditTrials)
	}
	if alg.Model == "pure" {
		if !(spec.Delta == 0 || spec.Delta > 0 && spec.Delta < 1) {
			return AuditResult{}, fmt.Errorf("delta = %v: want 0 or a delta in (0, 1) (a pure entry is audited at delta 0)", spec.Delta)
		}
	} else if !(spec.Delta > 0 && spec.Delta < 1) {
		return AuditResult{}, fmt.Errorf("delta = %v: %s's claim is stated at a delta in (0, 1)", spec.Delta, alg.Name)
	}
	params, err := core.Resolve(alg.Params, spec.Params)
	if err != nil {
		return AuditResult{}, err
	}
	if alg.Policy != nil {
		return auditPolicy(spec, alg)
	}
	if params["reference_code"] == 1 {
		return AuditResult{}, fmt.Errorf("reference_code = 1: never certified, nothing to audit")
	}
	hasPerUser := false
	for _, p := range alg.Params {
		hasPerUser = hasPerUser || p.Key == "per_user"
	}
	// Every release is drawn from the protocol of a run that New builds
	// (New: its ledger calibrated, its protocol wired to the ledger's
	// noise parameter), on an instance of Slots arms, one run per mode
	// and dataset, so that a fault in the calibration, the wiring or the
	// randomiser is what the audit measures.
	newRun := func(mode float64, d int) (*Run, core.Privacy, error) {
		mp := maps.Clone(spec.Params)
		if hasPerUser {
			if mp == nil {
				mp = map[string]float64{}
			}
			mp["per_user"] = mode
		}
		// The means play no part in the audit's batch (it feeds the
		// rewards itself); they only set the run's K.
		means := make([]float64, spec.Slots)
		for i := range means {
			means[i] = float64(i+1) / float64(spec.Slots+1)
		}
		seed := rng.New(rng.Derive(rng.NewKey("mab-audit", spec.Seed), "dataset", uint64(d), "per_user", uint64(mode)), "seed").Uint64()
		p, claim, err := New(Spec{Algorithm: alg.Name, Eps: spec.Eps, Delta: spec.Delta, T: spec.T, Seed: seed, Params: mp,
			Instance: Instance{Means: means, NoiseSD: 0.1, Reward: RewardGaussianClipped}})
		if err != nil {
			return nil, claim, err
		}
		r, ok := p.(*Run)
		if !ok {
			return nil, claim, fmt.Errorf("algorithm = %q: not batched successive elimination, no batch to audit", alg.Name)
		}
		return r, claim, nil
	}
	base, claim, err := newRun(params["per_user"], 0)
	if err != nil {
		return AuditResult{}, err
	}
	l := base.ledger
	bc, ok := l.at(int64(spec.N))
	if !ok {
		var ns []int64
		for _, b := range l.batches {
			ns = append(ns, b.n)
		}
		return AuditResult{}, fmt.Errorf("N = %d: not a batch of the run (T = %d): its batches have %v users per arm", spec.N, spec.T, ns)
	}
	res := AuditResult{Claimed: bc.eps, NoiseEps: l.noiseEps, Certified: claim.Certified}
	if alg.Model != "pure" {
		res.Delta = spec.Delta
	}
	modes := []float64{params["per_user"]}
	if hasPerUser && !mutation.On("P5-07") { // the per-user mode not audited
		modes = []float64{0, 1}
	}
	var rels []*release
	j := spec.Slots - 1       // the varying user's slot: not the first
	if mutation.On("P5-06") { // the varying user on slot 0
		j = 0
	}
	for _, mode := range modes {
		mname := "aggregate"
		if mode == 1 || alg.Noise.Placement == PlaceLocal || alg.Noise.Kind == NoiseDGauss {
			mname = "per-user"
		}
		if alg.Noise.Placement == PlaceCentral {
			mname = "central"
		}
		own := &release{name: fmt.Sprintf("slot %d (%s)", j, mname)}
		diff := &release{name: fmt.Sprintf("slot %d - slot 0 (%s)", j, mname)}
		rs := []*release{own, diff}
		var msg *release
		if alg.Noise.Placement == PlaceLocal {
			msg = &release{name: fmt.Sprintf("the varying user's message at g = ceil(eps sqrt %d) (local)", spec.N)}
			rs = append(rs, msg)
		}
		rels = append(rels, rs...)
		for d := range 2 {
			run, c, err := newRun(mode, d)
			if err != nil {
				return AuditResult{}, err
			}
			res.Certified = res.Certified && c.Certified
			proto := run.proto
			if spec.NoiseDivisor > 1 { // the mutation control: reach the noise scale
				switch p := proto.(type) {
				case *secagg:
					p.weaken, p.boost = spec.NoiseDivisor, spec.noiseBoost
				case *centralLaplace:
					p.weaken, p.boost = spec.NoiseDivisor, spec.noiseBoost
				}
			}
			for _, r := range rs {
				r.outs[d] = make([]float64, spec.Trials)
			}
			for t := range spec.Trials {
				proto.start(1, spec.N, spec.Slots)
				for i := range spec.Slots {
					for u := range spec.N {
						x := 0.0
						if i == j && u == 0 && d == 1 {
							x = 1
						}
						proto.add(i, x)
					}
				}
				if msg != nil {
					x := float64(d)
					msg.outs[d][t] = float64(proto.(*secagg).message(x))
				}
				s0 := proto.sum(0)
				var sj float64
				for i := 1; i < spec.Slots; i++ {
					if v := proto.sum(i); i == j {
						sj = v
					}
				}
				own.outs[d][t], diff.outs[d][t] = sj, sj-s0
			}
		}
	}
	res.decide(rels, spec.Trials, spec.Alpha)
	return res, nil
}

// release is one audited release: its name and its outputs under D
// (reward 0) and D' (reward 1).
type release struct {
	name string
	outs [2][]float64
}

// decide bounds eps from below over the releases (Bonferroni over them,
// their thresholds and events) and states the verdict against
// res.Claimed at res.Delta.
func (res *AuditResult) decide(rels []*release, trials int, alpha float64) {
	const nq = 64
	tests := 4 * nq * len(rels) // two events, two bounds each, per threshold and release
	a := alpha / float64(tests)
	res.Ceiling = ceiling(trials, a, res.Delta)
	if mutation.On("P5-05") { // the ceiling at the unsplit alpha
		res.Ceiling = ceiling(trials, alpha, res.Delta)
	}
	res.LowerEps = math.Inf(-1)
	for _, r := range rels {
		lo, c := lowerEps(r.outs, trials, a, res.Delta, nq)
		res.Releases = append(res.Releases, AuditRelease{Name: r.name, LowerEps: lo, Threshold: c})
		if lo > res.LowerEps {
			res.LowerEps, res.Release, res.Threshold = lo, r.name, c
		}
	}
	switch {
	case res.LowerEps > res.Claimed:
		res.Verdict = VerdictViolation
	case !(res.Claimed < res.Ceiling):
		res.Verdict = VerdictInconclusive
		res.TrialsNeeded = trialsNeeded(res.Claimed, a, res.Delta)
	default:
		res.Verdict = VerdictPass
	}
	res.Pass = res.Verdict == VerdictPass
}

// lowerEps is the largest lower bound on eps over the threshold events of
// one release's outputs under D (outs[0]) and D' (outs[1]).
func lowerEps(outs [2][]float64, trials int, a, delta float64, nq int) (float64, float64) {
	sort.Float64s(outs[0])
	sort.Float64s(outs[1])
	pooled := append(append([]float64(nil), outs[0]...), outs[1]...)
	sort.Float64s(pooled)
	best, at := math.Inf(-1), math.NaN()
	for q := 1; q < nq; q++ {
		c := pooled[q*len(pooled)/nq]
		// {out >= c} is likelier under D' (reward 1), {out <= c} under D.
		for _, ge := range [2]bool{true, false} {
			var kh, kl int
			if ge {
				kh, kl = countGE(outs[1], c), countGE(outs[0], c)
			} else {
				kh, kl = countLE(outs[0], c), countLE(outs[1], c)
			}
			ph := cpLower(kh, trials, a)
			pl := cpUpper(kl, trials, a)
			e := fmath.Log((ph - delta) / pl)
			if mutation.On("P5-25") { // delta left out of the bound
				e = fmath.Log(ph / pl)
			}
			if ph > delta && e > best {
				best, at = e, c
			}
		}
	}
	return best, at
}

// ceiling is the largest lower bound an audit of n trials per dataset at
// level a can give: every D' release in the event, no D release:
// ln((a^(1/n) - delta)/(1 - a^(1/n))).
func ceiling(n int, a, delta float64) float64 {
	// The Clopper-Pearson bounds at k = n and k = 0 in closed form
	// (cpLower(n, n, a) and cpUpper(0, n, a); exact where the Beta
	// quantile loses precision).
	r := fmath.Log(a) / float64(n)
	hi, lo := fmath.Exp(r), -fmath.Expm1(r)
	if !(hi > delta) {
		return math.Inf(-1)
	}
	return fmath.Log((hi - delta) / lo)
}

// trialsNeeded is the fewest trials whose ceiling exceeds claim (capped
// at 2^40).
func trialsNeeded(claim, a, delta float64) int {
	lo, hi := 100, 200
	for !(ceiling(hi, a, delta) > claim) {
		if hi >= 1<<40 {
			return hi
		}
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if ceiling(mid, a, delta) > claim {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

func countGE(sorted []float64, c float64) int {
	return len(sorted) - sort.SearchFloat64s(sorted, c)
}

func countLE(sorted []float64, c float64) int {
	return sort.Search(len(sorted), func(i int) bool { return sorted[i] > c })
}

// cpLower and cpUpper are one-sided Clopper-Pearson bounds at level a.
func cpLower(k, n int, a float64) float64 {
	if k == 0 {
		return 0
	}
	if k == n { // closed form: gonum's Beta quantile loses it at large n and tiny a
		return fmath.Exp(fmath.Log(a) / float64(n))
	}
	return distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(a)
}

func cpUpper(k, n int, a float64) float64 {
	if k == n {
		return 1
	}
	if k == 0 { // closed form, as in cpLower
		return -fmath.Expm1(fmath.Log(a) / float64(n))
	}
	return distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - float64(a))
}
