package mab

import (
	"fmt"
	"math"
	"sort"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/fmath"
	"github.com/fedbandit/fedbandit/internal/rng"
	"gonum.org/v1/gonum/stat/distuv"
)

// AuditSpec is one audit of a batch release: the worst-case neighbouring
// pair of datasets, n users on one arm whose rewards are all 0 except one
// user's, 0 in D and 1 in D', each released Trials times through the
// protocol's real encode-noise-modular-sum-decode path.
type AuditSpec struct {
	Algorithm string
	Eps       float64
	Delta     float64 // the delta of the (eps, delta) claim audited (RDP and zCDP entries)
	Params    map[string]float64
	N         int // users in the batch
	Trials    int
	Seed      uint64
	Alpha     float64 // false-alarm rate of the audit (Clopper-Pearson, Bonferroni over thresholds)

	// NoiseDivisor, when above 1, divides the noise's scale of the
	// released batches: the mutation control a correct audit must catch
	// (`run audit --sigma-scale 1/k`). 0 and 1 leave the noise as calibrated.
	NoiseDivisor uint64
}

// AuditResult is an audit's verdict.
type AuditResult struct {
	Claimed   float64 // eps the accountant claims for this batch at Delta (0 for pure DP)
	Delta     float64
	LowerEps  float64 // a lower bound on the eps the release actually has, at confidence 1 - Alpha
	Threshold float64 // the output threshold that gave LowerEps
	Pass      bool    // LowerEps <= Claimed
}

// Audit estimates, with one-sided confidence 1 - Alpha, a lower bound on
// the privacy loss of one batch release and compares it with the
// accountant's claim for that batch. For every threshold c among the
// quantiles of the outputs, the events {out >= c} and {out <= c} bound eps
// from below by ln((P_hi - delta)/P_lo), with P_hi a Clopper-Pearson
// lower bound under the dataset that makes the event likelier and P_lo an
// upper bound under the other. A pass means the audit found no violation;
// a release whose noise is too small (for example half the claimed scale)
// fails once Trials is large enough.
func Audit(spec AuditSpec) (AuditResult, error) {
	alg, ok := Lookup(spec.Algorithm)
	if !ok || alg.Trust == core.TrustNone || alg.Name == "dp-se" {
		return AuditResult{}, fmt.Errorf("algorithm = %q: audit covers the SecAgg entries (cdp-se, ldp-se, dist-*)", spec.Algorithm)
	}
	if spec.N < 1 || spec.Trials < 100 || !(spec.Alpha > 0 && spec.Alpha < 1) {
		return AuditResult{}, fmt.Errorf("audit: need N >= 1, Trials >= 100 and Alpha in (0, 1)")
	}
	params, err := core.Resolve(alg.Params, spec.Params)
	if err != nil {
		return AuditResult{}, err
	}
	if alg.Name == "ldp-se" {
		// The local claim is per message: audit one user's message.
		spec.N = 1
	}
	res := AuditResult{Claimed: math.Floor(spec.Eps*(1<<epsBits)) / (1 << epsBits)}
	if alg.Model != "pure" {
		res.Delta = spec.Delta
		if _, res.Claimed, err = batchClaim(alg, spec.Eps, spec.Delta, params, int64(spec.N)); err != nil {
			return AuditResult{}, err
		}
	}
	outs := [2][]float64{}
	for d := range 2 {
		key := rng.Derive(rng.NewKey("mab-audit", spec.Seed), "dataset", d)
		proto, err := newProtocol(alg, spec.Eps, params, key)
		if err != nil {
			return AuditResult{}, err
		}
		if spec.NoiseDivisor > 1 { // the mutation control: reach the noise scale
			proto.(*secagg).weaken = spec.NoiseDivisor
		}
		outs[d] = make([]float64, spec.Trials)
		for t := range outs[d] {
			proto.start(1, spec.N, 1)
			for u := range spec.N {
				x := 0.0
				if u == 0 && d == 1 {
					x = 1
				}
				proto.add(0, x)
			}
			outs[d][t] = proto.sum(0)
		}
		sort.Float64s(outs[d])
	}
	// Thresholds: 64 quantiles of the pooled outputs.
	const nq = 64
	pooled := append(append([]float64(nil), outs[0]...), outs[1]...)
	sort.Float64s(pooled)
	tests := 4 * nq // two events, two bounds each, per threshold
	a := spec.Alpha / float64(tests)
	res.LowerEps = math.Inf(-1)
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
			ph := cpLower(kh, spec.Trials, a)
			pl := cpUpper(kl, spec.Trials, a)
			if e := fmath.Log((ph - res.Delta) / pl); ph > res.Delta && e > res.LowerEps {
				res.LowerEps, res.Threshold = e, c
			}
		}
	}
	res.Pass = res.LowerEps <= res.Claimed
	return res, nil
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
	return distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(a)
}

func cpUpper(k, n int, a float64) float64 {
	if k == n {
		return 1
	}
	return distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - float64(a))
}
