package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/outputs"
)

// The run model every family shares: a sweep's planner builds a RunSpec per
// run (the header, the algorithm's parameters, the settings the sweep file
// gives and the instance loaded once per plan); the algorithm's family
// completes it (Compile), names it (ID), prices it (Cost, Pilot), runs it
// (NewRun) and records it (Record, Result). The runner calls these alone:
// it has no branch on a family.

// SemanticsVersion is the version of what determines a run's result
// beyond its spec and instance: the simulator's semantics. It is hashed
// into every run id; bump it only when the same spec would now compute
// different results, which orphans every finished run. The table layout
// (outputs.FormatVersion) is not part of the id: a new column orphans
// nothing.
const SemanticsVersion = 1

// FieldError is an error of a run spec naming its key in the sweep file's
// terms: "eps", "M", "checkpoint_every", "protocol", "reward", a parameter
// of the algorithm ("S"), "name" (the algorithm) or "instance.KEY" (a key
// of the [[instance]] table). An empty Key is the configuration as a whole.
type FieldError struct{ Key, Msg string }

func (e *FieldError) Error() string { return e.Msg }

// familyKey is the key a family's error starts with ("eps = 0: ...",
// "dist-rdp-se: S = 0: ...", "means[2] = 1.5: ...").
var familyKey = regexp.MustCompile(`^(?:[A-Za-z0-9-]+: )?([A-Za-z_]+)(\[\d+\])? = `)

// keyedError returns a family's error as a *FieldError naming the key its
// message starts with (the whole configuration if none).
func keyedError(err error) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		return err
	}
	key := ""
	if m := familyKey.FindStringSubmatch(err.Error()); m != nil {
		key = m[1]
	}
	return &FieldError{Key: key, Msg: err.Error()}
}

// keyedCheck is check with its errors naming their keys (keyedError).
func keyedCheck(check func(RunSpec) error) func(RunSpec) error {
	return func(rs RunSpec) error {
		if err := check(rs); err != nil {
			return keyedError(err)
		}
		return nil
	}
}

// IsSet reports whether the sweep file sets the key (RunSpec.Set).
func (rs RunSpec) IsSet(key string) bool { return slices.Contains(rs.Set, key) }

// Compile completes rs by its algorithm's family (Algorithm.Compile).
func Compile(rs RunSpec) (RunSpec, error) {
	a, err := Lookup(rs.Algorithm)
	if err != nil {
		return rs, &FieldError{Key: "name", Msg: err.Error()}
	}
	return a.Compile(rs)
}

// Cost is a family's model of one run: its work, in a unit of the
// family's own, and the memory of its state.
type Cost struct {
	// Work is the run's work in Unit.
	Work float64
	// Unit says what is counted, for plans and summaries, e.g.
	// "multiply-adds (M T K d^2)".
	Unit string
	// Rate is the work one core does per second, the model's figure
	// until a pilot measures the run's class.
	Rate float64
	// Bytes is the memory of the run's state beyond the shared instance.
	Bytes int64
	// Class is what the speed per unit of work depends on: runs of one
	// class take the same time per unit.
	Class string
	// MemoSeconds is CPU time a pilot does not time, in seconds on the
	// reference machine: minima the run memoises on its loaded instance
	// (the bco-ltr absolute loss's hindsight). Runs of one MemoKey share
	// them: a sweep computes them once per worker running such runs at
	// once (runner.EstimateShared).
	MemoSeconds float64
	MemoKey     string
}

// neutralCompile is Compile for a family whose runs read the header, the
// algorithm's parameters and the instance alone (mab, bco): a header key
// the algorithm does not use is cleared (0, planned once), an absent M or
// B it uses is 1, an absent checkpoint spacing DefaultEvery(T), the
// parameters resolved (an explicit default is the same run); the linear
// family's settings are cleared.
func neutralCompile(a *Algorithm) func(RunSpec) (RunSpec, error) {
	return func(rs RunSpec) (RunSpec, error) {
		out := RunSpec{Algorithm: rs.Algorithm, Instance: rs.Instance, Seed: rs.Seed, T: rs.T, M: rs.M, B: rs.B,
			Every: rs.Every, Eps: rs.Eps, Delta: rs.Delta, Params: rs.Params, Table: rs.Table, Dir: rs.Dir,
			Loaded: rs.Loaded, Set: rs.Set}
		for _, k := range []struct {
			key string
			v   *int
		}{{"M", &out.M}, {"B", &out.B}} {
			if !a.UsesKey(k.key) {
				*k.v = 0
			} else if *k.v == 0 && !rs.IsSet(k.key) {
				*k.v = 1
			} else if *k.v < 1 {
				return rs, &FieldError{Key: k.key, Msg: fmt.Sprintf("%d, want at least 1", *k.v)}
			}
		}
		if !a.UsesKey("eps") {
			out.Eps = 0
		}
		if !a.UsesKey("delta") {
			out.Delta = 0
		}
		// A non-finite eps or delta has no run id (JSON has no NaN or
		// infinity): refused here naming the key, whatever the family's
		// own range says later (R4-14).
		for _, k := range []struct {
			key string
			v   float64
		}{{"eps", out.Eps}, {"delta", out.Delta}} {
			if math.IsNaN(k.v) || math.IsInf(k.v, 0) {
				return rs, &FieldError{Key: k.key, Msg: fmt.Sprintf("%s = %v, want a finite value > 0", k.key, k.v)}
			}
		}
		if rs.IsSet("checkpoint_every") && rs.Every < 1 {
			return rs, &FieldError{Key: "checkpoint_every", Msg: fmt.Sprintf("%d, want a spacing >= 1 round (or leave it out)", rs.Every)}
		}
		if out.Every == 0 {
			out.Every = DefaultEvery(out.T)
		}
		p, err := core.Resolve(a.Params, rs.Params)
		if err != nil {
			return rs, keyedError(err)
		}
		out.Params = p
		out.Native = nil
		return out, nil
	}
}

// neutralID is the identity of a run of a family that compiles with
// neutralCompile: the hex SHA-256 of the canonical JSON of its RunSpec
// (header and resolved parameters; map keys sorted by encoding/json; the
// instance table is represented by the content hash of the loaded
// instance, and never encoded itself; a Late parameter at its default is
// left out, core.Identity), the instance hash and SemanticsVersion. These
// are the ids of the mab and bco families since they exist (pinned:
// runner.TestRunIDsPinned).
func neutralID(a *Algorithm) func(RunSpec) (string, error) {
	return func(spec RunSpec) (string, error) {
		if spec.Loaded == nil {
			return "", errors.New("run spec without its loaded instance")
		}
		hash := spec.Loaded.Hash
		spec.Table, spec.Dir = nil, ""
		// A parameter added later enters ids only when set off its
		// default (core.Param.Late).
		spec.Params = core.Identity(a.Params, spec.Params)
		return hashJSON(struct {
			Domain       string
			Format       int
			InstanceHash string
			Spec         RunSpec
		}{"fedbandit/run/generic", SemanticsVersion, hash, spec})
	}
}

// hashJSON is the hex SHA-256 of v's JSON.
func hashJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode run spec: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// neutralResult records a run's claim (outputs.RunRecord.SetPrivacy):
// certified, the target and delivered eps and delta, relation, mechanism,
// sampler and the claim's note, prefixed "not certified: " when it does
// not hold for the run as simulated; and its hindsight note.
func neutralResult(_ RunSpec, res *core.Result, rec *outputs.RunRecord) error {
	if err := res.Privacy.Check(); err != nil {
		return err
	}
	rec.SetPrivacy(res.Privacy)
	rec.HindsightNote = res.HindsightNote
	return nil
}

// Record is the runs.arrow row of a compiled run spec, results to be
// added: the header, the algorithm's family and trust, the privacy
// targets and silos it takes (null for the others), its family's own
// settings (Algorithm.Record) and the instance's columns (its kind's
// Record).
func Record(rs RunSpec, in Instance, rec outputs.RunRecord) outputs.RunRecord {
	rec.Algorithm, rec.Params = rs.Algorithm, rs.Params
	if rec.Params == nil {
		// An empty map, never nil, for one without parameters (nil means
		// "not recorded", which only layout-1 rows are).
		rec.Params = map[string]float64{}
	}
	rec.T, rec.Every, rec.Seed = rs.T, rs.CheckpointEvery(), rs.Seed
	if a, err := Lookup(rs.Algorithm); err == nil {
		rec.Family, rec.Trust = a.Family, a.Trust
		if a.UsesKey("eps") {
			rec.Eps = outputs.Some(rs.Eps)
		}
		if a.UsesKey("delta") {
			rec.Delta = outputs.Some(rs.Delta)
		}
		if a.UsesKey("M") {
			rec.M = outputs.Some(rs.M)
		}
		if a.UsesKey("B") {
			rec.B = outputs.Some(rs.B)
		}
		if a.Record != nil {
			a.Record(rs, &rec)
		}
	}
	if in != nil {
		in.Record(rs.Loaded, &rec)
	}
	return rec
}
