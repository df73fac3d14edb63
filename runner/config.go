package runner

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/federate/accountant"
	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/lasso"
	"github.com/fedbandit/fedbandit/partition"
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
	// FirstSeed is the first run seed (default 1).
	FirstSeed uint64 `toml:"first_seed"`
	// CheckpointEvery is the spacing of the recorded curve in rounds
	// (default: B of each run). The last round is always recorded.
	CheckpointEvery int `toml:"checkpoint_every"`
	// Instances are the bandit instances (at least one).
	Instances []InstanceConfig `toml:"instance"`
	// Algorithms are the algorithms (at least one).
	Algorithms []AlgorithmConfig `toml:"algorithm"`
	// Grid holds the parameter lists whose product is swept.
	Grid Grid `toml:"grid"`
	// Advanced holds rarely changed simulator settings.
	Advanced Advanced `toml:"advanced"`

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

// DefaultNoiseVar is the variance of the synthetic instance's reward noise
// when the sweep file does not set noise_var: 0.25, the paper's.
const DefaultNoiseVar = 0.25

// isSet reports whether the sweep file sets the key at path, e.g.
// ("instance", 0, "d") or ("advanced", "crs").
func (c *Config) isSet(path ...any) bool {
	var cur any = c.tree
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				return false
			}
			if cur, ok = m[k]; !ok {
				return false
			}
		case int:
			l, ok := cur.([]map[string]any)
			if !ok || k >= len(l) {
				return false
			}
			cur = l[k]
		}
	}
	return true
}

// InstanceConfig is one [[instance]] table.
type InstanceConfig struct {
	// Name labels the instance (default "instance<i>").
	Name string `toml:"name"`
	// Kind is "synthetic" or "ltr".
	Kind string `toml:"kind"`

	// D and K (synthetic): dimension and actions per silo per round
	// (default 10 and 100, the paper's; a value given is validated as
	// given: d >= 2, k >= 1).
	D int `toml:"d"`
	K int `toml:"k"`
	// NoiseVar is the variance of the Gaussian reward noise (synthetic:
	// default 0.25, the paper's; ltr: only with the well-specified model).
	NoiseVar float64 `toml:"noise_var"`
	// FixedBasis (synthetic): the published code's fixed first d actions.
	FixedBasis bool `toml:"fixed_basis"`
	// Seed (synthetic) draws theta* (and shared contexts); it is separate
	// from the run seeds so that many runs share one instance.
	Seed uint64 `toml:"seed"`
	// SharedContexts (synthetic): draw contexts from the instance seed, so
	// runs differ only in reward and privacy noise (the published code).
	SharedContexts bool `toml:"shared_contexts"`
	// ContextGen (synthetic) is the generator of the contexts' Gaussian
	// coordinates: "xoshiro-ziggurat" (default, fast), "chacha8", or
	// "numpy-mt19937": the published code's instance exactly (numpy's
	// legacy stream seeded with seed; needs fixed_basis and
	// shared_contexts; seed = 2 is the paper's).
	ContextGen string `toml:"context_gen"`
	// Theta (synthetic) gives theta* itself (d values) instead of the one
	// the seed draws.
	Theta []float64 `toml:"theta"`
	// Link (synthetic) is the reward model: "identity" (default: mean
	// x.theta* plus Gaussian noise) or "logistic" (mean
	// 1/(1+exp(-x.theta*)), Bernoulli rewards; noise_var then defaults to
	// 0, and ldp-linucb uses its generalized-linear variant).
	Link string `toml:"link"`

	// Dataset (ltr) is a dataset directory prepared with `prep` (ingest,
	// fit, partition). Relative paths are relative to the sweep file;
	// $VARIABLES are expanded.
	Dataset string `toml:"dataset"`
	// Features (ltr) is the feature set used with `prep fit` (title, body,
	// all or a column list).
	Features string `toml:"features"`
	// Model (ltr) is the reward model: "reference" (default) or
	// "well-specified".
	Model string `toml:"model"`
	// Strategy (ltr) is the partition strategy (default "contiguous").
	Strategy string `toml:"strategy"`
	// PartitionSeed (ltr) seeds the "random" strategy.
	PartitionSeed uint64 `toml:"partition_seed"`
	// ThetaFile (ltr) names the theta artifact in DATASET/instances (e.g.
	// "all-reference-a0.0001") when the dataset holds several for the
	// feature set and model; empty: the only one.
	ThetaFile string `toml:"theta_file"`
}

// AlgorithmConfig is one [[algorithm]] table.
type AlgorithmConfig struct {
	// Name is a registered algorithm (federate.Algorithms): "fedlinucb",
	// "ldp", "sdp-amp", "feducb" or "random".
	Name string `toml:"name"`
	// Preset is "exact" (default), "paper" or "reference-code".
	Preset string `toml:"preset"`
	// Protocol is "P" or "P_alt" (default: the algorithm's first, P for
	// all but feducb).
	Protocol string `toml:"protocol"`
	// Lazy selects paper Algorithm 8 (default: true for private
	// algorithms under exact and paper, except feducb, whose schedule
	// needs the eager learner).
	Lazy bool `toml:"lazy"`
	// SyncThreshold is FedUCB's log-det threshold D (default T ln(MT)/(dM)).
	SyncThreshold float64 `toml:"sync_threshold"`
	// Eps and Delta, when set, replace grid.eps and grid.delta for this
	// algorithm (e.g. SDP-amp at smaller eps than LDP).
	Eps   []float64 `toml:"eps"`
	Delta []float64 `toml:"delta"`
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
	Alpha    []float64 `toml:"alpha"`    // default [0.01]
	Relation []string  `toml:"relation"` // default ["add-remove"]
}

// Advanced holds simulator settings that the paper's experiments leave at
// their defaults.
type Advanced struct {
	// R and Crs override the beta_t constants (0: instance default).
	R   float64 `toml:"R"`
	Crs float64 `toml:"crs"`
	// GramNoise is "symmetrised" (default) or "upper-iid".
	GramNoise string `toml:"gram_noise"`
	// Reward clamps observed rewards to [lo, hi] (default [0, 1]).
	Reward []float64 `toml:"reward"`
	// NoClip disables the reward clamp. Default: false (clamp), except for
	// algorithms under the reference-code preset, which reproduces the
	// published code and so does not clamp. A private run without the
	// clamp is recorded as not certified.
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
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return nil, &KeyError{Key: keys[0], Msg: fmt.Sprintf("unknown key (all unknown: %s)", strings.Join(keys, ", "))}
	}
	if err := toml.Unmarshal(raw, &c.tree); err != nil {
		return nil, err
	}
	c.applyDefaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// Raw returns the bytes the configuration was parsed from.
func (c *Config) Raw() []byte { return c.raw }

func (c *Config) applyDefaults() {
	if c.FirstSeed == 0 {
		c.FirstSeed = 1
	}
	if len(c.Grid.Alpha) == 0 {
		c.Grid.Alpha = []float64{federate.DefaultAlpha}
	}
	if len(c.Grid.Relation) == 0 {
		c.Grid.Relation = []string{accountant.AddRemove}
	}
	for i := range c.Instances {
		in := &c.Instances[i]
		if in.Name == "" {
			in.Name = fmt.Sprintf("instance%d", i)
		}
		switch in.Kind {
		case federate.InstanceSynthetic:
			if !c.isSet("instance", i, "d") {
				in.D = federate.DefaultD
			}
			if !c.isSet("instance", i, "k") {
				in.K = federate.DefaultK
			}
			if !c.isSet("instance", i, "noise_var") && in.Link != federate.LinkLogistic {
				in.NoiseVar = DefaultNoiseVar
			}
			if in.ContextGen == "" {
				in.ContextGen = federate.ContextsFast
			}
		case federate.InstanceLTR:
			if in.Model == "" {
				in.Model = lasso.ModelReference
			}
			if in.Strategy == "" {
				in.Strategy = partition.Contiguous
			}
		}
	}
	for i := range c.Algorithms {
		a := &c.Algorithms[i]
		if a.Preset == "" {
			a.Preset = federate.DefaultPreset
		}
		// Certified runs are lazy: a private algorithm under a certifying
		// preset takes the lazy learner unless the file says otherwise
		// (the eager one is recorded as not certified; docs/privacy.md 2.1).
		if alg, err := federate.LookupAlgorithm(a.Name); err == nil && alg.NeedsLazy() &&
			a.Preset != accountant.PresetReferenceCode && !c.isSet("algorithm", i, "lazy") {
			a.Lazy = true
		}
		if a.Protocol == "" {
			a.Protocol = federate.ProtocolP
			if alg, err := federate.LookupAlgorithm(a.Name); err == nil && len(alg.Protocols) > 0 {
				a.Protocol = alg.Protocols[0]
			}
		}
	}
}

// Validate checks every value; the error names the first offending key.
func (c *Config) Validate() error {
	bad := func(key, format string, a ...any) error {
		return &KeyError{Key: key, Msg: fmt.Sprintf(format, a...)}
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if c.Seeds < 1 {
		return bad("seeds", "%d, want the number of seeded runs per configuration (>= 1)", c.Seeds)
	}
	if c.CheckpointEvery < 0 {
		return bad("checkpoint_every", "%d, want >= 1 (or leave it out for every B rounds)", c.CheckpointEvery)
	}
	if len(c.Instances) == 0 {
		return bad("instance", "no [[instance]] table: give at least one bandit instance")
	}
	if len(c.Algorithms) == 0 {
		return bad("algorithm", "no [[algorithm]] table: give at least one algorithm")
	}
	g := c.Grid
	for _, l := range []struct {
		key string
		n   int
	}{{"grid.M", len(g.M)}, {"grid.B", len(g.B)}, {"grid.T", len(g.T)}} {
		if l.n == 0 {
			return bad(l.key, "missing: give a list of values, e.g. %s = [25]", strings.TrimPrefix(l.key, "grid."))
		}
	}
	for i, a := range c.Algorithms {
		key := fmt.Sprintf("algorithm[%d]", i)
		alg, err := federate.LookupAlgorithm(a.Name)
		if err != nil {
			return bad(key+".name", "%v", err)
		}
		if !alg.Learns && (c.isSet("algorithm", i, "protocol") || a.Lazy || c.isSet("algorithm", i, "preset")) {
			return bad(key+".name", "%s has no learner: remove protocol, lazy and preset from this algorithm", a.Name)
		}
		private := alg.Private()
		if !private && (len(a.Eps) > 0 || len(a.Delta) > 0) {
			return bad(key+".eps", "%s is not private: remove eps and delta from this algorithm", a.Name)
		}
		if private {
			if len(a.Eps) == 0 && len(g.Eps) == 0 {
				return bad("grid.eps", "missing: %s (%s) is private and needs eps values", key, a.Name)
			}
			if len(a.Delta) == 0 && len(g.Delta) == 0 {
				return bad("grid.delta", "missing: %s (%s) is private and needs delta values", key, a.Name)
			}
		}
	}
	adv := c.Advanced
	if !finite(adv.R) || adv.R < 0 || (adv.R == 0 && c.isSet("advanced", "R")) {
		return bad("advanced.R", "%v, want a finite value > 0 (or leave it out for the instance default)", adv.R)
	}
	if !finite(adv.Crs) || adv.Crs < 0 || (adv.Crs == 0 && c.isSet("advanced", "crs")) {
		return bad("advanced.crs", "%v, want a finite value > 0 (or leave it out for the instance default)", adv.Crs)
	}
	if len(adv.Reward) != 0 && len(adv.Reward) != 2 {
		return bad("advanced.reward", "%v, want [lo, hi]", adv.Reward)
	}
	names := map[string]int{}
	for i, in := range c.Instances {
		key := fmt.Sprintf("instance[%d]", i)
		if j, dup := names[in.Name]; dup {
			return bad(key+".name", "%q already names instance[%d]", in.Name, j)
		}
		names[in.Name] = i
		if err := c.validateInstance(key, in); err != nil {
			return err
		}
	}
	// The rules of a run (values, ranges, combinations) are the spec's:
	// every configuration of the grid is checked by them.
	return c.validatePoints()
}

func (c *Config) validateInstance(key string, in InstanceConfig) error {
	bad := func(k, format string, a ...any) error {
		return &KeyError{Key: key + "." + k, Msg: fmt.Sprintf(format, a...)}
	}
	if math.IsNaN(in.NoiseVar) || math.IsInf(in.NoiseVar, 0) || in.NoiseVar < 0 {
		return bad("noise_var", "%v, want a finite variance >= 0", in.NoiseVar)
	}
	ltrOnly := map[string]bool{"dataset": in.Dataset != "", "features": in.Features != "", "strategy": in.Strategy != "", "partition_seed": in.PartitionSeed != 0, "theta_file": in.ThetaFile != ""}
	synOnly := map[string]bool{"d": in.D != 0, "k": in.K != 0, "fixed_basis": in.FixedBasis, "seed": in.Seed != 0, "shared_contexts": in.SharedContexts, "context_gen": in.ContextGen != "", "theta": len(in.Theta) > 0, "link": in.Link != ""}
	switch in.Kind {
	case federate.InstanceSynthetic:
		for _, k := range []string{"dataset", "features", "strategy", "partition_seed", "theta_file"} {
			if ltrOnly[k] {
				return bad(k, "only for kind = \"ltr\"")
			}
		}
		if in.Model != "" {
			return bad("model", "only for kind = \"ltr\"")
		}
		// The spec reads 0 as "default"; in a sweep file a key set to 0 is
		// an error (its other values are the spec's to check).
		if in.D == 0 {
			return bad("d", "0, want >= 2 (or leave it out for %d)", federate.DefaultD)
		}
		if in.K == 0 {
			return bad("k", "0 actions, want >= 1 (or leave it out for %d)", federate.DefaultK)
		}
	case federate.InstanceLTR:
		for _, k := range []string{"d", "k", "fixed_basis", "seed", "shared_contexts", "context_gen", "theta", "link"} {
			if synOnly[k] {
				return bad(k, "only for kind = \"synthetic\"")
			}
		}
		if in.Features == "" {
			return bad("features", "missing: the feature set fitted with `prep fit` (title, body, all, ...)")
		}
		if in.Model != lasso.ModelReference && in.Model != lasso.ModelWellSpecified {
			return bad("model", "unknown reward model %q, want %q or %q", in.Model, lasso.ModelReference, lasso.ModelWellSpecified)
		}
		if in.Model == lasso.ModelReference && in.NoiseVar != 0 {
			return bad("noise_var", "%v with the noiseless reference model; use model = %q for noisy rewards", in.NoiseVar, lasso.ModelWellSpecified)
		}
		if !slices.Contains(partition.Strategies, in.Strategy) {
			return bad("strategy", "unknown partition strategy %q, want one of %s", in.Strategy, strings.Join(partition.Strategies, ", "))
		}
		dir, err := c.DatasetDir(in)
		if err != nil {
			return bad("dataset", "%v", err)
		}
		man, err := ingest.ReadManifest(dir)
		if err != nil {
			return bad("dataset", "%s is not a prepared dataset (run `go run ./cmd/prep ingest`): %v", dir, err)
		}
		for i, m := range c.Grid.M {
			if m > man.Queries {
				return &KeyError{Key: fmt.Sprintf("grid.M[%d]", i), Msg: fmt.Sprintf("M = %d silos exceeds the %d queries of %s (%s)", m, man.Queries, key, dir)}
			}
		}
	case "":
		return bad("kind", "missing: want %q or %q", federate.InstanceSynthetic, federate.InstanceLTR)
	default:
		return bad("kind", "unknown instance kind %q, want %q or %q", in.Kind, federate.InstanceSynthetic, federate.InstanceLTR)
	}
	return nil
}

// DatasetDir returns the dataset directory of an ltr instance: $VARIABLES
// expanded, relative paths resolved against the sweep file's directory.
func (c *Config) DatasetDir(in InstanceConfig) (string, error) {
	if in.Dataset == "" {
		return "", errors.New("missing: the directory of a dataset prepared with `prep`")
	}
	var unset []string
	d := os.Expand(in.Dataset, func(name string) string {
		v, ok := os.LookupEnv(name)
		if !ok {
			unset = append(unset, "$"+name)
		}
		return v
	})
	if len(unset) > 0 {
		return "", fmt.Errorf("%q: environment variable %s is not set: set it to your prepared dataset directory", in.Dataset, strings.Join(unset, ", "))
	}
	if d == "" {
		return "", fmt.Errorf("%q expands to an empty path: set the environment variable to your prepared dataset directory", in.Dataset)
	}
	if !filepath.IsAbs(d) && c.dir != "" {
		d = filepath.Join(c.dir, d)
	}
	if st, err := os.Stat(d); err != nil {
		return "", fmt.Errorf("dataset directory: %w", err)
	} else if !st.IsDir() {
		return "", fmt.Errorf("%s is not a directory", d)
	}
	return d, nil
}
