// Package registry is what sits above the bandit families: every
// algorithm (its family, trust model, own parameters and the generic keys
// it uses) and every instance kind (its keys, validation and the data it
// loads). The runner, its plans and grid expansion, validation messages,
// labels and legends, help texts and docs consult this package alone; a
// family plugs in by adding entries (docs/extending.md).
//
// The layering keeps imports one-way: core holds the contract every family
// implements, the families (federate, and mab and bco) implement it, and
// this package imports them to list them.
package registry

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/suggest"
	"github.com/fedbandit/fedbandit/outputs"
)

// Families.
const (
	FamilyLinear = "linear" // federated linear contextual bandits (package federate)
	FamilyMAB    = "mab"    // distributed-DP multi-armed bandits (package mab)
	FamilyBCO    = "bco"    // locally private bandit convex optimisation (package bco)
)

// Algorithm is one algorithm of any family as sweep files, plans, labels,
// help texts and docs see it.
type Algorithm struct {
	// Name is its name in sweep files and the output tables, e.g. "ldp".
	Name string
	// Display is its name in plots and summaries, e.g. "LDP-FedLinUCB".
	Display string
	// Summary is one line for help texts and docs.
	Summary string
	// Family is FamilyLinear, FamilyMAB or FamilyBCO.
	Family string
	// Trust is who must be trusted with users' raw data (core.TrustNone,
	// core.TrustCentral, core.TrustLocal, core.TrustShuffle,
	// core.TrustDistributed).
	Trust string
	// Params are its own parameters, set under its [[algorithm]] table:
	// key, doc, default, range. An absent key takes the default; an
	// explicit value is checked and never replaced.
	Params []core.Param
	// Uses lists the generic keys (its family's GenericKeys) that change
	// its runs. A grid over any other generic key plans its runs once.
	Uses []string
	// NewRun plays one run of a family-neutral spec on its loaded
	// instance (spec.Loaded; a spec without one, a library caller's, is
	// loaded first: RunSpec.Load). The linear family's runs go through the
	// runner's linear specs (their ids are pinned); NewRun is the way a
	// library caller, or a new family, runs one.
	NewRun func(ctx context.Context, spec RunSpec) (*core.Result, error)
	// Check reports a compiled spec NewRun would refuse, by the family's
	// own rules, without running it (the linear family: its noise cannot
	// be calibrated), on its loaded instance as NewRun. The planner calls
	// it once per configuration.
	Check func(spec RunSpec) error

	// The run model every family implements (run.go): the runner plans,
	// names, prices, pilots and records every run through these alone.

	// Compile completes a run spec by the family's rules: its defaults
	// filled in, the keys the algorithm does not use cleared (a grid over
	// them plans one run), every value checked (an error is a *FieldError
	// naming the key). It may set Native, the family's own spec. A spec
	// without a loaded instance but with its decoded one (Decoded) is
	// checked as far as it can be without the data.
	Compile func(spec RunSpec) (RunSpec, error)
	// ID is the identity of a compiled run spec, a hex SHA-256 that
	// covers the spec, its instance's content hash and SemanticsVersion
	// (stable across versions: runner.TestRunIDsPinned).
	ID func(spec RunSpec) (string, error)
	// Cost is the family's cost model of a compiled run: work in its own
	// unit, memory, cost class.
	Cost func(spec RunSpec) Cost
	// Pilot returns a run of spec's cost class that does at most about
	// work units of its Cost (a pilot timing the class: seconds, and
	// memory no more than the run's).
	Pilot func(spec RunSpec, work float64) RunSpec
	// Record fills the family's own settings columns of a run's
	// runs.arrow row before it runs (the linear family's learner,
	// protocol and clamp; nil: the family has none beyond the shared
	// header).
	Record func(spec RunSpec, rec *outputs.RunRecord)
	// Result checks a finished run's family-specific results and fills
	// their columns of its runs.arrow row (privacy claim, calibration).
	Result func(spec RunSpec, res *core.Result, rec *outputs.RunRecord) error
	// Stream is the capability of runs that can share their input
	// stream (nil: none).
	Stream *Stream
}

// RunSpec is a family-neutral run specification: the header every family
// reads, the algorithm's own parameters and the instance's decoded table.
// Its field names (and the parameters' keys) are encoded in the run ids
// of the mab and bco families (neutralID; the linear family hashes its
// federate.Spec, LinearRunID):
// renaming a field changes every such id (runner.TestRunIDsPinned).
type RunSpec struct {
	Algorithm string // a registered algorithm
	Instance  string // a registered instance kind
	Seed      uint64 // run seed: every random stream of the run derives from it
	T, M, B   int    // rounds, silos (or users per round), batch size
	Every     int    // checkpoint spacing in rounds (0: absent, until Compile sets the family's default; CheckpointEvery)
	// M and B of a bco run: 0 is absent (1). The mab family uses neither.
	Eps   float64
	Delta float64
	// Params are the algorithm's own parameters by key (absent: default).
	Params map[string]float64
	// Table is the [[instance]] table as decoded from TOML (without name
	// and kind); Dir resolves its relative paths.
	Table map[string]any
	Dir   string
	// Settings of the linear family's learners, protocols and clamp
	// (the sweep file's lazy, protocol, preset, grid.relation,
	// grid.alpha, grid.noise and [advanced] keys): zero when absent; a
	// family that does not use one clears it, so that it is left out of
	// its run ids.
	Protocol  string  `json:",omitempty"`
	Preset    string  `json:",omitempty"`
	Lazy      bool    `json:",omitempty"`
	Relation  string  `json:",omitempty"`
	Alpha     float64 `json:",omitempty"`
	Noise     string  `json:",omitempty"`
	R         float64 `json:",omitempty"`
	Crs       float64 `json:",omitempty"`
	GramNoise string  `json:",omitempty"`
	RewardLo  float64 `json:",omitempty"`
	RewardHi  float64 `json:",omitempty"`
	NoClip    bool    `json:",omitempty"`
	// Set lists the keys the sweep file sets explicitly ("lazy",
	// "no_clip", "alpha", "reward", "checkpoint_every", "M", "B", ...):
	// an absent one takes its family's default, a set one is kept, 0
	// included.
	Set []string `json:"-"`
	// Loaded is the instance as its kind loaded it, once per plan, shared
	// read-only by the plan's runs (nil: Table is decoded and loaded by
	// the run, RunSpec.Load). Never part of a run id.
	Loaded *Loaded `json:"-"`
	// Decoded is the instance as its kind decoded it, without data: what
	// a sweep file's check before planning has (nil otherwise).
	Decoded Instance `json:"-"`
	// Native is the run as its family compiled it (Algorithm.Compile):
	// the family's own spec, if it keeps one.
	Native any `json:"-"`
}

// UsesKey reports whether the generic key changes the algorithm's runs.
func (a *Algorithm) UsesKey(key string) bool { return slices.Contains(a.Uses, key) }

// Private reports whether the algorithm's releases carry privacy noise.
func (a *Algorithm) Private() bool { return a.Trust != core.TrustNone }

// Param returns the declaration of the algorithm's parameter key.
func (a *Algorithm) Param(key string) (core.Param, bool) {
	i := slices.IndexFunc(a.Params, func(p core.Param) bool { return p.Key == key })
	if i < 0 {
		return core.Param{}, false
	}
	return a.Params[i], true
}

// ParamKeys returns the keys of its own parameters, in declaration order.
func (a *Algorithm) ParamKeys() []string {
	keys := make([]string, len(a.Params))
	for i, p := range a.Params {
		keys[i] = p.Key
	}
	return keys
}

// algorithms lists every family's entries, in display order (the linear
// family's order is its own list's). A parameter key given two meanings
// stops the program at start-up (oneMeaning).
var algorithms = mustOneMeaning(slices.Concat(linearAlgorithms(), mabAlgorithms(), bcoAlgorithms()))

// The tables of this build record its simulator semantics and have a
// param_<key> column for every parameter of every algorithm here
// (outputs.RegisterRelease).
func init() { outputs.RegisterRelease(SemanticsVersion, releaseParams(algorithms)) }

// releaseParams lists every parameter key of algs once, with its one
// meaning (oneMeaning) and the algorithms that take it, in display order.
func releaseParams(algs []*Algorithm) []outputs.Param {
	var out []outputs.Param
	at := map[string]int{}
	for _, a := range algs {
		for _, p := range a.Params {
			i, ok := at[p.Key]
			if !ok {
				at[p.Key], i = len(out), len(out)
				out = append(out, outputs.Param{Key: p.Key, Doc: p.Doc})
			}
			if out[i].Algorithms != "" {
				out[i].Algorithms += ", "
			}
			out[i].Algorithms += a.Name
		}
	}
	return out
}

// mustOneMeaning returns algs, or panics with oneMeaning's error: two
// meanings for one key is a programming error of the entries, found
// before any sweep file is read.
func mustOneMeaning(algs []*Algorithm) []*Algorithm {
	if err := oneMeaning(algs); err != nil {
		panic("registry: " + err.Error())
	}
	return algs
}

// oneMeaning returns an error naming the key and both algorithms when two
// algorithms declare one parameter key with different meanings
// (core.Param.SameMeaning): the key's param_<key> column, its legend and
// its help line would otherwise mean two quantities.
func oneMeaning(algs []*Algorithm) error {
	first := map[string]*Algorithm{}
	for _, a := range algs {
		for _, p := range a.Params {
			f, ok := first[p.Key]
			if !ok {
				first[p.Key] = a
				continue
			}
			if q, _ := f.Param(p.Key); !q.SameMeaning(p) {
				return fmt.Errorf("parameter %q has two meanings: %s declares %q (integer %v), %s declares %q (integer %v); "+
					"give the second quantity a key of its own", p.Key, f.Name, q.Doc, q.Integer, a.Name, p.Doc, p.Integer)
			}
		}
	}
	return nil
}

// Algorithms returns every registered algorithm, in display order. The
// entries are shared: do not modify them.
func Algorithms() []*Algorithm { return algorithms }

// Names returns the registered algorithm names, in display order.
func Names() []string {
	names := make([]string, len(algorithms))
	for i, a := range algorithms {
		names[i] = a.Name
	}
	return names
}

// Lookup returns the algorithm called name, or an error listing the
// registered names and proposing the nearest ("did you mean").
func Lookup(name string) (*Algorithm, error) {
	for _, a := range algorithms {
		if a.Name == name {
			return a, nil
		}
	}
	if name == "" {
		return nil, fmt.Errorf("no algorithm given: want one of %s", quoteList(Names()))
	}
	return nil, fmt.Errorf("unknown algorithm %q: want one of %s%s", name, quoteList(Names()), suggest.DidYouMean(name, Names()))
}

// Display returns the display name of the algorithm called name (the name
// itself if it is not registered).
func Display(name string) string {
	if a, err := Lookup(name); err == nil {
		return a.Display
	}
	return name
}

// Order returns the display position of the algorithm called name (after
// every registered one if it is not registered).
func Order(name string) int {
	if i := slices.IndexFunc(algorithms, func(a *Algorithm) bool { return a.Name == name }); i >= 0 {
		return i
	}
	return len(algorithms)
}

func quoteList(v []string) string {
	q := make([]string, len(v))
	for i, s := range v {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
