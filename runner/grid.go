package runner

import (
	"errors"
	"fmt"
	"slices"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/registry"
)

// point is one configuration of a sweep's grid (everything but the
// seed): the spec it gives, without instance data, the sweep key that
// each spec field came from, so that the spec's validation (the one set of
// rules, federate.Spec.ValidateGiven) reports errors in the user's terms,
// and the fields the file gives explicitly.
type point struct {
	inst, alg int // indices of the [[instance]] and [[algorithm]] tables
	spec      federate.Spec
	keys      map[string]string // federate.FieldError.Field -> sweep key
	given     []string          // spec fields the file sets (federate.Spec.ValidateGiven)
}

// keyError returns err as a *KeyError naming the sweep key of the spec
// field at fault (err unchanged if it is not a spec field error).
func (p *point) keyError(err error) error {
	var fe *federate.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	key, ok := p.keys[fe.Field]
	if !ok {
		key = fmt.Sprintf("algorithm[%d]", p.alg)
	}
	return &KeyError{Key: key, Msg: fe.Msg}
}

// values is a swept key: its values, and the sweep key of value i.
type values struct {
	v   []float64
	key func(i int) string
}

// list is the values of a grid list, or the single absent value (the
// spec's zero, which its defaults fill) when the file does not set it.
func list(v []float64, key string) values {
	if len(v) == 0 {
		return values{[]float64{0}, func(int) string { return key }}
	}
	return values{v, func(i int) string { return fmt.Sprintf("%s[%d]", key, i) }}
}

// points calls f for every configuration of the grid, in plan order:
// instances, algorithms, M, B, T, alpha, relation, noise, eps, delta and the
// algorithm's own parameters (by key). The spec has its instance kind and
// settings but no instance data, seed 0, and the keys the algorithm does
// not use at their absent value (federate.Spec.Canonical). A key the file
// leaves out is left out of the spec too: its default is the spec's.
func (c *Config) points(f func(p *point) error) error {
	g := c.Grid
	relations := g.Relation
	if len(relations) == 0 {
		relations = []string{""}
	}
	noises := g.Noise
	if len(noises) == 0 {
		noises = []string{""}
	}
	for ii, ic := range c.Instances {
		for ai, ac := range c.Algorithms {
			alg, err := registry.Lookup(ac.Name)
			if err != nil {
				return &KeyError{Key: fmt.Sprintf("algorithm[%d].name", ai), Msg: err.Error()}
			}
			if alg.Family != registry.FamilyLinear {
				continue // genericPoints plans it
			}
			at := func(k string) string { return fmt.Sprintf("algorithm[%d].%s", ai, k) }
			epss, deltas := values{[]float64{0}, func(int) string { return "grid.eps" }}, values{[]float64{0}, func(int) string { return "grid.delta" }}
			if alg.Private() {
				epss, deltas = list(g.Eps, "grid.eps"), list(g.Delta, "grid.delta")
				if len(ac.Eps) > 0 {
					epss = list(ac.Eps, at("eps"))
				}
				if len(ac.Delta) > 0 {
					deltas = list(ac.Delta, at("delta"))
				}
			}
			// Absent lazy and no_clip take the spec layer's defaults.
			lazy, noClip := registry.LinearDefaults(ac.Name, ac.Preset)
			if c.isSet("algorithm", ai, "lazy") {
				lazy = ac.Lazy
			}
			if c.isSet("advanced", "no_clip") {
				noClip = c.Advanced.NoClip
			}
			var given []string
			for _, gk := range []struct {
				field string
				path  []any
			}{
				{"Alpha", []any{"grid", "alpha"}}, {"R", []any{"advanced", "R"}}, {"Crs", []any{"advanced", "crs"}},
				{"Every", []any{"checkpoint_every"}}, {"Reward", []any{"advanced", "reward"}},
			} {
				if c.isSet(gk.path...) {
					given = append(given, gk.field)
				}
			}
			in := func(k string) string { return fmt.Sprintf("instance[%d].%s", ii, k) }
			keys := map[string]string{
				"Algorithm": at("name"), "Protocol": at("protocol"), "Lazy": at("lazy"), "Preset": at("preset"),
				"Every": "checkpoint_every", "R": "advanced.R", "Crs": "advanced.crs",
				"GramNoise": "advanced.gram_noise", "RewardLo": "advanced.reward", "RewardHi": "advanced.reward",
				"NoClip": "advanced.no_clip", "Instance": in("kind"), "LTR": in("dataset"),
				"Synthetic.D": in("d"), "Synthetic.K": in("k"), "Synthetic.NoiseVar": in("noise_var"),
				"Synthetic.ContextGen": in("context_gen"), "Synthetic.Theta": in("theta"), "Synthetic.Seed": in("seed"),
				"Synthetic.Link": in("link"),
			}
			combos, ckeys := c.paramCombos(ai, ac)
			alphas := list(g.Alpha, "grid.alpha")
			for im, m := range g.M {
				for ib, b := range g.B {
					for it, t := range g.T {
						for ial, alpha := range alphas.v {
							for ir, rel := range relations {
								for in, noise := range noises {
									for ie, eps := range epss.v {
										for id, delta := range deltas.v {
											for ci, params := range combos {
												p := &point{inst: ii, alg: ai, given: given, keys: map[string]string{
													"M": fmt.Sprintf("grid.M[%d]", im), "B": fmt.Sprintf("grid.B[%d]", ib),
													"T": fmt.Sprintf("grid.T[%d]", it), "Alpha": alphas.key(ial),
													"Relation": fmt.Sprintf("grid.relation[%d]", ir), "Noise": fmt.Sprintf("grid.noise[%d]", in),
													"Eps": epss.key(ie), "Delta": deltas.key(id),
												}}
												for k, v := range keys {
													p.keys[k] = v
												}
												for k, v := range ckeys[ci] {
													p.keys[k] = v
												}
												spec := federate.Spec{
													Algorithm: ac.Name, Protocol: ac.Protocol, Lazy: lazy, Preset: ac.Preset,
													Eps: eps, Delta: delta, Relation: rel,
													M: m, T: t, B: b, Alpha: alpha, Every: c.CheckpointEvery,
													R: c.Advanced.R, Crs: c.Advanced.Crs, GramNoise: c.Advanced.GramNoise,
													NoClip: noClip, Params: params, Noise: noise,
												}
												if li, ok := ic.inst.(registry.LinearInstance); ok {
													li.Settings(&spec)
												}
												if len(c.Advanced.Reward) == 2 {
													spec.RewardLo, spec.RewardHi = c.Advanced.Reward[0], c.Advanced.Reward[1]
												}
												p.spec = spec.Canonical()
												if err := f(p); err != nil {
													return err
												}
											}
										}
									}
								}
							}
						}
					}
				}
			}
		}
	}
	return nil
}

// paramCombos returns every combination of the values the [[algorithm]]
// table ai lists for its own parameters (keys in sorted order), each with
// the sweep key of each value ("Params.<key>" -> "algorithm[i].key[j]").
func (c *Config) paramCombos(ai int, ac AlgorithmConfig) ([]map[string]float64, []map[string]string) {
	at := func(k string) string { return fmt.Sprintf("algorithm[%d].%s", ai, k) }
	// The algorithm's own parameters: every combination of the
	// listed values, keys in sorted order.
	pkeys := slices.Sorted(func(yield func(string) bool) {
		for k := range ac.Params {
			if !yield(k) {
				return
			}
		}
	})
	combos := []map[string]float64{nil}
	ckeys := []map[string]string{{}}
	for _, k := range pkeys {
		vals := ac.Params[k]
		var nc []map[string]float64
		var nk []map[string]string
		for ci, cm := range combos {
			for j, v := range vals {
				m := map[string]float64{k: v}
				for kk, vv := range cm {
					m[kk] = vv
				}
				km := map[string]string{"Params." + k: at(k)}
				if c.isList("algorithm", ai, k) {
					km["Params."+k] = fmt.Sprintf("%s[%d]", at(k), j)
				}
				for kk, vv := range ckeys[ci] {
					km[kk] = vv
				}
				nc, nk = append(nc, m), append(nk, km)
			}
		}
		combos, ckeys = nc, nk
	}
	return combos, ckeys
}

// isList reports whether the sweep file gives the key at path as a list.
func (c *Config) isList(path ...any) bool {
	v, _ := c.lookup(path...)
	_, ok := v.([]any)
	return ok
}

// validatePoints runs the spec's validation on every configuration of the
// grid, reporting the first error under the sweep key that caused it.
func (c *Config) validatePoints() error {
	return c.points(func(p *point) error {
		if err := p.spec.ValidateGiven(p.given...); err != nil {
			return p.keyError(err)
		}
		return nil
	})
}

// Configurations returns the sweep's configurations in plan order: every
// spec of the grid without its seed and without instance data (ltr data
// is not loaded). `run audit --sweep` audits them.
func (c *Config) Configurations() ([]federate.Spec, error) {
	var out []federate.Spec
	err := c.points(func(p *point) error {
		out = append(out, p.spec)
		return nil
	})
	return out, err
}
