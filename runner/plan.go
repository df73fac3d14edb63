package runner

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
)

// Instance is a bandit instance of a plan, built once and shared read-only
// by all its runs.
type Instance struct {
	Config InstanceConfig
	// M is the number of silos an instance partitioned per M is loaded
	// for (0 for one that does not depend on M, registry.Instance.PerM).
	M int
	// Hash is the instance's content hash (registry.Loaded.Hash).
	Hash string
	// Name describes the instance.
	Name string
	// Actions is the mean number of actions per round (K, arms, or the
	// mean number of documents per query) and Dim the learner's dimension;
	// both feed the cost models.
	Actions float64
	Dim     int
	// Bytes is the memory held by the shared data.
	Bytes int64
	// LoadBytes is the memory loading it held beyond Bytes
	// (registry.Loaded.LoadBytes).
	LoadBytes int64

	// loaded is the instance as its kind built it.
	loaded *registry.Loaded
}

// Run is one planned simulation, of any family.
type Run struct {
	// ID is the run identity (its family's registry.Algorithm.ID): hex
	// SHA-256 of the canonical encoding of the full specification
	// (defaults filled in), the instance content hash and
	// SemanticsVersion.
	ID string
	// GroupID and Group identify the configuration without the seed.
	GroupID, Group string
	Instance       *Instance
	// Spec is the compiled run spec (registry.Algorithm.Compile), its
	// loaded instance attached.
	Spec registry.RunSpec
}

// Rounds returns the run's horizon T.
func (r *Run) Rounds() int { return r.Spec.T }

// Checkpoints returns the number of points of the run's curve: every
// `every` rounds of the compiled spec and the last.
func (r *Run) Checkpoints() int {
	return r.Rounds()/r.Spec.CheckpointEvery() + 1
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
func (r *Run) Silos() int { return max(r.Spec.M, 1) }

// Algorithm returns the name of the run's algorithm.
func (r *Run) Algorithm() string { return r.Spec.Algorithm }

// Seed returns the run's seed.
func (r *Run) Seed() uint64 { return r.Spec.Seed }

// entry returns the run's registry entry (planned runs have one).
func (r *Run) entry() *registry.Algorithm {
	a, err := registry.Lookup(r.Spec.Algorithm)
	if err != nil {
		panic(fmt.Sprintf("run %s: %v", r.ID, err))
	}
	return a
}

// Cost is the run's cost by its family's model.
func (r *Run) Cost() registry.Cost { return r.entry().Cost(r.Spec) }

// Plan is the deterministic expansion of a sweep: its runs sorted by id
// (a stable order, so that a shard i/n is runs[j] for j mod n == i).
type Plan struct {
	Config    *Config
	Runs      []Run
	Instances []*Instance
	// Elapsed is the wall time NewPlan took: loading the instances and
	// checking every configuration (a calibration each, for some
	// families), which a sweep spends again before it runs.
	Elapsed time.Duration
	// PlanCPU is the CPU seconds NewPlan took where its caller measured
	// them (cmd/run: the process's), 0 otherwise: run plan's estimate
	// adds it, as a sweep plans again.
	PlanCPU float64

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
			{"M", []any{"grid", "M"}}, {"reward", []any{"advanced", "reward"}}, {"no_clip", []any{"advanced", "no_clip"}},
		} {
			if !alg.Reads(k.name) && c.isSet(k.path...) {
				out[i] = append(out[i], fmt.Sprintf("%s.%s", k.path[0], k.path[1]))
			}
		}
	}
	return out
}

// NewPlan expands a validated configuration. Each instance is loaded once
// (once per M for an instance partitioned per M, registry.Instance.PerM)
// with env's loaders (the zero Env reads the real data) and shared
// read-only by its runs. Every run, whatever its family, is its
// algorithm's compiled registry.RunSpec, named by its family's ID; every
// configuration is checked once by its family's rules on the loaded
// instance (the linear family: its noise can be calibrated), so that a
// sweep that cannot run fails here, not run by run. Runs with identical
// specifications (e.g. FedLinUCB under several eps values) appear once.
func NewPlan(c *Config, env registry.Env) (*Plan, error) {
	start := time.Now()
	lastProgress := start
	p := &Plan{Config: c}
	seen := map[string]bool{}
	checked := map[string]bool{}            // group ids checked by their family
	shared := map[string]*registry.Loaded{} // by ShareKey: see registry.ShareData
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
			loaded, err := ic.inst.Load(m, env)
			if err != nil {
				var ke *registry.KeyError
				if errors.As(err, &ke) && ke.Key != "" {
					return nil, &KeyError{Key: fmt.Sprintf("instance[%d].%s", ii, ke.Key), Msg: ke.Msg}
				}
				return nil, fmt.Errorf("instance[%d] (%s), M = %d: %w", ii, ic.Name, m, err)
			}
			in := &Instance{Config: ic, M: m, Hash: loaded.Hash, Name: loaded.Name,
				Actions: loaded.Actions, Dim: loaded.Dim, Bytes: loaded.Bytes, LoadBytes: loaded.LoadBytes, loaded: loaded}
			if key := ic.inst.ShareKey(); key != "" {
				if first := shared[key]; first == nil {
					shared[key] = loaded
				} else if registry.ShareData(first, loaded) {
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
		alg, err := registry.Lookup(pt.spec.Algorithm)
		if err != nil {
			return pt.keyError(err)
		}
		rs := pt.spec
		rs.Loaded = in.loaded
		for s := 0; s < c.Seeds; s++ {
			rs.Seed = uint64(c.FirstSeed) + uint64(s)
			r, err := newRun(alg, rs, in)
			if err != nil {
				return pt.keyError(err)
			}
			if !checked[r.GroupID] {
				if err := alg.Check(r.Spec); err != nil {
					err = pt.keyError(err)
					var ke *KeyError
					if errors.As(err, &ke) {
						ke.Msg += fmt.Sprintf(" (instance %s)", ic.Name)
					}
					return err
				}
				checked[r.GroupID] = true
				if now := time.Now(); c.Progress != nil && now.Sub(lastProgress) >= PlanProgressEvery {
					lastProgress = now
					c.Progress(len(checked), now.Sub(start))
				}
			}
			if !seen[r.ID] {
				seen[r.ID] = true
				p.Runs = append(p.Runs, r)
			}
		}
		return nil
	})
	if err != nil {
		var ke *KeyError
		// A KeyError of the plan names the sweep file, as ParseConfig's do.
		if errors.As(err, &ke) && ke.File == "" {
			ke.File = c.path
		}
		return nil, err
	}
	sort.Slice(p.Runs, func(i, j int) bool { return p.Runs[i].ID < p.Runs[j].ID })
	p.Elapsed = time.Since(start)
	return p, nil
}

// PlanProgressEvery is how often NewPlan reports its progress
// (Config.Progress); a variable for tests.
var PlanProgressEvery = 5 * time.Second

// newRun compiles a run spec by its algorithm's family and names it: its
// id, its configuration's id (the id without the seed) and label.
func newRun(alg *registry.Algorithm, rs registry.RunSpec, in *Instance) (Run, error) {
	cs, err := alg.Compile(rs)
	if err != nil {
		return Run{}, err
	}
	id, err := alg.ID(cs)
	if err != nil {
		return Run{}, err
	}
	noSeed := cs
	noSeed.Seed = 0
	gid, err := alg.ID(noSeed)
	if err != nil {
		return Run{}, err
	}
	group := registry.Label(registry.FromRunSpec(cs, in.Config.Name, in.Name))
	return Run{ID: id, GroupID: gid[:16], Group: group, Instance: in, Spec: cs}, nil
}

func or(a, b []float64) []float64 {
	if len(a) > 0 {
		return a
	}
	return b
}

// SemanticsVersion is the version of the simulator's semantics hashed
// into every run id (registry.SemanticsVersion): `run plan` prints it.
const SemanticsVersion = registry.SemanticsVersion

// Record returns the run's row of runs.arrow with the specification
// filled in (results are added by the sweep).
func (r *Run) Record(sweep string) outputs.RunRecord {
	ic := r.Instance.Config
	return registry.Record(r.Spec, ic.inst, outputs.RunRecord{
		RunID: r.ID, FormatVersion: outputs.FormatVersion, Sweep: sweep,
		Group: r.Group, GroupID: r.GroupID,
		Instance: ic.Name, InstanceKind: ic.Kind, InstanceHash: r.Instance.Hash, InstanceName: r.Instance.Name,
		Dim: outputs.Some(r.Instance.Dim),
	})
}
