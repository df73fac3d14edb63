package registry

import (
	"context"
	"fmt"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/federate"
)

// linearAlgorithms are the linear family's entries: one per algorithm of
// federate's own list (federate.Algorithms), which declares them.
func linearAlgorithms() []*Algorithm {
	var out []*Algorithm
	for _, a := range federate.Algorithms() {
		out = append(out, &Algorithm{
			Name: a.Name, Display: a.Display, Summary: a.Summary, Family: FamilyLinear,
			Trust: a.Trust, Params: a.Params, Uses: a.Uses, NewRun: runLinear,
		})
	}
	return out
}

// runLinear plays one run of the linear family from a family-neutral
// spec: the instance table decoded by its kind, the header and parameters
// onto a federate.Spec, whose defaults and rules are the family's.
func runLinear(ctx context.Context, rs RunSpec) (*core.Result, error) {
	spec, err := LinearSpec(rs, Env{})
	if err != nil {
		return nil, err
	}
	res, err := federate.Run(ctx, spec)
	if err != nil {
		return nil, err
	}
	return &res.Result, nil
}

// LinearSpec builds the linear family's spec of a family-neutral run
// spec, loading the instance's data with env.
func LinearSpec(rs RunSpec, env Env) (federate.Spec, error) {
	k, err := LookupKind(rs.Instance)
	if err != nil {
		return federate.Spec{}, err
	}
	if k.Family != FamilyLinear {
		return federate.Spec{}, fmt.Errorf("instance kind %q is of family %s, not %s", k.Name, k.Family, FamilyLinear)
	}
	loaded, err := rs.Load(env)
	if err != nil {
		return federate.Spec{}, err
	}
	lin := loaded.Linear()
	if lin == nil {
		return federate.Spec{}, fmt.Errorf("instance kind %q gives the linear family a %T, want a *LinearData", rs.Instance, loaded.Value)
	}
	if _, err := federate.LookupAlgorithm(rs.Algorithm); err != nil {
		return federate.Spec{}, err
	}
	// The header's absent keys take the family's defaults, as a sweep
	// file's do: the learner and the clamp by the spec layer's rules.
	lazy, noClip := LinearDefaults(rs.Algorithm, "")
	s := federate.Spec{
		Algorithm: rs.Algorithm, Seed: rs.Seed, T: rs.T, M: rs.M, B: rs.B, Every: rs.Every,
		Eps: rs.Eps, Delta: rs.Delta, Params: rs.Params, Lazy: lazy, NoClip: noClip,
	}
	lin.Set(&s)
	return s.Canonical(), nil
}

// LinearDefaults returns the linear family's settings for an absent lazy
// and no_clip key of the algorithm under preset ("": the default preset):
// federate.DefaultLazy and federate.DefaultNoClip.
func LinearDefaults(name, preset string) (lazy, noClip bool) {
	if a, err := federate.LookupAlgorithm(name); err == nil {
		lazy = federate.DefaultLazy(a, preset)
	}
	return lazy, federate.DefaultNoClip(preset)
}
