package runner

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/registry"
)

// point is one configuration of a sweep's grid (everything but the
// seed), for any family: the run spec it gives, without its instance data
// (the planner adds it), and the sweep key that each key of the spec came
// from, so that the family's rules (registry.Algorithm.Compile and Check)
// report errors in the user's terms.
type point struct {
	inst, alg int // indices of the [[instance]] and [[algorithm]] tables
	spec      registry.RunSpec
	keys      map[string]string // registry.FieldError.Key -> sweep key
}

// keyError returns err as a *KeyError naming the sweep key of the spec key
// at fault (err unchanged if it names none).
func (p *point) keyError(err error) error {
	var fe *registry.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	key, ok := p.keys[fe.Key]
	switch {
	case ok:
	case strings.HasPrefix(fe.Key, "instance."):
		key = fmt.Sprintf("instance[%d].%s", p.inst, strings.TrimPrefix(fe.Key, "instance."))
	default:
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
// spec's zero, which its family's defaults fill) when the file does not
// set it.
func list(v []float64, key string) values {
	if len(v) == 0 {
		return values{[]float64{0}, func(int) string { return key }}
	}
	return values{v, func(i int) string { return fmt.Sprintf("%s[%d]", key, i) }}
}

// strs is list for a list of strings.
func strs(v []string, key string) ([]string, func(i int) string) {
	if len(v) == 0 {
		return []string{""}, func(int) string { return key }
	}
	return v, func(i int) string { return fmt.Sprintf("%s[%d]", key, i) }
}

func ints(v []int) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// points calls f for every configuration of the grid, in plan order:
// instances, algorithms, M, B, T, alpha, relation, noise, eps, delta and
// the algorithm's own parameters (by key). The spec has seed 0, no
// instance data, and every key as the file gives it: a key the file leaves
// out is left out of the spec too (its default is the family's), a key the
// algorithm does not use is cleared by its family's Compile (the same run
// for every value, planned once).
func (c *Config) points(f func(p *point) error) error {
	g := c.Grid
	relations, relKey := strs(g.Relation, "grid.relation")
	noises, noiseKey := strs(g.Noise, "grid.noise")
	ms, bs, ts, alphas := list(ints(g.M), "grid.M"), list(ints(g.B), "grid.B"), list(ints(g.T), "grid.T"), list(g.Alpha, "grid.alpha")
	// The keys the file sets: an absent one takes its family's default,
	// a set one is kept (0 included).
	var set []string
	for _, k := range []struct {
		key  string
		path []any
	}{
		{"alpha", []any{"grid", "alpha"}}, {"R", []any{"advanced", "R"}}, {"crs", []any{"advanced", "crs"}},
		{"checkpoint_every", []any{"checkpoint_every"}}, {"reward", []any{"advanced", "reward"}},
		{"no_clip", []any{"advanced", "no_clip"}}, {"M", []any{"grid", "M"}}, {"B", []any{"grid", "B"}},
	} {
		if c.isSet(k.path...) {
			set = append(set, k.key)
		}
	}
	for ii, ic := range c.Instances {
		for ai, ac := range c.Algorithms {
			if _, err := registry.Lookup(ac.Name); err != nil {
				return &KeyError{Key: fmt.Sprintf("algorithm[%d].name", ai), Msg: err.Error()}
			}
			at := func(k string) string { return fmt.Sprintf("algorithm[%d].%s", ai, k) }
			epss, deltas := list(g.Eps, "grid.eps"), list(g.Delta, "grid.delta")
			if len(ac.Eps) > 0 {
				epss = list(ac.Eps, at("eps"))
			}
			if len(ac.Delta) > 0 {
				deltas = list(ac.Delta, at("delta"))
			}
			aset := set
			if c.isSet("algorithm", ai, "lazy") {
				aset = append(slices.Clip(set), "lazy")
			}
			keys := map[string]string{
				"name": at("name"), "protocol": at("protocol"), "lazy": at("lazy"), "preset": at("preset"),
				"checkpoint_every": "checkpoint_every", "R": "advanced.R", "crs": "advanced.crs",
				"gram_noise": "advanced.gram_noise", "reward": "advanced.reward", "no_clip": "advanced.no_clip",
			}
			combos, ckeys := c.paramCombos(ai, ac)
			for im, m := range ms.v {
				for ib, b := range bs.v {
					for it, t := range ts.v {
						for ial, alpha := range alphas.v {
							for ir, rel := range relations {
								for in, noise := range noises {
									for ie, eps := range epss.v {
										for id, delta := range deltas.v {
											for ci, params := range combos {
												p := &point{inst: ii, alg: ai, keys: map[string]string{
													"M": ms.key(im), "B": bs.key(ib), "T": ts.key(it), "alpha": alphas.key(ial),
													"relation": relKey(ir), "noise": noiseKey(in), "eps": epss.key(ie), "delta": deltas.key(id),
												}}
												for k, v := range keys {
													p.keys[k] = v
												}
												for k, v := range ckeys[ci] {
													p.keys[strings.TrimPrefix(k, "Params.")] = v
												}
												rs := registry.RunSpec{
													Algorithm: ac.Name, Instance: ic.Kind, T: int(t), M: int(m), B: int(b),
													Every: c.CheckpointEvery, Eps: eps, Delta: delta, Params: params,
													Table: c.instanceTable(ii), Dir: c.dir,
													Protocol: ac.Protocol, Preset: ac.Preset, Lazy: ac.Lazy, Relation: rel, Alpha: alpha,
													Noise: noise, R: c.Advanced.R, Crs: c.Advanced.Crs, GramNoise: c.Advanced.GramNoise,
													NoClip: c.Advanced.NoClip, Set: aset,
												}
												if len(c.Advanced.Reward) == 2 {
													rs.RewardLo, rs.RewardHi = c.Advanced.Reward[0], c.Advanced.Reward[1]
												}
												p.spec = rs
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

// instanceTable is the [[instance]] table ii without name and kind: what
// its kind decodes.
func (c *Config) instanceTable(ii int) map[string]any {
	t := map[string]any{}
	for k, v := range c.tables("instance")[ii] {
		if k != "name" && k != "kind" {
			t[k] = v
		}
	}
	return t
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

// validatePoints checks every configuration of the grid by its family's
// rules as far as they go without the instance's data (Compile on the
// decoded instance), reporting the first error under the sweep key that
// caused it; NewPlan checks each again on its loaded instance.
func (c *Config) validatePoints() error {
	return c.points(func(p *point) error {
		rs := p.spec
		rs.Decoded = c.Instances[p.inst].inst
		if _, err := registry.Compile(rs); err != nil {
			return p.keyError(err)
		}
		return nil
	})
}

// Configurations returns the sweep's configurations of the linear family
// in plan order: every spec of the grid without its seed and without
// instance data (ltr data is not loaded), defaults filled. `run audit
// --sweep` audits them.
func (c *Config) Configurations() ([]federate.Spec, error) {
	var out []federate.Spec
	err := c.points(func(p *point) error {
		rs := p.spec
		rs.Decoded = c.Instances[p.inst].inst
		cs, err := registry.Compile(rs)
		if err != nil {
			return p.keyError(err)
		}
		if s, ok := registry.NativeLinear(cs); ok {
			out = append(out, s)
		}
		return nil
	})
	return out, err
}
