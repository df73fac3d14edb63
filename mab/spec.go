package mab

import (
	"fmt"
	"math"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/mutation"
	"github.com/fedbandit/fedbandit/internal/rng"
)

// Spec is one run of the family: the entry point the registry wraps.
type Spec struct {
	Algorithm string             // an entry of Algorithms
	Eps       float64            // the target (eps, delta)-DP guarantee's eps (entries that use "eps"; with paper_eps = 1, the paper's Renyi / zCDP parameter)
	Delta     float64            // the target guarantee's delta (entries that use "delta": the Renyi and concentrated ones)
	T         int                // rounds (users)
	Seed      uint64             // the run's seed: rewards, rounding and noise streams
	Params    map[string]float64 // the entry's own parameters; absent keys take their defaults
	Instance  Instance
}

// New validates spec and builds its run (a *Run of batched successive
// elimination, or the entry's Policy played by the family) and the
// privacy claim its noise certifies. Bad input is an error naming the key.
func New(spec Spec) (core.Problem, core.Privacy, error) {
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
	b := bandit{means: means, rewards: rng.New(key, "rewards")}
	for a := range means {
		if means[a] > means[b.best] {
			b.best = a
		}
	}
	if spec.Instance.Reward == RewardBernoulli {
		b.reward = bernoulliReward
	} else {
		b.reward = gaussianClipped(spec.Instance.NoiseSD)
	}
	if alg.Policy != nil {
		setup := PolicySetup{Arms: len(means), T: spec.T, Params: params, Key: key}
		if alg.Trust != core.TrustNone {
			setup.Eps = spec.Eps
		}
		pol, err := alg.Policy(setup)
		if err != nil {
			return nil, core.Privacy{}, err
		}
		claim, err := policyClaim(alg, spec, params, pol)
		if err != nil {
			return nil, core.Privacy{}, err
		}
		return &policyRun{bandit: b, policy: pol}, claim, nil
	}
	r := &Run{bandit: b, crs: params["crs"], maxN: spec.T, b: 1}
	for a := range means {
		r.active = append(r.active, a)
	}
	size := alg.Schedule
	r.size = func(b, k int) int { return capSize(size(b, k, spec.Eps, params), spec.T) }
	l, err := newLedger(alg, spec, params, len(means))
	if err != nil {
		return nil, core.Privacy{}, err
	}
	noiseEps := l.noiseEps
	if mutation.On("I42-wiring") { // the protocol drawn at the target eps, not the ledger's calibrated parameter
		noiseEps = spec.Eps
	}
	proto, err := newProtocol(alg, noiseEps, params, key)
	if err != nil {
		return nil, core.Privacy{}, err
	}
	r.proto, r.ledger = proto, l
	setArms(proto, l.arms)
	if err := fits(proto, int64(spec.T), l.maxBatch); err != nil {
		return nil, core.Privacy{}, err
	}
	if s, ok := proto.(*secagg); ok {
		r.stats = &s.stats
	}
	claim := account(alg, spec, params, l)
	r.begin()
	return r, claim, nil
}

// newProtocol builds the entry's protocol, chosen by its declared noise,
// on the run's streams (the audit builds it through here too).
func newProtocol(alg Algorithm, eps float64, params map[string]float64, key rng.Key) (protocol, error) {
	conf := params["conf"]
	ref := params["reference_code"] == 1
	if alg.Noise.Kind == NoiseNone {
		return &plain{conf: conf}, nil
	}
	if alg.Noise.Kind == NoiseLaplaceGrid {
		if ref {
			return &sharedLaplace{eps: eps, conf: conf, noise: rng.New(key, "noise")}, nil
		}
		return newCentralLaplace(eps, conf, rng.New(key, "encode"), rng.Source(key, noiseStream()))
	}
	kind, err := secaggKind(alg.Noise)
	if err != nil {
		return nil, fmt.Errorf("algorithm = %q: %w", alg.Name, err)
	}
	scale, ok := params["S"]
	if !ok {
		scale = 1
	}
	s, err := newSecagg(kind, eps, conf, scale, params["per_user"] == 1, rng.New(key, "encode"), rng.Source(key, noiseStream()))
	if err == nil {
		s.inverted = ref
	}
	return s, err
}

// noiseStream names the protocols' noise stream, distinct from the
// rounding stream "encode" (the noise must not depend on the data).
func noiseStream() string {
	if mutation.On("P5-22") { // the noise drawn from the rounding stream
		return "encode"
	}
	return "noise"
}

// setArms union-bounds a SecAgg protocol's accuracy tau over a run's K
// arms (and its batches; docs/mab.md, "The SecAgg template").
func setArms(p protocol, arms int64) {
	if s, ok := p.(*secagg); ok {
		s.arms = arms
	}
}

// secaggKind is the SecAgg protocol's noise for a declared noise.
func secaggKind(n Noise) (string, error) {
	switch {
	case n.Kind == NoiseDLap && n.Placement == PlaceCentral:
		return noiseCentral, nil
	case n.Kind == NoiseDLap && n.Placement == PlaceLocal:
		return noiseLocal, nil
	case n.Kind == NoisePolya && n.Placement == PlaceShares:
		return noisePolya, nil
	case n.Kind == NoiseSkellam && n.Placement == PlaceShares:
		return noiseSkellam, nil
	case n.Kind == NoiseDGauss && n.Placement == PlaceShares:
		return noiseDGauss, nil
	}
	return "", fmt.Errorf("no protocol draws %q noise placed %q", n.Kind, n.Placement)
}

// fits refuses a spec whose largest batch (n = T, batch index maxBatch) would take an integer of
// the protocol beyond 2^62 (docs/mab.md, "Ranges").
func fits(p protocol, T int64, maxBatch int) error {
	switch p := p.(type) {
	case *secagg:
		if err := p.fits(T, maxBatch); err != nil {
			return err
		}
		if p.kind == noiseSkellam || p.kind == noiseDGauss {
			// The largest batch's total variance must stay within the
			// exact samplers' 64-bit range.
			g, _ := p.params(T, 1)
			if num, _ := shareVariance(g, T, p.eps); num > maxInt/uint64(T) {
				return fmt.Errorf("eps = %v: with S = %v and T = %d the noise variance of a batch exceeds the exact samplers' range; lower eps, S or T", p.eps, p.scale, T)
			}
		}
	case *centralLaplace:
		if T > maxInt>>dpseGridBits {
			return fmt.Errorf("T = %d: DP-SE's grid sum of a batch of T users can exceed 2^62; at most 2^%d", T, 62-dpseGridBits)
		}
	}
	return nil
}

// capSize is a schedule's batch size as an int, capped at limit.
func capSize(n float64, limit int) int {
	if !(n < float64(limit)) {
		return limit
	}
	return max(int(n), 1)
}
