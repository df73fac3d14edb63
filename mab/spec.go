package mab

import (
	"fmt"
	"math"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/fmath"
	"github.com/fedbandit/fedbandit/internal/rng"
)

// Spec is one run of the family: the entry point the registry wraps.
type Spec struct {
	Algorithm string             // an entry of Algorithms
	Eps       float64            // privacy parameter (entries that use "eps")
	Delta     float64            // privacy delta at which RDP and zCDP claims are stated as (eps, delta) (entries that use "delta")
	T         int                // rounds (users)
	Seed      uint64             // the run's seed: rewards, rounding and noise streams
	Params    map[string]float64 // the entry's own parameters; absent keys take their defaults
	Instance  Instance
}

// New validates spec and builds its run and the privacy claim its noise
// certifies. Bad input is an error naming the key.
func New(spec Spec) (core.Problem, core.Privacy, error) {
	r, claim, err := build(spec)
	if err != nil {
		return nil, core.Privacy{}, err
	}
	return r, claim, nil
}

func build(spec Spec) (*Run, core.Privacy, error) {
	alg, ok := Lookup(spec.Algorithm)
	if !ok {
		return nil, core.Privacy{}, fmt.Errorf("algorithm = %q: not an entry of the mab family", spec.Algorithm)
	}
	params, err := core.Resolve(alg.Params, spec.Params)
	if err != nil {
		return nil, core.Privacy{}, fmt.Errorf("%s: %w", alg.Name, err)
	}
	if spec.T < 1 {
		return nil, core.Privacy{}, fmt.Errorf("T = %d: need at least 1", spec.T)
	}
	if alg.Trust != core.TrustNone && !(spec.Eps > 0 && !math.IsInf(spec.Eps, 0)) {
		return nil, core.Privacy{}, fmt.Errorf("eps = %v: %s needs a finite eps > 0", spec.Eps, alg.Name)
	}
	if alg.Model == "rdp" || alg.Model == "zcdp" {
		if !(spec.Delta > 0 && spec.Delta < 1) {
			return nil, core.Privacy{}, fmt.Errorf("delta = %v: %s states its guarantee at a delta in (0, 1)", spec.Delta, alg.Name)
		}
	}
	means, err := spec.Instance.MeanValues()
	if err != nil {
		return nil, core.Privacy{}, fmt.Errorf("instance: %w", err)
	}
	key := rng.Derive(rng.NewKey("mab-run", spec.Seed), "instance", spec.Instance.Seed)
	r := &Run{
		means:   means,
		rewards: rng.New(key, "rewards"),
		crs:     params["crs"],
		maxN:    spec.T,
		b:       1,
	}
	for a := range means {
		r.active = append(r.active, a)
		if means[a] > means[r.best] {
			r.best = a
		}
	}
	if spec.Instance.Reward == RewardBernoulli {
		r.reward = bernoulliReward
	} else {
		r.reward = gaussianClipped(spec.Instance.NoiseSD)
	}
	growth, conf := params["growth"], params["conf"]
	r.size = func(b, k int) int { return powCap(growth, b, spec.T) }
	proto, err := newProtocol(alg, spec.Eps, params, key)
	if err != nil {
		return nil, core.Privacy{}, err
	}
	r.proto = proto
	if s, ok := proto.(*secagg); ok {
		r.stats = &s.stats
	}
	if alg.Name == "dp-se" {
		r.size = func(b, k int) int {
			return int(math.Min(dpseBatch(b, k, growth, spec.Eps, conf), float64(spec.T)))
		}
	}
	if alg.Model == "rdp" || alg.Model == "zcdp" {
		// The largest batch's total variance must stay within the exact
		// samplers' 64-bit range.
		n := int64(spec.T)
		g, _ := proto.(*secagg).params(n)
		if num, _ := shareVariance(g, n, spec.Eps); num > 1<<62/uint64(n) {
			return nil, core.Privacy{}, fmt.Errorf("S = %v with eps = %v and T = %d: the noise variance of a batch exceeds the exact samplers' range", params["S"], spec.Eps, spec.T)
		}
	}
	claim, err := account(alg, spec, params)
	if err != nil {
		return nil, core.Privacy{}, err
	}
	r.begin()
	return r, claim, nil
}

// newProtocol builds the entry's protocol on the run's streams (the audit
// builds it through here too).
func newProtocol(alg Algorithm, eps float64, params map[string]float64, key rng.Key) (protocol, error) {
	conf := params["conf"]
	kind := ""
	switch alg.Name {
	case "se":
		return &plain{conf: conf}, nil
	case "dp-se":
		return &centralLaplace{eps: eps, conf: conf, noise: rng.New(key, "noise"), shared: params["reference_code"] == 1}, nil
	case "cdp-se":
		kind = noiseCentral
	case "ldp-se":
		kind = noiseLocal
	case "dist-dp-se":
		kind = noisePolya
	case "dist-rdp-se":
		kind = noiseSkellam
	case "dist-cdp-se":
		kind = noiseDGauss
	default:
		return nil, fmt.Errorf("algorithm = %q: no protocol", alg.Name)
	}
	scale, ok := params["S"]
	if !ok {
		scale = 1
	}
	s, err := newSecagg(kind, eps, conf, scale, params["per_user"] == 1, rng.New(key, "encode"), rng.Source(key, "noise"))
	if err == nil {
		s.inverted = params["reference_code"] == 1
	}
	return s, err
}

// powCap is min(growth^b, limit) without overflow.
func powCap(growth float64, b, limit int) int {
	p := fmath.Pow(growth, float64(b))
	if p >= float64(limit) {
		return limit
	}
	return int(p)
}
