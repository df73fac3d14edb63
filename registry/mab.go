package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/mab"
	"github.com/fedbandit/fedbandit/outputs"
)

// mabAlgorithms are the multi-armed bandit family's entries, one per
// entry of mab.Algorithms, which declares them. checkpoint_every is a key
// they use too: it changes the recorded curve.
func mabAlgorithms() []*Algorithm {
	var out []*Algorithm
	for _, a := range mab.Algorithms {
		e := &Algorithm{
			Name: a.Name, Display: a.Display, Summary: a.Summary, Family: FamilyMAB,
			Trust: a.Trust, Params: a.Params, Uses: append(append([]string(nil), a.Uses...), "checkpoint_every"),
			NewRun: runMAB, Check: checkMAB,
		}
		withMABRunModel(e)
		out = append(out, e)
	}
	return out
}

// DefaultEvery is the checkpoint spacing of a run of the mab and bco
// families whose sweep file does not set checkpoint_every: T/100 rounds
// (at least 1), so that every curve has about 100 points. neutralCompile
// applies it, once; a compiled spec always carries its spacing
// (CheckpointEvery).
func DefaultEvery(T int) int { return max(T/100, 1) }

// CheckpointEvery returns the checkpoint spacing of a compiled run spec.
// Every family's Compile sets it (neutralCompile: DefaultEvery; the
// linear family: federate's default), so a spacing below 1 is a spec
// that was never compiled: a bug, not a value to default again.
func (rs RunSpec) CheckpointEvery() int {
	if rs.Every < 1 {
		panic(fmt.Sprintf("registry: run spec of %s (T = %d) without its checkpoint spacing (Every = %d): not compiled", rs.Algorithm, rs.T, rs.Every))
	}
	return rs.Every
}

// mabSpec is the family's spec of a family-neutral run spec: its loaded
// instance (a mab.Instance, of any kind of the family).
func mabSpec(rs RunSpec) (mab.Spec, error) {
	in, err := loadedValue[mab.Instance](rs, FamilyMAB)
	if err != nil {
		return mab.Spec{}, err
	}
	return mab.Spec{Algorithm: rs.Algorithm, Eps: rs.Eps, Delta: rs.Delta, T: rs.T, Seed: rs.Seed,
		Params: rs.Params, Instance: in}, nil
}

// checkMAB checks a run spec by the family's own rules (mab.New).
func checkMAB(rs RunSpec) error {
	s, err := mabSpec(rs)
	if err != nil {
		return err
	}
	_, _, err = mab.New(s)
	return err
}

// runMAB plays one run of the mab family: mab.New, core.Drive and the
// claim mab.New certifies.
func runMAB(ctx context.Context, rs RunSpec) (*core.Result, error) {
	s, err := mabSpec(rs)
	if err != nil {
		return nil, err
	}
	p, claim, err := mab.New(s)
	if err != nil {
		return nil, err
	}
	res, err := core.Drive(ctx, p, rs.T, rs.CheckpointEvery())
	if err != nil {
		return nil, err
	}
	res.Privacy = claim
	if r, ok := p.(*mab.Run); ok {
		res.Privacy.Note = withStats(claim.Note, r.Stats())
	}
	return res, nil
}

// withStats appends what the SecAgg analyser saw to a claim's note, so
// that runs.arrow's calibration_note carries it: a decode error means the
// protocol's accuracy event failed for that release (docs/mab.md).
func withStats(note string, s mab.Stats) string {
	if s.Releases == 0 {
		return note
	}
	return strings.TrimPrefix(fmt.Sprintf("%s; SecAgg: %d releases, %d underflows, %d decode errors", note, s.Releases, s.Underflows, s.DecodeErrors), "; ")
}

var mabKind = &Kind{
	Name: "mab", Family: FamilyMAB,
	Summary: "K arms with fixed means, drawn from a seed over a range of width gap or given; one user per round",
	Keys: []Key{
		{"arms", "number of arms K (default 10; 2 to 1000000)"},
		{"gap", "width of the range the means are drawn from, in (0, 1] (the paper's easy 0.5, hard 0.1); no default: give gap or means"},
		{"means", "the arms' means in [0, 1], not all equal, instead of drawing them (then arms, if given, must be their number; gap, seed and means_from do not apply)"},
		{"noise_sd", "standard deviation of the Gaussian reward before clipping (default 0.1; >= 0; not with reward = \"bernoulli\")"},
		{"reward", fmt.Sprintf("reward law: %q (default) or %q", mab.RewardGaussianClipped, mab.RewardBernoulli)},
		{"seed", "instance seed: draws the means (the paper's instance r is seed r; >= 0, default 0)"},
		{"means_from", fmt.Sprintf("how the means are drawn: %q (default, the instance's own stream) or %q (the published script's numpy seeding)", mab.MeansChaCha8, mab.MeansNumpyLegacy)},
	},
	Columns: []string{"arms", "instance_seed"},
	Decode:  func(table map[string]any, _ string) (Instance, error) { return decodeMABTable(table) },
}

type mabTable struct {
	Arms      int       `toml:"arms"`
	Gap       float64   `toml:"gap"`
	Means     []float64 `toml:"means"`
	NoiseSD   float64   `toml:"noise_sd"`
	Reward    string    `toml:"reward"`
	Seed      int64     `toml:"seed"`
	MeansFrom string    `toml:"means_from"`
}

// mabInstance is a decoded mab instance: the family's instance, complete.
type mabInstance struct{ spec mab.Instance }

// leadingKey is the key a family's validation error starts with
// ("gap = 0: ...", "means[2] = 1.5: ...").
var leadingKey = regexp.MustCompile(`^([A-Za-z_]+)(\[\d+\])? = `)

// leadingName is a key alone ("means" of "means: 1 values, ...").
var leadingName = regexp.MustCompile(`^[a-z_]+$`)

// keyError is a family's validation error as a *KeyError naming its key.
func keyError(err error) error {
	if m := leadingKey.FindStringSubmatch(err.Error()); m != nil {
		return &KeyError{Key: m[1], Msg: strings.TrimPrefix(err.Error(), m[1]+" = ")}
	}
	// "means: 3 values, ..." names its key too.
	if key, msg, ok := strings.Cut(err.Error(), ": "); ok && leadingName.MatchString(key) {
		return &KeyError{Key: key, Msg: msg}
	}
	return &KeyError{Msg: err.Error()}
}

func decodeMABTable(table map[string]any) (*mabInstance, error) {
	var t mabTable
	set, err := decodeTable(table, &t)
	if err != nil {
		return nil, tableError(err)
	}
	// Absent keys take mab.DefaultInstance's values; explicit values are
	// kept as given and checked by the family (mab.Instance.Validate).
	in := mab.DefaultInstance()
	if set("means") {
		in.Means, in.Arms = t.Means, 0
		if len(t.Means) == 0 {
			in.Means = []float64{}
		}
	}
	if set("arms") {
		in.Arms = t.Arms
	}
	if set("gap") {
		in.Gap = t.Gap
	}
	if set("noise_sd") {
		in.NoiseSD = t.NoiseSD
	}
	if set("reward") {
		in.Reward = t.Reward
	}
	if set("means_from") {
		in.MeansFrom = t.MeansFrom
	}
	if t.Seed < 0 {
		return nil, &KeyError{Key: "seed", Msg: fmt.Sprintf("%d, want an instance seed >= 0", t.Seed)}
	}
	in.Seed = uint64(t.Seed)
	if !set("gap") && !set("means") {
		return nil, &KeyError{Key: "gap", Msg: "missing: give gap (the width of the means' range) or means"}
	}
	// Keys that do not apply are refused, not dropped into the instance
	// hash (attack round 3, W8, W9): gap, means_from and seed draw the
	// means, and noise_sd is the Gaussian reward's.
	if set("means") {
		for _, k := range []string{"gap", "means_from", "seed"} {
			if set(k) {
				return nil, &KeyError{Key: k, Msg: "draws the means, which means gives: leave it out (or give gap instead of means)"}
			}
		}
	}
	if set("noise_sd") && in.Reward == mab.RewardBernoulli {
		return nil, &KeyError{Key: "noise_sd", Msg: fmt.Sprintf("%v: rewards are %s, which have no Gaussian noise: leave it out", t.NoiseSD, mab.RewardBernoulli)}
	}
	// MeanValues validates and draws the means, so that a gap whose
	// drawn means are all equal is refused here (W7).
	if _, err := in.MeanValues(); err != nil {
		return nil, keyError(err)
	}
	return &mabInstance{spec: in}, nil
}

func (*mabInstance) Kind() string     { return "mab" }
func (*mabInstance) PerM() bool       { return false }
func (*mabInstance) CheckM(int) error { return nil }
func (*mabInstance) ShareKey() string { return "" }

// Record records the arms (not a dimension) and, for drawn means, the
// instance seed.
func (y *mabInstance) Record(_ *Loaded, rec *outputs.RunRecord) {
	rec.Dim, rec.Arms = nil, outputs.Some(y.spec.Arms)
	if y.spec.Means != nil {
		rec.Arms = outputs.Some(len(y.spec.Means))
		return
	}
	rec.InstanceSeed = outputs.Some(y.spec.Seed)
}

func (y *mabInstance) Load(int, Env) (*Loaded, error) {
	s := y.spec
	means, err := s.MeanValues()
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("mab K=%d gap=%g seed=%d means=%s reward=%s noise_sd=%g", len(means), s.Gap, s.Seed, s.MeansFrom, s.Reward, s.NoiseSD)
	if s.Means != nil {
		name = fmt.Sprintf("mab K=%d %s reward=%s noise_sd=%g", len(means), givenValues("means", s.Means), s.Reward, s.NoiseSD)
	}
	if s.Reward == mab.RewardBernoulli {
		name = strings.TrimSuffix(name, fmt.Sprintf(" noise_sd=%g", s.NoiseSD))
	}
	return &Loaded{Hash: contentHash("fedbandit/mab/v1", s), Name: name, Dim: len(means), Actions: float64(len(means)), Value: s}, nil
}

// contentHash is the content hash of a decoded instance: SHA-256 of the
// domain and the JSON of the family's instance (defaults filled).
func contentHash(domain string, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the families' instances are plain values
	}
	sum := sha256.Sum256(append([]byte(domain), b...))
	return hex.EncodeToString(sum[:])
}
