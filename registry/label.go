package registry

import (
	"strconv"
	"strings"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/outputs"
)

// Config is a configuration as labels see it: everything of a run but
// its seed. FromSpec and FromRecord make one from a spec or a runs.arrow
// row.
type Config struct {
	Algorithm                                     string
	Params                                        map[string]float64
	Lazy, NoClip                                  bool
	Eps, Delta, Alpha, R, Crs, RewardLo, RewardHi float64
	Relation, Protocol, Preset, GramNoise         string
	// Noise is the sampler of the Gaussian releases: "discrete" or ""
	// (the floating-point default, a quiet field of the label; runs.arrow
	// tells the discrete one apart by its calibration note).
	Noise          string
	M, B, T, Every int
	// Instance names the instance and InstanceDesc describes it (both
	// empty: the label has no instance).
	Instance, InstanceDesc string
}

// FromSpec is the configuration of a linear spec (with defaults filled)
// on the named instance.
func FromSpec(s federate.Spec, instance, desc string) Config {
	c := Config{
		Algorithm: s.Algorithm, Params: s.Params, Lazy: s.Lazy, NoClip: s.NoClip,
		Eps: s.Eps, Delta: s.Delta, Alpha: s.Alpha, R: s.R, Crs: s.Crs, RewardLo: s.RewardLo, RewardHi: s.RewardHi,
		Relation: s.Relation, Protocol: s.Protocol, Preset: s.Preset, GramNoise: s.GramNoise,
		M: s.M, B: s.B, T: s.T, Every: s.Every, Instance: instance, InstanceDesc: desc,
	}
	if s.Noise == federate.NoiseDiscrete {
		c.Noise = federate.NoiseDiscrete
	}
	return c
}

// FromRecord is the configuration of a runs.arrow row.
func FromRecord(r *outputs.RunRecord) Config {
	lin := outputs.Deref(r.Linear)
	c := Config{
		Algorithm: r.Algorithm, Params: r.Params, Lazy: lin.Lazy, NoClip: lin.NoClip,
		Eps: outputs.Deref(r.Eps), Delta: outputs.Deref(r.Delta), Alpha: lin.Alpha, R: lin.R, Crs: lin.Crs, RewardLo: lin.RewardLo, RewardHi: lin.RewardHi,
		Relation: r.Relation, Protocol: lin.Protocol, Preset: lin.Preset, GramNoise: lin.GramNoise,
		M: outputs.Deref(r.M), B: outputs.Deref(r.B), T: r.T, Every: r.Every, Instance: r.Instance, InstanceDesc: r.InstanceName,
	}
	c.Noise = federate.RecordedNoise(r.CalibrationNote)
	return c
}

// Field is one element of a configuration's label: Key=Value (followed
// by " (Detail)" when it has one), or the key alone for a flag that is
// set (Flag with Value "true"); the algorithm is its bare name.
type Field struct {
	Key, Value string
	Detail     string
	Flag       bool
	// Quiet marks a default that the label leaves out (String returns
	// ""), so that adding the key changed no existing label; a legend
	// still sees it vary (the noise sampler: "gaussian").
	Quiet bool
}

func (f Field) String() string {
	switch {
	case f.Quiet:
		return ""
	case f.Key == "algorithm":
		return f.Value
	case f.Flag:
		if f.Value == "true" {
			return f.Key
		}
		return ""
	}
	if f.Detail != "" {
		return f.Key + "=" + f.Value + " (" + f.Detail + ")"
	}
	return f.Key + "=" + f.Value
}

// Fields is the one labelling of a configuration, used by plans' group
// labels, `run audit`, figure legends and summaries: its fields in order,
// the algorithm first. A generic key the algorithm does not use is left
// out (the privacy block for a non-private algorithm, the learner's keys
// for one that does not learn); its own parameters come after the generic
// keys, in declaration order; the instance last.
func Fields(c Config) []Field {
	a, _ := Lookup(c.Algorithm)
	uses := func(k string) bool { return a == nil || a.UsesKey(k) }
	var out []Field
	add := func(k, v string) { out = append(out, Field{Key: k, Value: v}) }
	add("algorithm", c.Algorithm)
	if a != nil && a.Family != FamilyLinear {
		return append(out, genericFields(a, c)...)
	}
	out = append(out, Field{Key: "lazy", Value: strconv.FormatBool(c.Lazy), Flag: true})
	if uses("eps") {
		add("eps", g(c.Eps))
		add("delta", g(c.Delta))
		add("relation", c.Relation)
		add("protocol", c.Protocol)
	} else if c.Protocol != "" && c.Protocol != federate.ProtocolP {
		add("protocol", c.Protocol)
	}
	if uses("alpha") {
		add("preset", c.Preset)
	}
	add("M", strconv.Itoa(c.M))
	add("B", strconv.Itoa(c.B))
	add("T", strconv.Itoa(c.T))
	if uses("alpha") {
		add("alpha", g(c.Alpha))
	}
	add("every", strconv.Itoa(c.Every))
	if uses("alpha") {
		add("R", g(c.R))
		add("crs", g(c.Crs))
		add("gram", c.GramNoise)
		if uses("noise") {
			if c.Noise == "" {
				out = append(out, Field{Key: "noise", Value: federate.NoiseGaussian, Quiet: true})
			} else {
				add("noise", c.Noise)
			}
		}
		add("reward", "["+g(c.RewardLo)+","+g(c.RewardHi)+"]")
	}
	out = append(out, Field{Key: "no-clip", Value: strconv.FormatBool(c.NoClip), Flag: true})
	return paramInstanceFields(out, a, c)
}

// paramInstanceFields appends to out the last fields of every family's
// configuration: the parameters of the algorithm a (nil: none) that c
// sets, in a's order, then the instance.
func paramInstanceFields(out []Field, a *Algorithm, c Config) []Field {
	if a != nil {
		for _, p := range a.Params {
			if v, ok := c.Params[p.Key]; ok {
				out = append(out, Field{Key: p.Key, Value: g(v)})
			}
		}
	}
	if c.Instance != "" || c.InstanceDesc != "" {
		out = append(out, Field{Key: "instance", Value: c.Instance, Detail: c.InstanceDesc})
	}
	return out
}

// genericFields are the fields after the algorithm of a configuration of
// another family than the linear one: the generic keys it uses (eps,
// delta, M, B, T, every), its own parameters, the instance.
func genericFields(a *Algorithm, c Config) []Field {
	var out []Field
	add := func(k, v string) { out = append(out, Field{Key: k, Value: v}) }
	if a.UsesKey("eps") {
		add("eps", g(c.Eps))
	}
	if a.UsesKey("delta") {
		add("delta", g(c.Delta))
	}
	if a.UsesKey("M") {
		add("M", strconv.Itoa(c.M))
	}
	if a.UsesKey("B") {
		add("B", strconv.Itoa(c.B))
	}
	add("T", strconv.Itoa(c.T))
	add("every", strconv.Itoa(c.Every))
	return paramInstanceFields(out, a, c)
}

// FromRunSpec is the configuration of a compiled run spec (any family) on
// the named instance.
func FromRunSpec(s RunSpec, instance, desc string) Config {
	c := Config{Algorithm: s.Algorithm, Params: s.Params, Lazy: s.Lazy, NoClip: s.NoClip,
		Eps: s.Eps, Delta: s.Delta, Alpha: s.Alpha, R: s.R, Crs: s.Crs, RewardLo: s.RewardLo, RewardHi: s.RewardHi,
		Relation: s.Relation, Protocol: s.Protocol, Preset: s.Preset, GramNoise: s.GramNoise,
		M: s.M, B: s.B, T: s.T, Every: s.Every, Instance: instance, InstanceDesc: desc}
	if s.Noise == federate.NoiseDiscrete {
		c.Noise = federate.NoiseDiscrete
	}
	return c
}

// Label joins a configuration's fields with spaces: e.g. "ldp lazy eps=1
// delta=0.1 relation=add-remove protocol=P preset=exact M=100 ...".
func Label(c Config) string {
	var parts []string
	for _, f := range Fields(c) {
		if s := f.String(); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

func g(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// InstanceClass is an instance description (runs.arrow's instance_name,
// as every kind's Load writes it) without its "seed=N" word: the
// instances that differ only in the seed they are drawn from share it (a
// mab instance "mab K=10 gap=0.5 seed=3 ..." is of class "mab K=10
// gap=0.5 ..."). Figures average over the instances of a class.
func InstanceClass(desc string) string {
	words := strings.Fields(desc)
	out := words[:0]
	for _, w := range words {
		if !strings.HasPrefix(w, "seed=") {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}
