package runner

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/fedbandit/fedbandit/internal/suggest"
	"github.com/fedbandit/fedbandit/registry"
)

// Config is a sweep file (TOML). See sweeps/README.md for a commented
// example; every key is documented on its field.
type Config struct {
	// Name labels the sweep in outputs and plots.
	Name string `toml:"name"`
	// Description is free text kept with the outputs.
	Description string `toml:"description"`
	// Seeds is the number of seeded runs per configuration: run seeds
	// FirstSeed .. FirstSeed+Seeds-1.
	Seeds int `toml:"seeds"`
	// FirstSeed is the first run seed (default 1; 0 is seed 0; >= 0).
	FirstSeed int64 `toml:"first_seed"`
	// CheckpointEvery is the spacing of the recorded curve in rounds
	// (default: B of each run; >= 1). The last round is always recorded.
	CheckpointEvery int `toml:"checkpoint_every"`
	// Instances are the bandit instances (at least one).
	Instances []InstanceConfig `toml:"instance"`
	// Algorithms are the algorithms (at least one).
	Algorithms []AlgorithmConfig `toml:"algorithm"`
	// Grid holds the parameter lists whose product is swept.
	Grid Grid `toml:"grid"`
	// Advanced holds rarely changed simulator settings.
	Advanced Advanced `toml:"advanced"`

	// Progress, when set, is called while NewPlan checks the
	// configurations, at most every PlanProgressEvery, with the number
	// checked so far and the time spent (attack round 4, R4-26: 20,000
	// eps values of dist-rdp-se, each calibrated in 12 ms, planned for
	// minutes in silence).
	Progress func(checked int, elapsed time.Duration) `toml:"-"`

	// dir is the directory of the sweep file: relative dataset paths are
	// resolved against it; path is the file (empty for ParseConfig).
	dir, path string
	// raw is the file's bytes, saved beside the outputs.
	raw []byte
	// tree is the file decoded generically: which keys the user set (a
	// key set to 0 is validated as given; only an absent key takes its
	// default).
	tree map[string]any
}

// isSet reports whether the sweep file sets the key at path, e.g.
// ("instance", 0, "d") or ("advanced", "crs").
func (c *Config) isSet(path ...any) bool {
	_, ok := c.lookup(path...)
	return ok
}

// lookup returns the sweep file's value at path (see isSet) and whether
// the file sets it: a string steps into a table, an int into an array of
// tables.
func (c *Config) lookup(path ...any) (any, bool) {
	var cur any = c.tree
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, false
			}
			if cur, ok = m[k]; !ok {
				return nil, false
			}
		case int:
			l, ok := cur.([]map[string]any)
			if !ok || k >= len(l) {
				return nil, false
			}
			cur = l[k]
		}
	}
	return cur, true
}

// InstanceConfig is one [[instance]] table: its name and kind, decoded
// here, and the rest of its keys, which its kind (registry.Kinds) takes,
// documents, checks and loads.
type InstanceConfig struct {
	// Name labels the instance (default "instance<i>").
	Name string `toml:"name"`
	// Kind is a registered instance kind ("synthetic", "ltr", ...).
	Kind string `toml:"kind"`

	// inst is the table decoded by its kind.
	inst registry.Instance
}

// AlgorithmConfig is one [[algorithm]] table: a registered algorithm, the
// generic keys of its family and its own parameters (registry.Algorithm
// Params), each a value or a list of values to sweep.
type AlgorithmConfig struct {
	// Name is a registered algorithm (`run sweep --help` lists them).
	Name string `toml:"name"`
	// Preset is "exact" (default), "paper" or "reference-code".
	Preset string `toml:"preset"`
	// Protocol is "P" or "P_alt" (default: the algorithm's first, P for
	// all but feducb).
	Protocol string `toml:"protocol"`
	// Lazy selects paper Algorithm 8 (default federate.DefaultLazy: true
	// for private algorithms with a fixed schedule under exact and paper).
	Lazy bool `toml:"lazy"`
	// Eps and Delta, when set, replace grid.eps and grid.delta for this
	// algorithm (e.g. SDP-amp at smaller eps than LDP).
	Eps   []float64 `toml:"eps"`
	Delta []float64 `toml:"delta"`

	// Params are the algorithm's own parameters the table sets, each with
	// its list of values (a single value is a list of one).
	Params map[string][]float64 `toml:"-"`
}

// Grid lists the swept values; the sweep is their Cartesian product with
// instances, algorithms and seeds. eps and delta apply to private
// algorithms only (FedLinUCB runs once per remaining combination).
type Grid struct {
	Eps      []float64 `toml:"eps"`
	Delta    []float64 `toml:"delta"`
	M        []int     `toml:"M"`
	B        []int     `toml:"B"`
	T        []int     `toml:"T"`
	Alpha    []float64 `toml:"alpha"`    // default: the spec's (0.01)
	Relation []string  `toml:"relation"` // default: the spec's ("add-remove")
	// Noise lists the samplers of the Gaussian releases: "gaussian" (the
	// floating-point default) and "discrete" (the exact discrete Gaussian
	// on a grid, a secure implementation; federate.Spec.Noise). Algorithms
	// without Gaussian releases run once whatever it lists.
	Noise []string `toml:"noise"`
}

// Advanced holds simulator settings that the paper's experiments leave at
// their defaults.
type Advanced struct {
	// R and Crs override the beta_t constants (absent: the instance's).
	R   float64 `toml:"R"`
	Crs float64 `toml:"crs"`
	// GramNoise is "symmetrised" (default) or "upper-iid".
	GramNoise string `toml:"gram_noise"`
	// Reward clamps observed rewards to [lo, hi] (default [0, 1]).
	Reward []float64 `toml:"reward"`
	// NoClip disables the reward clamp. Default federate.DefaultNoClip:
	// false (clamp), except for algorithms under the reference-code preset,
	// which reproduces the published code and so does not clamp. A private
	// run without the clamp is recorded as not certified.
	NoClip bool `toml:"no_clip"`
}

// KeyError is a configuration error attached to a key of the sweep file,
// e.g. "grid.eps[1]" or "algorithm[0].preset".
type KeyError struct {
	File string
	Key  string
	Msg  string
}

// Error renders "FILE: KEY: message" (or "KEY: message" without a file).
func (e *KeyError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("%s: %s", e.Key, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.File, e.Key, e.Msg)
}

// LoadConfig reads and validates a sweep file. Unknown keys and invalid
// values are errors naming the key.
func LoadConfig(path string) (*Config, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read sweep: %w", err)
	}
	c, err := ParseConfig(raw, filepath.Dir(path))
	if c != nil {
		c.path = path
	}
	if err != nil {
		var ke *KeyError
		if errors.As(err, &ke) {
			ke.File = path
			return nil, ke
		}
		return nil, fmt.Errorf("sweep %s: %w", path, err)
	}
	return c, nil
}

// didYouMeanKey is the "did you mean" for an unknown key of the sweep
// file's own tables (top level, [grid], [advanced]): the closest keys of
// the same table, from Config's toml tags, in the same dotted form.
func didYouMeanKey(key toml.Key) string {
	t := reflect.TypeOf(Config{})
	for _, p := range key[:len(key)-1] {
		f, ok := fieldByTag(t, p)
		if !ok || f.Type.Kind() != reflect.Struct {
			return ""
		}
		t = f.Type
	}
	var known []string
	for i := range t.NumField() {
		if tag := t.Field(i).Tag.Get("toml"); tag != "" && tag != "-" {
			known = append(known, tag)
		}
	}
	near := suggest.Closest(key[len(key)-1], known)
	for i, k := range near {
		near[i] = strings.Join(append(slices.Clone(key[:len(key)-1]), k), ".")
	}
	return suggest.Phrase(near)
}

// fieldByTag returns t's field whose toml tag is name.
func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if f := t.Field(i); f.Tag.Get("toml") == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// ParseConfig parses and validates a sweep file's bytes; dir resolves
// relative dataset paths.
func ParseConfig(raw []byte, dir string) (*Config, error) {
	c := &Config{dir: dir, raw: bytes.Clone(raw)}
	md, err := toml.NewDecoder(bytes.NewReader(raw)).Decode(c)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s", pe.ErrorWithPosition())
		}
		return nil, err
	}
	// The keys of [[instance]] and [[algorithm]] tables beyond those
	// decoded here are their kind's and the algorithm's: decodeTables
	// checks them.
	var keys []string
	for _, k := range md.Undecoded() {
		if len(k) > 1 && (k[0] == "instance" || k[0] == "algorithm") {
			continue
		}
		keys = append(keys, k.String())
	}
	if len(keys) > 0 {
		first := md.Undecoded()[0]
		for _, k := range md.Undecoded() {
			if k.String() == keys[0] {
				first = k
			}
		}
		return nil, &KeyError{Key: keys[0], Msg: fmt.Sprintf("unknown key%s (all unknown: %s)", didYouMeanKey(first), strings.Join(keys, ", "))}
	}
	if err := toml.Unmarshal(raw, &c.tree); err != nil {
		return nil, err
	}
	// An inline array of tables (instance = [{...}]) is the same document
	// as [[instance]] tables, but decodes as a list of maps (R4-24).
	for k, v := range c.tree {
		l, ok := v.([]any)
		if !ok || len(l) == 0 {
			continue
		}
		tables := make([]map[string]any, len(l))
		for i, e := range l {
			if tables[i], ok = e.(map[string]any); !ok {
				break
			}
		}
		if ok {
			c.tree[k] = tables
		}
	}
	c.applyDefaults()
	if err := c.decodeTables(); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// Raw returns the bytes the configuration was parsed from.
func (c *Config) Raw() []byte { return c.raw }

// applyDefaults fills what is the sweep file's own: the first seed and
// the instances' names. Every default of a run is the spec layer's
// (federate, registry): the runner passes absent keys on as absent.
func (c *Config) applyDefaults() {
	if !c.isSet("first_seed") {
		c.FirstSeed = 1
	}
	for i := range c.Instances {
		if in := &c.Instances[i]; in.Name == "" {
			in.Name = fmt.Sprintf("instance%d", i)
		}
	}
}

// tables returns the sweep file's array of tables called name, decoded
// generically.
func (c *Config) tables(name string) []map[string]any {
	l, _ := c.tree[name].([]map[string]any)
	return l
}

// decodeTables has every [[instance]] table decoded by its kind and reads
// every [[algorithm]] table's own parameters: a key the algorithm does
// not declare is an error naming it. The tree and the struct are decoded
// from the same bytes: table i is c.Instances[i] (c.Algorithms[i]).
func (c *Config) decodeTables() error {
	for i, t := range c.tables("instance") {
		key := fmt.Sprintf("instance[%d]", i)
		in, err := registry.DecodeInstance(t, c.dir)
		if err != nil {
			var ke *registry.KeyError
			if errors.As(err, &ke) {
				if ke.Key == "" {
					return &KeyError{Key: key, Msg: ke.Msg}
				}
				return &KeyError{Key: key + "." + ke.Key, Msg: ke.Msg}
			}
			return &KeyError{Key: key, Msg: err.Error()}
		}
		c.Instances[i].inst = in
	}
	fixed := map[string]bool{"name": true, "preset": true, "protocol": true, "lazy": true, "eps": true, "delta": true}
	for i, t := range c.tables("algorithm") {
		a := &c.Algorithms[i]
		alg, err := registry.Lookup(a.Name)
		if err != nil {
			return &KeyError{Key: fmt.Sprintf("algorithm[%d].name", i), Msg: err.Error()}
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if fixed[k] {
				continue
			}
			at := fmt.Sprintf("algorithm[%d].%s", i, k)
			if _, ok := alg.Param(k); !ok {
				what := "no parameters of its own"
				if len(alg.Params) > 0 {
					what = "parameters " + strings.Join(alg.ParamKeys(), ", ")
				}
				return &KeyError{Key: at, Msg: fmt.Sprintf("unknown key: %s has %s%s", a.Name, what, suggest.DidYouMean(k, alg.ParamKeys()))}
			}
			vals, err := numbers(t[k])
			if err != nil {
				return &KeyError{Key: at, Msg: err.Error()}
			}
			if a.Params == nil {
				a.Params = map[string][]float64{}
			}
			a.Params[k] = vals
		}
	}
	return nil
}

// numbers reads a parameter's value: a number or a non-empty list of
// numbers.
func numbers(v any) ([]float64, error) {
	num := func(x any) (float64, bool) {
		switch n := x.(type) {
		case int64:
			return float64(n), true
		case float64:
			return n, true
		}
		return 0, false
	}
	if x, ok := num(v); ok {
		return []float64{x}, nil
	}
	l, ok := v.([]any)
	if !ok || len(l) == 0 {
		return nil, fmt.Errorf("%v, want a number or a list of numbers", v)
	}
	out := make([]float64, len(l))
	for i, x := range l {
		if out[i], ok = num(x); !ok {
			return nil, fmt.Errorf("%v, want a number or a list of numbers", v)
		}
	}
	return out, nil
}

// Validate checks every value; the error names the first offending key.
func (c *Config) Validate() error {
	bad := func(key, format string, a ...any) error {
		return &KeyError{Key: key, Msg: fmt.Sprintf(format, a...)}
	}
	if c.Seeds < 1 {
		return bad("seeds", "%d, want the number of seeded runs per configuration (>= 1)", c.Seeds)
	}
	if c.FirstSeed < 0 {
		return bad("first_seed", "%d, want a run seed >= 0 (or leave it out for 1)", c.FirstSeed)
	}
	if err := c.checkSize(); err != nil {
		return err
	}
	if len(c.Instances) == 0 {
		return bad("instance", "no [[instance]] table: give at least one bandit instance")
	}
	if len(c.Algorithms) == 0 {
		return bad("algorithm", "no [[algorithm]] table: give at least one algorithm")
	}
	// An explicit empty list is not an absent key: it has no value to run
	// (R4-09, R4-25: relation = [] took the default, M = [] read as 0).
	for _, k := range []string{"eps", "delta", "M", "B", "T", "alpha", "relation", "noise"} {
		if v, ok := c.lookup("grid", k); ok {
			if l, isList := v.([]any); isList && len(l) == 0 {
				return bad("grid."+k, "an empty list: give at least one value (or leave the key out where it has a default)")
			}
		}
	}
	for i := range c.Algorithms {
		for _, k := range []string{"eps", "delta"} {
			if v, ok := c.lookup("algorithm", i, k); ok {
				if l, isList := v.([]any); isList && len(l) == 0 {
					return bad(fmt.Sprintf("algorithm[%d].%s", i, k), "an empty list: give at least one value (or leave the key out for the grid's)")
				}
			}
		}
	}
	g := c.Grid
	// Every family has a horizon; whether M and B may be absent is the
	// family's rule (its Compile).
	if len(g.T) == 0 {
		return bad("grid.T", "missing: give a list of values, e.g. T = [25]")
	}
	for i, a := range c.Algorithms {
		key := fmt.Sprintf("algorithm[%d]", i)
		alg, err := registry.Lookup(a.Name)
		if err != nil {
			return bad(key+".name", "%v", err)
		}
		for _, k := range []string{"protocol", "lazy", "preset"} {
			if c.isSet("algorithm", i, k) && !alg.UsesKey(k) {
				return bad(key+"."+k, "%s does not use %s: remove it from this algorithm", a.Name, k)
			}
		}
		private := alg.Private()
		if !private && (len(a.Eps) > 0 || len(a.Delta) > 0) {
			return bad(key+".eps", "%s is not private: remove eps and delta from this algorithm", a.Name)
		}
		if private && len(a.Delta) > 0 && !alg.UsesKey("delta") {
			// Its own list would be dropped without a word (W10).
			return bad(key+".delta", "%s does not use delta (its guarantee is pure eps-DP): remove delta from this algorithm", a.Name)
		}
		if private {
			if len(a.Eps) == 0 && len(g.Eps) == 0 {
				return bad("grid.eps", "missing: %s (%s) is private and needs eps values", key, a.Name)
			}
			if len(a.Delta) == 0 && len(g.Delta) == 0 && alg.UsesKey("delta") {
				return bad("grid.delta", "missing: %s (%s) is private and needs delta values", key, a.Name)
			}
		}
	}
	if c.isSet("advanced", "reward") && len(c.Advanced.Reward) != 2 {
		return bad("advanced.reward", "%v, want [lo, hi]", c.Advanced.Reward)
	}
	names := map[string]int{}
	for i, in := range c.Instances {
		key := fmt.Sprintf("instance[%d]", i)
		if j, dup := names[in.Name]; dup {
			return bad(key+".name", "%q already names instance[%d]", in.Name, j)
		}
		names[in.Name] = i
		if in.inst == nil {
			return bad(key, "not decoded by its kind (a Config comes from ParseConfig or LoadConfig)")
		}
		for j, m := range c.Grid.M {
			if err := in.inst.CheckM(m); err != nil {
				return &KeyError{Key: fmt.Sprintf("grid.M[%d]", j), Msg: fmt.Sprintf("%v (%s)", err, key)}
			}
		}
	}
	// An algorithm runs on the instance kinds of its own family.
	for i, in := range c.Instances {
		kind, err := registry.LookupKind(in.inst.Kind())
		if err != nil {
			return bad(fmt.Sprintf("instance[%d].kind", i), "%v", err)
		}
		for j, a := range c.Algorithms {
			if alg, err := registry.Lookup(a.Name); err == nil && alg.Family != kind.Family {
				return bad(fmt.Sprintf("algorithm[%d].name", j), "%s is of the %s family: it cannot run on instance[%d] (kind %q, of the %s family)", a.Name, alg.Family, i, kind.Name, kind.Family)
			}
		}
	}
	// The rules of a run (values, ranges, combinations) are the spec's:
	// every configuration of the grid is checked by them.
	return c.validatePoints()
}
