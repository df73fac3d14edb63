package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/federate/accountant"
	"github.com/fedbandit/fedbandit/ltr"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
)

// BuildLTRFunc builds a learning-to-rank instance; ltr.Build by default.
type BuildLTRFunc func(ltr.Options) (*federate.LTRData, error)

// Instance is a bandit instance of a plan, built once and shared read-only
// by all its runs.
type Instance struct {
	Config InstanceConfig
	// M is the number of silos an ltr instance is partitioned for (0 for
	// synthetic instances, which do not depend on M).
	M int
	// Data is the ltr instance (nil for synthetic).
	Data *federate.LTRData
	// Hash is the instance's content hash (ltr: Data.Hash; synthetic:
	// SHA-256 of its parameters).
	Hash string
	// Name describes the instance.
	Name string
	// Actions is the mean number of actions per round (K, or the mean
	// number of documents per query) and Dim the learner's dimension; both
	// feed the cost model.
	Actions float64
	Dim     int
	// Bytes is the memory held by the shared data.
	Bytes int64

	// loaded is the instance as its kind built it.
	loaded *registry.Loaded
}

// Run is one planned simulation.
type Run struct {
	// ID is the run identity: hex SHA-256 of the canonical encoding of the
	// full specification (defaults filled in), the instance content hash
	// and SemanticsVersion.
	ID string
	// GroupID and Group identify the configuration without the seed.
	GroupID, Group string
	Instance       *Instance
	// Spec is the complete specification (LTR data attached) of a run of
	// the linear family (zero for the others).
	Spec federate.Spec
	// Generic is the run spec of a run of another family (mab, bco),
	// nil for the linear family's runs (generic.go).
	Generic *registry.RunSpec
}

// Rounds returns the run's horizon T.
func (r *Run) Rounds() int {
	if r.Generic != nil {
		return r.Generic.T
	}
	return r.Spec.T
}

// Checkpoints returns the number of points of the run's curve: every
// `every` rounds and the last (registry.DefaultEvery when a run of
// another family leaves every to its default).
func (r *Run) Checkpoints() int {
	every := r.Spec.Every
	if r.Generic != nil {
		every = r.Generic.Every
		if every == 0 {
			every = registry.DefaultEvery(r.Generic.T)
		}
	}
	return r.Rounds()/max(every, 1) + 1
}

// CollectMemory estimates the peak memory of collecting the plan's
// tables (`run collect`, the end of a sweep, the Slurm collect job):
// outputs.CollectMemory of its runs and their longest curve.
func (p *Plan) CollectMemory() int64 {
	points := 0
	for _, r := range p.Runs {
		points = max(points, r.Checkpoints())
	}
	return outputs.CollectMemory(len(p.Runs), points)
}

// Silos returns the run's number of silos M (at least 1).
func (r *Run) Silos() int {
	if r.Generic != nil {
		return max(r.Generic.M, 1)
	}
	return r.Spec.M
}

// Seed returns the run's seed.
func (r *Run) Seed() uint64 {
	if r.Generic != nil {
		return r.Generic.Seed
	}
	return r.Spec.Seed
}

// Plan is the deterministic expansion of a sweep: its runs sorted by id
// (a stable order, so that a shard i/n is runs[j] for j mod n == i).
type Plan struct {
	Config    *Config
	Runs      []Run
	Instances []*Instance

	// cpu and now are the clocks of MeasureRates' pilots: the calling
	// thread's CPU time (ok false where the platform does not report it)
	// and the wall clock. nil means threadCPU and time.Now; tests set
	// them.
	cpu func() (time.Duration, bool)
	now func() time.Time
}

// threadCPU reads the pilots' CPU-time clock (p.cpu, else threadCPU).
func (p *Plan) threadCPU() (time.Duration, bool) {
	if p.cpu != nil {
		return p.cpu()
	}
	return threadCPU()
}

// wallNow reads the pilots' wall clock (p.now, else time.Now).
func (p *Plan) wallNow() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

// IgnoredKeys returns, per algorithm table of the sweep (algorithm[i]),
// the generic keys the file sets that the algorithm does not use
// (registry.Algorithm.Uses): its runs are planned once whatever their
// values. `run plan` prints them.
func (c *Config) IgnoredKeys() map[int][]string {
	out := map[int][]string{}
	for i, a := range c.Algorithms {
		alg, err := registry.Lookup(a.Name)
		if err != nil {
			continue
		}
		for _, k := range []struct {
			name string
			path []any
		}{
			{"eps", []any{"grid", "eps"}}, {"delta", []any{"grid", "delta"}}, {"relation", []any{"grid", "relation"}},
			{"alpha", []any{"grid", "alpha"}}, {"R", []any{"advanced", "R"}}, {"crs", []any{"advanced", "crs"}},
			{"gram_noise", []any{"advanced", "gram_noise"}}, {"noise", []any{"grid", "noise"}}, {"B", []any{"grid", "B"}},
		} {
			if !alg.UsesKey(k.name) && c.isSet(k.path...) {
				out[i] = append(out[i], fmt.Sprintf("%s.%s", k.path[0], k.path[1]))
			}
		}
	}
	return out
}

// NewPlan expands a validated configuration. Each distinct ltr instance
// (dataset, features, model, partition, M) is built once with build (nil:
// ltr.Build). Runs with identical specifications (e.g. FedLinUCB under
// several eps values) appear once.
func NewPlan(c *Config, build BuildLTRFunc) (*Plan, error) {
	if build == nil {
		build = ltr.Build
	}
	p := &Plan{Config: c}
	seen := map[string]bool{}
	calibrated := map[string]bool{}          // group ids whose noise calibration succeeded
	shared := map[string]*federate.LTRData{} // by dataset, features, model, noise: see shareQueries
	instFor := make([]func(m int) (*Instance, error), len(c.Instances))
	for ii, ic := range c.Instances {
		insts := map[int]*Instance{} // by M
		instFor[ii] = func(m int) (*Instance, error) {
			if !ic.inst.PerM() {
				m = 0
			}
			if in := insts[m]; in != nil {
				return in, nil
			}
			loaded, err := ic.inst.Load(m, registry.Env{BuildLTR: build})
			if err != nil {
				return nil, fmt.Errorf("instance[%d] (%s), M = %d: %w", ii, ic.Name, m, err)
			}
			in := &Instance{Config: ic, M: m, Data: loaded.LTR, Hash: loaded.Hash, Name: loaded.Name,
				Actions: loaded.Actions, Dim: loaded.Dim, Bytes: loaded.Bytes, loaded: loaded}
			if key := ic.inst.ShareKey(); key != "" && in.Data != nil {
				if first := shared[key]; first == nil {
					shared[key] = in.Data
				} else if shareQueries(first, in.Data) {
					in.Bytes = 0 // counted once, with the first instance
				}
			}
			insts[m] = in
			p.Instances = append(p.Instances, in)
			return in, nil
		}
	}
	err := c.points(func(pt *point) error {
		ic := c.Instances[pt.inst]
		in, err := instFor[pt.inst](pt.spec.M)
		if err != nil {
			return err
		}
		for s := 0; s < c.Seeds; s++ {
			spec := pt.spec
			spec.Seed = uint64(c.FirstSeed) + uint64(s)
			r, err := NewRun(spec, in)
			if err != nil {
				return pt.keyError(err)
			}
			// Calibrate every configuration now, so that a sweep whose
			// noise cannot be calibrated fails here, not run by run at
			// execution.
			if !calibrated[r.GroupID] {
				if _, err := accountant.Calibrate(r.Spec.Request()); err != nil {
					return &KeyError{Key: fmt.Sprintf("algorithm[%d]", pt.alg),
						Msg: fmt.Sprintf("%s cannot be calibrated at eps = %g, delta = %g, M = %d, B = %d, T = %d (instance %s): %v",
							spec.Algorithm, spec.Eps, spec.Delta, spec.M, spec.B, spec.T, ic.Name, err)}
				}
				calibrated[r.GroupID] = true
			}
			if !seen[r.ID] {
				seen[r.ID] = true
				p.Runs = append(p.Runs, r)
			}
		}
		return nil
	})
	if err == nil {
		err = c.genericPoints(func(pt *genericPoint) error {
			in, err := instFor[pt.inst](0)
			if err != nil {
				return err
			}
			for s := 0; s < c.Seeds; s++ {
				spec := pt.spec
				spec.Seed = uint64(c.FirstSeed) + uint64(s)
				r, err := newGenericRun(spec, in)
				if err != nil {
					return err
				}
				if !seen[r.ID] {
					seen[r.ID] = true
					p.Runs = append(p.Runs, r)
				}
			}
			return nil
		})
	}
	if err != nil {
		var ke *KeyError
		// A KeyError of the plan names the sweep file, as ParseConfig's do.
		if errors.As(err, &ke) && ke.File == "" {
			ke.File = c.path
		}
		return nil, err
	}
	sort.Slice(p.Runs, func(i, j int) bool { return p.Runs[i].ID < p.Runs[j].ID })
	return p, nil
}

// shareQueries makes data use the query slice of first when their
// documents are identical (the same dataset split for another M), so that
// a grid over M holds the dataset in memory once. It reports whether it
// did.
func shareQueries(first, data *federate.LTRData) bool {
	if first.Dim != data.Dim || len(first.Queries) != len(data.Queries) {
		return false
	}
	for i := range first.Queries {
		a, b := first.Queries[i], data.Queries[i]
		if !slices.Equal(a.X, b.X) || !slices.Equal(a.Mu, b.Mu) {
			return false
		}
	}
	data.ShareQueries(first)
	return true
}

func or(a, b []float64) []float64 {
	if len(a) > 0 {
		return a
	}
	return b
}

// NewRun completes spec (instance, defaults, canonical form) and computes
// its identity. For a non-private algorithm eps, delta and the relation do
// not affect the run and are cleared, so that a grid over them yields one
// FedLinUCB run.
func NewRun(spec federate.Spec, in *Instance) (Run, error) {
	in.loaded.Linear(&spec)
	if _, err := registry.Lookup(spec.Algorithm); err != nil {
		return Run{}, err
	}
	spec = spec.Canonical().WithDefaults()
	if err := spec.Validate(); err != nil {
		return Run{}, fmt.Errorf("run %s: %w", describe(spec, in), err)
	}
	id, err := RunID(spec, in.Hash)
	if err != nil {
		return Run{}, err
	}
	noSeed := spec
	noSeed.Seed = 0
	gid, err := RunID(noSeed, in.Hash)
	if err != nil {
		return Run{}, err
	}
	return Run{ID: id, GroupID: gid[:16], Group: describe(spec, in), Instance: in, Spec: spec}, nil
}

// SemanticsVersion is the version of what determines a run's result
// beyond its spec and instance: the simulator's semantics. It is hashed
// into every run id; bump it only when the same spec would now compute
// different results, which orphans every finished run. The table layout
// (outputs.FormatVersion) is not part of the id: a new column orphans
// nothing.
const SemanticsVersion = 1

// RunID returns the identity of a run: the hex SHA-256 of a canonical
// encoding of the spec (call on spec.WithDefaults(); the LTR data is
// represented by instanceHash and never encoded itself), the instance
// content hash and SemanticsVersion. The encoding is JSON of the Spec
// struct (fields in declaration order with pinned names, floats in Go's
// shortest round-trip form). New Spec fields are omitempty, so a field at
// its zero value (the behaviour before it existed) changes no id, while
// any other value gives a new one; an intentional change of identity
// bumps SemanticsVersion, which `run plan` prints. TestRunIDsPinned pins
// the ids of the shipped sweeps.
func RunID(spec federate.Spec, instanceHash string) (string, error) {
	spec.LTR = nil
	spec.Calib = nil
	b, err := json.Marshal(struct {
		Domain       string
		Format       int // named when the layout was hashed; the name is encoded, so it stays
		InstanceHash string
		Spec         federate.Spec
	}{"fedbandit/run", SemanticsVersion, instanceHash, spec})
	if err != nil {
		return "", fmt.Errorf("encode run spec: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// describe is the group label of a spec (everything but the seed): the
// one label of a configuration, registry.Label.
func describe(s federate.Spec, in *Instance) string {
	return registry.Label(registry.FromSpec(s, in.Config.Name, in.Name))
}

// Record returns the run's row of runs.arrow with the specification
// filled in (results are added by the sweep).
func (r *Run) Record(sweep string) outputs.RunRecord {
	if r.Generic != nil {
		return r.genericRecord(sweep)
	}
	s := r.Spec
	ic := r.Instance.Config
	rec := outputs.RunRecord{
		RunID: r.ID, FormatVersion: outputs.FormatVersion, Sweep: sweep,
		Group: r.Group, GroupID: r.GroupID,
		Instance: ic.Name, InstanceKind: ic.Kind, InstanceHash: r.Instance.Hash, InstanceName: r.Instance.Name,
		Dim:       outputs.Some(r.Instance.Dim),
		Algorithm: s.Algorithm, Params: recordedParams(s.Params),
		M: outputs.Some(s.M), T: s.T, B: outputs.Some(s.B), Every: s.Every, Seed: s.Seed,
		Linear: &outputs.LinearSettings{Protocol: s.Protocol, Lazy: s.Lazy, Preset: s.Preset, Alpha: s.Alpha,
			R: s.R, Crs: s.Crs, GramNoise: s.GramNoise, RewardLo: s.RewardLo, RewardHi: s.RewardHi, NoClip: s.NoClip},
	}
	if a, err := registry.Lookup(s.Algorithm); err == nil {
		rec.Family, rec.Trust = a.Family, a.Trust
		recordTargets(&rec, a, s.Eps, s.Delta)
	}
	ic.inst.Record(&rec)
	return rec
}

// recordTargets records the privacy targets an algorithm takes (null
// for the others).
func recordTargets(rec *outputs.RunRecord, a *registry.Algorithm, eps, delta float64) {
	if a.UsesKey("eps") {
		rec.Eps = outputs.Some(eps)
	}
	if a.UsesKey("delta") {
		rec.Delta = outputs.Some(delta)
	}
}

// recordedParams is what runs.arrow records of an algorithm's own
// parameters: an empty map, never nil, for one without parameters (nil
// means "not recorded", which only layout-1 rows are).
func recordedParams(p map[string]float64) map[string]float64 {
	if p == nil {
		return map[string]float64{}
	}
	return p
}
