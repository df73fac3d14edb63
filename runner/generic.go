package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
)

// The families other than the linear one (mab, bco) are planned and run
// through the registry alone: a configuration is a registry.RunSpec, its
// run is the entry's NewRun. Their runs go through the same executor as
// the linear family's (panics recovered, cancellation, finite checks,
// atomic per-run files, resume, array tasks); only planning, simulating
// one run and making its record differ. They never share context streams.

// genericPoint is one configuration of a non-linear algorithm: its run
// spec without seed, and the sweep key of each field its family's checks
// may name.
type genericPoint struct {
	inst, alg int
	spec      registry.RunSpec
	keys      map[string]string // family key ("eps", "T", "S", ...) -> sweep key
}

// familyKey is the key a family's error starts with ("eps = 0: ...",
// "dist-rdp-se: S = 0: ...").
var familyKey = regexp.MustCompile(`^(?:[A-Za-z0-9-]+: )?([A-Za-z_]+)(\[\d+\])? = `)

// keyError returns err as a *KeyError naming the sweep key at fault.
func (p *genericPoint) keyError(err error) error {
	key := fmt.Sprintf("algorithm[%d]", p.alg)
	if m := familyKey.FindStringSubmatch(err.Error()); m != nil {
		if k, ok := p.keys[m[1]]; ok {
			key = k
		}
	}
	return &KeyError{Key: key, Msg: err.Error()}
}

// instanceTable is the [[instance]] table ii without name and kind: what
// its kind decodes, handed to the entry's NewRun.
func (c *Config) instanceTable(ii int) map[string]any {
	t := map[string]any{}
	for k, v := range c.tables("instance")[ii] {
		if k != "name" && k != "kind" {
			t[k] = v
		}
	}
	return t
}

// genericPoints calls f for every configuration of the grid of the
// non-linear algorithms, in plan order: instances, algorithms, M, B, T,
// eps, delta and the algorithm's own parameters (by key). A generic key
// the algorithm does not use is 0 (planned once); its parameters are
// resolved (defaults filled), so that an explicit default is the same
// run. Absent M and B are 1, an absent checkpoint_every is
// registry.DefaultEvery(T).
func (c *Config) genericPoints(f func(p *genericPoint) error) error {
	g := c.Grid
	for ii := range c.Instances {
		for ai, ac := range c.Algorithms {
			alg, err := registry.Lookup(ac.Name)
			if err != nil {
				return &KeyError{Key: fmt.Sprintf("algorithm[%d].name", ai), Msg: err.Error()}
			}
			if alg.Family == registry.FamilyLinear {
				continue
			}
			at := func(k string) string { return fmt.Sprintf("algorithm[%d].%s", ai, k) }
			used := func(key string, v []float64, grid string, absent float64) values {
				if !alg.UsesKey(key) {
					return values{[]float64{0}, func(int) string { return grid }}
				}
				if len(v) == 0 {
					return values{[]float64{absent}, func(int) string { return grid }}
				}
				return list(v, grid)
			}
			ints := func(v []int) []float64 {
				out := make([]float64, len(v))
				for i, x := range v {
					out[i] = float64(x)
				}
				return out
			}
			ms, bs := used("M", ints(g.M), "grid.M", 1), used("B", ints(g.B), "grid.B", 1)
			ts := list(ints(g.T), "grid.T")
			epss, deltas := used("eps", or(ac.Eps, g.Eps), "grid.eps", 0), used("delta", or(ac.Delta, g.Delta), "grid.delta", 0)
			if len(ac.Eps) > 0 && alg.UsesKey("eps") {
				epss = list(ac.Eps, at("eps"))
			}
			if len(ac.Delta) > 0 && alg.UsesKey("delta") {
				deltas = list(ac.Delta, at("delta"))
			}
			combos, ckeys := c.paramCombos(ai, ac)
			for im, m := range ms.v {
				for ib, b := range bs.v {
					for it, t := range ts.v {
						for ie, eps := range epss.v {
							for id, delta := range deltas.v {
								for ci, params := range combos {
									p := &genericPoint{inst: ii, alg: ai, keys: map[string]string{
										"M": ms.key(im), "B": bs.key(ib), "T": ts.key(it), "eps": epss.key(ie), "delta": deltas.key(id),
										"checkpoint_every": "checkpoint_every",
									}}
									for k, v := range ckeys[ci] {
										p.keys[strings.TrimPrefix(k, "Params.")] = v
									}
									every := registry.DefaultEvery(int(t))
									if c.isSet("checkpoint_every") {
										every = c.CheckpointEvery
									}
									resolved, err := core.Resolve(alg.Params, params)
									if err != nil {
										return p.keyError(err)
									}
									p.spec = registry.RunSpec{Algorithm: ac.Name, Instance: c.Instances[ii].Kind,
										T: int(t), M: int(m), B: int(b), Every: every, Eps: eps, Delta: delta,
										Params: resolved, Table: c.instanceTable(ii), Dir: c.dir}
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
	return nil
}

// validateGenericPoints checks every configuration of the non-linear
// algorithms by its family's own rules (registry.Algorithm.Check).
func (c *Config) validateGenericPoints() error {
	if c.isSet("checkpoint_every") && c.CheckpointEvery < 1 {
		return &KeyError{Key: "checkpoint_every", Msg: fmt.Sprintf("%d, want a spacing >= 1 round (or leave it out)", c.CheckpointEvery)}
	}
	return c.genericPoints(func(p *genericPoint) error {
		alg, _ := registry.Lookup(p.spec.Algorithm)
		// A RunSpec's 0 is an absent M or B: an explicit 0 must not
		// become the default.
		for k, v := range map[string]int{"M": p.spec.M, "B": p.spec.B} {
			if alg.UsesKey(k) && v < 1 {
				return &KeyError{Key: p.keys[k], Msg: fmt.Sprintf("%d, want at least 1", v)}
			}
		}
		if err := alg.Check(p.spec); err != nil {
			return p.keyError(err)
		}
		return nil
	})
}

// newGenericRun completes a configuration with its seed and computes its
// identity.
func newGenericRun(spec registry.RunSpec, in *Instance) (Run, error) {
	id, err := GenericRunID(spec, in.Hash)
	if err != nil {
		return Run{}, err
	}
	noSeed := spec
	noSeed.Seed = 0
	gid, err := GenericRunID(noSeed, in.Hash)
	if err != nil {
		return Run{}, err
	}
	group := registry.Label(registry.FromRunSpec(spec, in.Config.Name, in.Name))
	return Run{ID: id, GroupID: gid[:16], Group: group, Instance: in, Generic: &spec}, nil
}

// GenericRunID is the identity of a run of a non-linear family: the hex
// SHA-256 of the canonical JSON of its RunSpec (header and resolved
// parameters; map keys sorted by encoding/json; the instance table is
// represented by instanceHash, the content hash of the decoded,
// defaults-filled instance, and never encoded itself; a Late parameter at
// its default is left out, core.Identity), the instance hash
// and SemanticsVersion. The linear family's ids (RunID) are unchanged.
func GenericRunID(spec registry.RunSpec, instanceHash string) (string, error) {
	spec.Table, spec.Dir = nil, ""
	if a, err := registry.Lookup(spec.Algorithm); err == nil {
		// A parameter added later enters ids only when set off its
		// default (core.Param.Late).
		spec.Params = core.Identity(a.Params, spec.Params)
	}
	b, err := json.Marshal(struct {
		Domain       string
		Format       int
		InstanceHash string
		Spec         registry.RunSpec
	}{"fedbandit/run/generic", SemanticsVersion, instanceHash, spec})
	if err != nil {
		return "", fmt.Errorf("encode run spec: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// genericRecord is the runs.arrow row of a non-linear run, results to
// be added.
func (r *Run) genericRecord(sweep string) outputs.RunRecord {
	s := r.Generic
	ic := r.Instance.Config
	rec := outputs.RunRecord{
		RunID: r.ID, FormatVersion: outputs.FormatVersion, Sweep: sweep,
		Group: r.Group, GroupID: r.GroupID,
		Instance: ic.Name, InstanceKind: ic.Kind, InstanceHash: r.Instance.Hash, InstanceName: r.Instance.Name,
		Dim:       outputs.Some(r.Instance.Dim),
		Algorithm: s.Algorithm, Params: recordedParams(s.Params),
		T: s.T, Every: s.Every, Seed: s.Seed,
	}
	if rec.Every == 0 {
		rec.Every = registry.DefaultEvery(s.T)
	}
	if a, err := registry.Lookup(s.Algorithm); err == nil {
		rec.Family, rec.Trust = a.Family, a.Trust
		recordTargets(&rec, a, s.Eps, s.Delta)
		if a.UsesKey("M") {
			rec.M = outputs.Some(s.M)
		}
		if a.UsesKey("B") {
			rec.B = outputs.Some(s.B)
		}
	}
	ic.inst.Record(&rec)
	return rec
}

// executeGeneric runs one simulation of a non-linear family through its
// entry's NewRun and returns its record (ok false: interrupted).
func executeGeneric(ctx context.Context, r *Run, sweep string, log *slog.Logger) (rec outputs.RunRecord, pts []outputs.Point, ok bool) {
	rec = r.genericRecord(sweep)
	res, err := safeNewRun(ctx, *r.Generic, log, r.ID)
	if err != nil && ctx.Err() != nil {
		return rec, nil, false
	}
	if err == nil {
		pts, err = checkCurve(res.Curve, r.Generic.T)
	}
	if err == nil {
		err = addMetrics(pts, res.Metrics)
	}
	if err == nil {
		err = res.Privacy.Check()
	}
	if err != nil {
		rec.Status, rec.Error = outputs.StatusFailed, err.Error()
		return rec, nil, true
	}
	rec.Status = outputs.StatusDone
	rec.SetPrivacy(res.Privacy)
	rec.Syncs, rec.Scalars = int64(res.Syncs), res.Scalars
	last := pts[len(pts)-1]
	rec.Rounds, rec.PseudoRegret, rec.RealisedRegret = int(last.Round), last.Pseudo, last.Realised
	rec.WallSeconds = res.WallSeconds
	return rec, pts, true
}

// addMetrics copies the curve metrics a run reported (core.Result.Metrics:
// one value per checkpoint) into its points.
func addMetrics(pts []outputs.Point, metrics map[string][]float64) error {
	for k, vs := range metrics {
		if len(vs) != len(pts) {
			return fmt.Errorf("curve metric %s: %d values for %d checkpoints", k, len(vs), len(pts))
		}
		for i, v := range vs {
			if pts[i].Metrics == nil {
				pts[i].Metrics = map[string]float64{}
			}
			pts[i].Metrics[k] = v
		}
	}
	return nil
}

// safeNewRun runs spec through its algorithm's NewRun (safeRun).
func safeNewRun(ctx context.Context, spec registry.RunSpec, log *slog.Logger, id string) (*core.Result, error) {
	alg, err := registry.Lookup(spec.Algorithm)
	if err != nil {
		return nil, err
	}
	return safeRun(ctx, alg.NewRun, spec, log, id)
}

// safeRun calls newRun, turning a panic of the run into an error (the
// stack goes to the log, not into the results) and a missing result
// into a failure.
func safeRun(ctx context.Context, newRun func(context.Context, registry.RunSpec) (*core.Result, error), spec registry.RunSpec, log *slog.Logger, id string) (res *core.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			log.Error("run panicked", "id", id, "panic", v, "stack", string(debug.Stack()))
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	res, err = newRun(ctx, spec)
	if err == nil && res == nil {
		err = errors.New("simulator returned no result")
	}
	return res, err
}

// genericPilotRounds is the length of the pilot that times a cost class
// of another family: long enough for the batches and the noise of a mab
// run, and a few tenths of a second of a bco run at d = 10.
const genericPilotRounds = 200_000

// measureGeneric times a pilot of r (its spec over at most
// genericPilotRounds rounds, one checkpoint) twice in the thread's CPU
// time and returns the faster's seconds per silo-round: a run's work per
// silo-round hardly depends on T (one reward or loss per user and round;
// a mab batch's noise once per batch).
func (p *Plan) measureGeneric(ctx context.Context, r *Run) (float64, error) {
	s := *r.Generic
	s.T = min(s.T, genericPilotRounds)
	s.Every = s.T
	alg, err := registry.Lookup(s.Algorithm)
	if err != nil {
		return 0, err
	}
	best := 0.0
	for try := 0; try < 2; try++ {
		d, err := p.pilotClock(func() error { _, err := alg.NewRun(ctx, s); return err })
		if err != nil {
			return 0, err
		}
		if try == 0 || d < best {
			best = d
		}
	}
	return best / (float64(max(s.M, 1)) * float64(s.T)), nil
}
