package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/outputs"
)

// linearAlgorithms are the linear family's entries: one per algorithm of
// federate's own list (federate.Algorithms), which declares them. They
// use M and T (every linear run has silos and a horizon).
func linearAlgorithms() []*Algorithm {
	var out []*Algorithm
	for _, a := range federate.Algorithms() {
		e := &Algorithm{
			Name: a.Name, Display: a.Display, Summary: a.Summary, Family: FamilyLinear,
			Trust: a.Trust, Params: a.Params, Uses: a.Uses, NewRun: runLinear,
			Compile: compileLinear, ID: linearID, Check: checkLinear, Cost: linearCost, Pilot: linearPilot,
			Record: linearRecord, Result: linearResult, Stream: linearStream,
		}
		out = append(out, e)
	}
	return out
}

// DefaultMaddsPerSecond is the assumed speed of one core, counted in the
// linear cost model's M T K d^2 multiply-adds per run. It is a deliberate
// round figure from the paper's synthetic instance on a 2.45 GHz Zen 3
// core with AVX2 (1e10 in 2.1 s, where fresh contexts cost as much as the
// UCB scores; learning-to-rank runs at d = 57 reach about 2e10); `run
// plan` measures the speed of each cost class instead
// (docs/bench/runner.md).
const DefaultMaddsPerSecond = 4e9

// linearFields maps federate's spec fields to the sweep file's keys
// (FieldError.Key); the synthetic instance's own are syntheticKeys.
var linearFields = map[string]string{
	"Algorithm": "name", "Protocol": "protocol", "Lazy": "lazy", "Preset": "preset",
	"Every": "checkpoint_every", "R": "R", "Crs": "crs", "GramNoise": "gram_noise",
	"RewardLo": "reward", "RewardHi": "reward", "NoClip": "no_clip", "Instance": "instance.kind",
	"LTR": "instance.dataset", "M": "M", "B": "B", "T": "T", "Alpha": "alpha", "Relation": "relation",
	"Noise": "noise", "Eps": "eps", "Delta": "delta",
}

// linearError returns a federate error as a *FieldError naming the sweep
// key of its field.
func linearError(err error) error {
	var fe *federate.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	key, ok := linearFields[fe.Field]
	switch {
	case ok:
	case strings.HasPrefix(fe.Field, "Params."):
		key = strings.TrimPrefix(fe.Field, "Params.")
	case syntheticKeys[fe.Field] != "":
		key = "instance." + syntheticKeys[fe.Field]
	case dubeyKeys[fe.Field] != "":
		key = "instance." + dubeyKeys[fe.Field]
	}
	return &FieldError{Key: key, Msg: fe.Msg}
}

// linearGiven maps the sweep keys whose explicit value the linear spec
// keeps, zero included (federate.Spec.ValidateGiven), to its fields.
var linearGiven = map[string]string{"alpha": "Alpha", "R": "R", "crs": "Crs", "checkpoint_every": "Every", "reward": "Reward"}

// compileLinear completes a run spec of the linear family: the settings
// the sweep file leaves out take federate's defaults (the learner and the
// clamp by the preset: LinearDefaults), the keys the algorithm does not
// use are cleared (federate.Spec.Canonical), every value is checked by
// federate's one set of rules, and the complete spec (with defaults
// filled, instance data attached) becomes Native and is written back into
// the header and settings. Without a loaded instance (a sweep file checked
// before its data is read) the decoded instance's settings stand in.
func compileLinear(rs RunSpec) (RunSpec, error) {
	// M and B have no default in this family: a sweep file gives them.
	for _, k := range []struct {
		key string
		v   int
	}{{"M", rs.M}, {"B", rs.B}} {
		if k.v == 0 && !rs.IsSet(k.key) {
			return rs, &FieldError{Key: k.key, Msg: fmt.Sprintf("missing: give a list of values, e.g. %s = [25]", k.key)}
		}
	}
	lazy, noClip := LinearDefaults(rs.Algorithm, rs.Preset)
	if rs.IsSet("lazy") {
		lazy = rs.Lazy
	}
	if rs.IsSet("no_clip") {
		noClip = rs.NoClip
	}
	s := federate.Spec{
		Algorithm: rs.Algorithm, Protocol: rs.Protocol, Lazy: lazy, Preset: rs.Preset,
		Eps: rs.Eps, Delta: rs.Delta, Relation: rs.Relation, Seed: rs.Seed,
		M: rs.M, T: rs.T, B: rs.B, Alpha: rs.Alpha, Every: rs.Every,
		R: rs.R, Crs: rs.Crs, GramNoise: rs.GramNoise, NoClip: noClip, Params: rs.Params, Noise: rs.Noise,
	}
	if rs.IsSet("reward") {
		s.RewardLo, s.RewardHi = rs.RewardLo, rs.RewardHi
	}
	switch {
	case rs.Loaded != nil:
		lin := rs.Loaded.Linear()
		if lin == nil {
			return rs, &FieldError{Key: "instance.kind", Msg: fmt.Sprintf("instance kind %q gives the linear family a %T, want a *LinearData", rs.Instance, rs.Loaded.Value)}
		}
		lin.Set(&s)
	case rs.Decoded != nil:
		li, ok := rs.Decoded.(LinearInstance)
		if !ok {
			return rs, &FieldError{Key: "instance.kind", Msg: fmt.Sprintf("instance kind %q is not of the linear family", rs.Instance)}
		}
		li.Settings(&s)
	default:
		l, err := rs.Load(Env{})
		if err != nil {
			return rs, err
		}
		rs.Loaded = l
		return compileLinear(rs)
	}
	s = s.Canonical()
	var given []string
	for key, field := range linearGiven {
		if rs.IsSet(key) {
			given = append(given, field)
		}
	}
	if err := s.ValidateGiven(given...); err != nil {
		return rs, linearError(err)
	}
	s = s.Canonical().WithDefaults()
	if rs.Loaded != nil {
		if err := s.Validate(); err != nil {
			return rs, linearError(err)
		}
	}
	out := rs
	out.Protocol, out.Lazy, out.Preset, out.Eps, out.Delta, out.Relation = s.Protocol, s.Lazy, s.Preset, s.Eps, s.Delta, s.Relation
	out.M, out.T, out.B, out.Alpha, out.Every = s.M, s.T, s.B, s.Alpha, s.Every
	out.R, out.Crs, out.GramNoise, out.RewardLo, out.RewardHi, out.NoClip = s.R, s.Crs, s.GramNoise, s.RewardLo, s.RewardHi, s.NoClip
	out.Params, out.Noise = s.Params, s.Noise
	out.Native = s
	return out, nil
}

// NativeLinear returns the complete federate spec of a compiled run spec
// of the linear family (ok false for another family's).
func NativeLinear(rs RunSpec) (federate.Spec, bool) {
	s, ok := rs.Native.(federate.Spec)
	if ok {
		s.Seed = rs.Seed
	}
	return s, ok
}

// linearSpec is the compiled federate spec of rs (compiling it if needed).
func linearSpec(rs RunSpec) (federate.Spec, error) {
	if s, ok := NativeLinear(rs); ok {
		return s, nil
	}
	c, err := compileLinear(rs)
	if err != nil {
		return federate.Spec{}, err
	}
	s, _ := NativeLinear(c)
	return s, nil
}

// linearID is the identity of a linear run: LinearRunID of its spec.
func linearID(rs RunSpec) (string, error) {
	s, err := linearSpec(rs)
	if err != nil {
		return "", err
	}
	if rs.Loaded == nil {
		return "", errors.New("run spec without its loaded instance")
	}
	return LinearRunID(s, rs.Loaded.Hash)
}

// LinearRunID returns the identity of a linear run: the hex SHA-256 of a
// canonical encoding of the spec (call on spec.WithDefaults(); the LTR
// data is represented by instanceHash and never encoded itself), the
// instance content hash and SemanticsVersion. The encoding is JSON of the
// federate.Spec struct (fields in declaration order with pinned names,
// floats in Go's shortest round-trip form). New Spec fields are omitempty,
// so a field at its zero value (the behaviour before it existed) changes
// no id, while any other value gives a new one; an intentional change of
// identity bumps SemanticsVersion, which `run plan` prints.
// runner.TestRunIDsPinned pins the ids of the shipped sweeps. A Late
// parameter at its default is left out (core.Identity).
func LinearRunID(spec federate.Spec, instanceHash string) (string, error) {
	spec.LTR = nil
	spec.Calib = nil
	if a, err := federate.LookupAlgorithm(spec.Algorithm); err == nil && len(spec.Params) > 0 {
		// A parameter added later enters ids only when set off its
		// default (core.Param.Late), as in every family.
		spec.Params = core.Identity(a.Params, spec.Params)
	}
	return hashJSON(struct {
		Domain       string
		Format       int // named when the layout was hashed; the name is encoded, so it stays
		InstanceHash string
		Spec         federate.Spec
	}{"fedbandit/run", SemanticsVersion, instanceHash, spec})
}

// checkLinear checks that the noise of a compiled linear run can be
// calibrated (accountant.Calibrate), so that a sweep whose noise cannot
// be fails at planning, not run by run.
func checkLinear(rs RunSpec) error {
	s, err := linearSpec(rs)
	if err != nil {
		return err
	}
	if _, err := federate.Calibrate(s); err != nil {
		return &FieldError{Msg: fmt.Sprintf("%s cannot be calibrated at eps = %g, delta = %g, M = %d, B = %d, T = %d: %v",
			s.Algorithm, s.Eps, s.Delta, s.M, s.B, s.T, err)}
	}
	return nil
}

// runLinear plays one run of the linear family (federate.Run): its
// compiled spec (a spec without one is compiled on its instance, loaded
// for this run). The result's Detail is the *federate.Result.
func runLinear(ctx context.Context, rs RunSpec) (*core.Result, error) {
	spec, err := linearSpec(rs)
	if err != nil {
		return nil, err
	}
	res, err := federate.Run(ctx, spec)
	if err != nil {
		return nil, err
	}
	out := res.Result
	out.Detail = res
	return &out, nil
}

// linearRecord records a linear run's silos, batch size and settings
// (every linear run has silos and batches).
func linearRecord(rs RunSpec, rec *outputs.RunRecord) {
	rec.M, rec.B = outputs.Some(rs.M), outputs.Some(rs.B)
	rec.Linear = &outputs.LinearSettings{Protocol: rs.Protocol, Lazy: rs.Lazy, Preset: rs.Preset, Alpha: rs.Alpha,
		R: rs.R, Crs: rs.Crs, GramNoise: rs.GramNoise, RewardLo: rs.RewardLo, RewardHi: rs.RewardHi, NoClip: rs.NoClip}
}

// linearResult records a linear run's claim (refused unless core's
// Privacy.Check holds; outputs.RunRecord.SetPrivacy), calibration, its
// per-silo totals (which must be finite) and its instance's note.
func linearResult(rs RunSpec, res *core.Result, rec *outputs.RunRecord) error {
	fr, ok := res.Detail.(*federate.Result)
	if !ok {
		return fmt.Errorf("the linear family's run gave a %T, want a *federate.Result", res.Detail)
	}
	for _, v := range [][]float64{fr.SiloPseudo, fr.SiloRealised} {
		for i, x := range v {
			if x != x || x > 1e308 || x < -1e308 {
				return fmt.Errorf("bad numerics: non-finite regret total of silo %d", i)
			}
		}
	}
	c := fr.Calibration
	lin := rec.Linear
	if lin == nil {
		lin = &outputs.LinearSettings{}
		rec.Linear = lin
	}
	lin.Lambda, lin.BetaT, lin.Kappa = c.Lambda, fr.BetaT, c.Kappa
	if err := res.Privacy.Check(); err != nil {
		return err
	}
	rec.SetPrivacy(res.Privacy)
	if rec.Trust != core.TrustNone {
		lin.Noise = &outputs.LinearNoise{Sigma: c.Sigma, MuGDP: c.Mu, Amplified: c.Amplified}
	}
	if s, ok := NativeLinear(rs); ok && s.LTR != nil && s.LTR.Note != "" {
		rec.CalibrationNote = strings.TrimPrefix(rec.CalibrationNote+"; "+s.LTR.Note, "; ")
	}
	lin.NonPD = int64(fr.NonPD)
	lin.SiloPseudo = append([]float64{}, fr.SiloPseudo...)
	lin.SiloRealised = append([]float64{}, fr.SiloRealised...)
	return nil
}

// linearCost is the linear family's cost model: M T K d^2 multiply-adds
// (K actions per round, d the learner's dimension: the UCB scores and the
// Gram updates), and per silo a local Gram, bias and inverse (3 d^2 + d),
// the tree nodes of the protocol (kappa levels, per silo for P_alt), the
// synchronised statistics and the curve.
func linearCost(rs RunSpec) Cost {
	dim, actions := 0, 0.0
	if rs.Loaded != nil {
		dim, actions = rs.Loaded.Dim, rs.Loaded.Actions
	}
	d := float64(dim)
	c := Cost{
		Work: float64(rs.M) * float64(rs.T) * actions * d * d,
		Unit: "multiply-adds (sum of M T K d^2)", Rate: DefaultMaddsPerSecond,
	}
	di, m := int64(dim), int64(rs.M)
	k := int64(1)
	for n := (rs.T + rs.B - 1) / max(rs.B, 1); n > 1; n >>= 1 {
		k++
	}
	mat := di*di + di
	points := int64(rs.T/max(rs.Every, 1) + 1)
	c.Bytes = 8*(m*3*mat+(m+2)*k*mat+4*mat+m*2) + 32*points + 1<<20
	hash := ""
	if rs.Loaded != nil {
		hash = rs.Loaded.Hash
	}
	c.Class = fmt.Sprintf("%s lazy=%t protocol=%s instance=%.16s d=%d actions=%g M=%d B=%d gram=%s",
		rs.Algorithm, rs.Lazy, rs.Protocol, hash, dim, actions, rs.M, rs.B, rs.GramNoise)
	return c
}

// linearPilot is the run that times rs's class within work multiply-adds:
// rs over fewer rounds (at least two batches when T allows, at most T, a
// multiple of B when T is), with its batch cut to the pilot's length if
// needed.
func linearPilot(rs RunSpec, work float64) RunSpec {
	s, err := linearSpec(rs)
	if err != nil {
		return rs
	}
	perRound := linearCost(rs).Work / float64(s.T)
	rounds := int(work / max(perRound, 1))
	rounds = max(rounds, min(2*s.B, s.T), 8)
	rounds = min(rounds, s.T)
	s.B = min(s.B, rounds)
	if s.T%s.B == 0 {
		// Keep T a multiple of B where the run has it (sdp-vec needs it).
		rounds -= rounds % s.B
	}
	s.T, s.Every, s.Calib = rounds, rounds, nil
	p := rs
	p.T, p.B, p.Every, p.Native = s.T, s.B, s.Every, s
	return p
}

// LinearSpec builds the linear family's spec of a family-neutral run
// spec, loading the instance's data with env (rs.Loaded when set).
func LinearSpec(rs RunSpec, env Env) (federate.Spec, error) {
	k, err := LookupKind(rs.Instance)
	if err != nil {
		return federate.Spec{}, err
	}
	if k.Family != FamilyLinear {
		return federate.Spec{}, fmt.Errorf("instance kind %q is of family %s, not %s", k.Name, k.Family, FamilyLinear)
	}
	if _, err := federate.LookupAlgorithm(rs.Algorithm); err != nil {
		return federate.Spec{}, err
	}
	loaded, err := rs.Load(env)
	if err != nil {
		return federate.Spec{}, err
	}
	rs.Loaded = loaded
	c, err := compileLinear(rs)
	if err != nil {
		return federate.Spec{}, err
	}
	s, _ := NativeLinear(c)
	return s, nil
}

// LinearDefaults returns the linear family's settings for an absent lazy
// and no_clip key of the algorithm under preset ("": the default preset):
// federate.DefaultLazy and federate.DefaultNoClip.
func LinearDefaults(name, preset string) (lazy, noClip bool) {
	if a, err := federate.LookupAlgorithm(name); err == nil {
		lazy = federate.DefaultLazy(a, preset)
	}
	return lazy, federate.DefaultNoClip(preset)
}

// Superseded reports whether a run file's row is one whose run this build
// names by another id, and why: a layout-1 FedUCB row, whose id hashed
// sync_threshold as a field of its own (the one change of run identity
// since layout 1, confined to FedUCB; sync_threshold is a parameter now).
// A sweep sets such files aside and redoes their runs.
func Superseded(rec *outputs.RunRecord) (why string, ok bool) {
	if rec.FormatVersion == 1 && rec.Algorithm == federate.AlgFedUCB {
		return "layout-1 FedUCB run file (sync_threshold is now a parameter)", true
	}
	return "", false
}
