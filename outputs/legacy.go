package outputs

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/mutation"
)

// This file reads the per-run files of layouts 1 and 2 (written by the
// releases up to 98ad0ae) and upgrades their records to this layout, so
// that their runs resume without being redone (their run ids do not
// depend on the layout) and `run collect` writes them in layout 3. The
// layouts are frozen: this file describes what those releases wrote, and
// no new family or kind ever appears in them.

// FamilyLinear is the family of the linear contextual bandits (package
// federate), the only family of layout 1.
const FamilyLinear = "linear"

// layout1Trust is the trust model of every algorithm a layout-1 release
// could record: the registry of those releases, frozen (layout 1 gains no
// algorithm). runner.TestLayout1TrustMatchesRegistry checks it against
// today's registry.
var layout1Trust = map[string]string{
	"fedlinucb":   core.TrustNone,
	"random":      core.TrustNone,
	"ldp":         core.TrustLocal,
	"ldp-linucb":  core.TrustLocal,
	"feducb":      core.TrustLocal,
	"sdp-amp":     core.TrustShuffle,
	"sdp-vec":     core.TrustShuffle,
	"super-agent": core.TrustCentral,
}

// layout1Unrecorded lists the layout-1 algorithms that had parameters
// layout 1 did not record (feducb's sync_threshold, default or explicit):
// their params are unknown (nil) when read from a layout-1 file.
var layout1Unrecorded = []string{"feducb"}

// Layout1Algorithms returns the algorithm names a layout-1 file may hold
// and their trust models.
func Layout1Algorithms() map[string]string {
	m := make(map[string]string, len(layout1Trust))
	for k, v := range layout1Trust {
		m[k] = v
	}
	return m
}

// legacyColumns are the summary keys of a layout-2 per-run file, in the
// order its checksum covers them; layout 1 lacks family, trust and
// params.
var legacyColumns = []string{
	"run_id", "status", "error", "format_version", "sweep", "group", "group_id",
	"instance", "instance_kind", "instance_hash", "instance_name", "d", "features", "reward_model", "noise_var",
	"partition_strategy", "partition_seed", "k", "fixed_basis", "instance_seed", "shared_contexts", "context_gen",
	"family", "algorithm", "trust", "params", "protocol", "lazy", "preset", "eps", "delta", "relation",
	"M", "T", "B", "alpha", "every", "seed", "R", "crs", "gram_noise", "reward_lo", "reward_hi", "no_clip",
	"sigma", "lambda", "beta_T", "kappa", "delivered_eps", "delivered_delta", "amplified", "calibration_note", "mu_gdp",
	"non_pd", "syncs", "scalars", "rounds", "pseudo_regret", "realised_regret", "silo_pseudo_regret", "silo_realised_regret", "wall_seconds",
}

// legacyPointColumns are the curve columns of layouts 1 and 2.
var legacyPointColumns = []Column[Point]{
	value("round", "", "", "", func(p *Point) *int64 { return &p.Round }),
	pointBase[1], pointBase[2], pointBase[3],
}

// legacySummary is the summary of a layout-1 or -2 file, by key; its
// getters record the first error, naming the column.
type legacySummary struct {
	v   map[string]string
	err error
}

func (l *legacySummary) fail(key, s string, err error) {
	if l.err == nil {
		l.err = fmt.Errorf("summary column %s: %q: %w", key, s, err)
	}
}

func (l *legacySummary) str(key string) string { return l.v[key] }

func (l *legacySummary) float(key string) float64 {
	x, err := strconv.ParseFloat(l.v[key], 64)
	if err != nil {
		l.fail(key, l.v[key], err)
	}
	return x
}

func (l *legacySummary) int(key string) int {
	x, err := strconv.Atoi(l.v[key])
	if err != nil {
		l.fail(key, l.v[key], err)
	}
	return x
}

func (l *legacySummary) uint(key string) uint64 {
	x, err := strconv.ParseUint(l.v[key], 10, 64)
	if err != nil {
		l.fail(key, l.v[key], err)
	}
	return x
}

func (l *legacySummary) bool(key string) bool {
	x, err := strconv.ParseBool(l.v[key])
	if err != nil {
		l.fail(key, l.v[key], err)
	}
	return x
}

func (l *legacySummary) floats(key string) []float64 {
	x, err := parseFloats(l.v[key])
	if err != nil {
		l.fail(key, l.v[key], err)
	}
	return x
}

// params parses layout 2's "key=value,..." ("" none, "null" unrecorded).
func (l *legacySummary) params(key string) map[string]float64 {
	s := l.v[key]
	if s == "null" {
		return nil
	}
	m := map[string]float64{}
	if s == "" {
		return m
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		x, err := strconv.ParseFloat(v, 64)
		if _, dup := m[k]; !ok || k == "" || err != nil || dup {
			l.fail(key, s, fmt.Errorf("parameter %q: want key=value, once", kv))
			return m
		}
		m[k] = x
	}
	return m
}

// decodeLegacyRun reads a per-run file of layout 1 or 2 (its checksum
// as those layouts computed it) and upgrades its record.
func decodeLegacyRun(r *ipc.FileReader, layout int) (*RunRecord, []Point, error) {
	pts, err := readPoints(r, legacyPointColumns)
	if err != nil {
		return nil, nil, err
	}
	md := r.Schema().Metadata()
	l := &legacySummary{v: map[string]string{}}
	var summary []string
	for _, k := range legacyColumns {
		if layout < 2 && (k == "family" || k == "trust" || k == "params") {
			continue
		}
		v, ok := md.GetValue(metaPrefix + k)
		if !ok {
			return nil, nil, fmt.Errorf("summary column %s missing", k)
		}
		l.v[k] = strings.Clone(v) // not the file's buffer (see decodeRun)
		summary = append(summary, v)
	}
	want, _ := md.GetValue(metaChecksum)
	if got := legacyChecksum(summary, pts); got != want {
		return nil, nil, fmt.Errorf("content checksum %s, recorded %s (corrupted or edited file)", got, want)
	}
	rec, err := upgradeLegacy(l, layout)
	if err != nil {
		return nil, nil, err
	}
	rec.upgradeMeanings(layout)
	if rec.FormatVersion != layout {
		return nil, nil, fmt.Errorf("summary column format_version: %d in a file of layout %d", rec.FormatVersion, layout)
	}
	if err := rec.validate(pts); err != nil {
		return nil, nil, err
	}
	return rec, pts, nil
}

// legacyChecksum is layouts 1 and 2's content checksum: the hex SHA-256
// of the summary values (each length-prefixed) and the four curve values
// of every point in a fixed binary encoding.
func legacyChecksum(summary []string, pts []Point) string {
	h := sha256.New()
	var buf [32]byte
	for _, v := range summary {
		binary.LittleEndian.PutUint64(buf[:8], uint64(len(v)))
		h.Write(buf[:8])
		h.Write([]byte(v))
	}
	for _, p := range pts {
		binary.LittleEndian.PutUint64(buf[0:], uint64(p.Round))
		binary.LittleEndian.PutUint64(buf[8:], math.Float64bits(p.Pseudo))
		binary.LittleEndian.PutUint64(buf[16:], math.Float64bits(p.Realised))
		binary.LittleEndian.PutUint64(buf[24:], uint64(p.Syncs))
		h.Write(buf[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// seedInName finds a mab or bco instance's seed in its layout-2 name
// ("mab K=10 gap=0.5 seed=3 ...", "bco d=10 ... seed=0"): layout 2 wrote
// 0 in instance_seed for those kinds.
var seedInName = regexp.MustCompile(` seed=(\d+)\b`)

// legacyKinds upgrades the instance columns of each kind layouts 1 and 2
// wrote: what each kind's row held, and where its values went.
var legacyKinds = map[string]func(l *legacySummary, r *RunRecord){
	"synthetic": func(l *legacySummary, r *RunRecord) {
		r.Dim, r.NoiseVar, r.Arms = Some(l.int("d")), Some(l.float("noise_var")), Some(l.int("k"))
		r.InstanceSeed, r.FixedBasis, r.SharedContexts = Some(l.uint("instance_seed")), Some(l.bool("fixed_basis")), Some(l.bool("shared_contexts"))
		r.ContextGen = l.str("context_gen")
	},
	"ltr": func(l *legacySummary, r *RunRecord) {
		r.Dim, r.NoiseVar = Some(l.int("d")), Some(l.float("noise_var"))
		r.Features, r.RewardModel, r.PartitionStrategy = l.str("features"), l.str("reward_model"), l.str("partition_strategy")
		r.PartitionSeed = Some(l.uint("partition_seed"))
	},
	// A mab row held the arms in d, and its seed only in its name.
	"mab": func(l *legacySummary, r *RunRecord) {
		r.Arms = Some(l.int("d"))
		r.InstanceSeed = nameSeed(l.str("instance_name"))
	},
	"bco": func(l *legacySummary, r *RunRecord) {
		r.Dim = Some(l.int("d"))
		r.InstanceSeed = nameSeed(l.str("instance_name"))
	},
}

func nameSeed(name string) *uint64 {
	m := seedInName.FindStringSubmatch(name)
	if m == nil {
		return nil
	}
	v, err := strconv.ParseUint(m[1], 10, 64)
	if err != nil {
		return nil
	}
	return &v
}

// upgradeLegacy is the layout-3 record of a layout-1 or -2 summary.
func upgradeLegacy(l *legacySummary, layout int) (*RunRecord, error) {
	r := &RunRecord{
		RunID: l.str("run_id"), Status: l.str("status"), Error: l.str("error"), FormatVersion: l.int("format_version"),
		Sweep: l.str("sweep"), Group: l.str("group"), GroupID: l.str("group_id"),
		Instance: l.str("instance"), InstanceKind: l.str("instance_kind"), InstanceHash: l.str("instance_hash"), InstanceName: l.str("instance_name"),
		Algorithm: l.str("algorithm"), T: l.int("T"), Every: l.int("every"), Seed: l.uint("seed"),
		Syncs: int64(l.int("syncs")), Scalars: int64(l.int("scalars")), Rounds: l.int("rounds"),
		PseudoRegret: l.float("pseudo_regret"), RealisedRegret: l.float("realised_regret"), WallSeconds: l.float("wall_seconds"),
	}
	if layout >= 2 {
		r.Family, r.Trust, r.Params = l.str("family"), l.str("trust"), l.params("params")
	} else {
		trust, ok := layout1Trust[r.Algorithm]
		if !ok {
			return nil, fmt.Errorf("run %s: algorithm %q is not one of layout 1", r.RunID, r.Algorithm)
		}
		r.Family, r.Trust, r.Params = FamilyLinear, trust, map[string]float64{}
		if slices.Contains(layout1Unrecorded, r.Algorithm) {
			r.Params = nil
		}
	}
	kind, ok := legacyKinds[r.InstanceKind]
	if !ok {
		return nil, fmt.Errorf("summary column instance_kind: %q is not a kind of layout %d", r.InstanceKind, layout)
	}
	kind(l, r)
	private := r.Trust != core.TrustNone
	// Layouts 1 and 2 wrote 0 where a value did not apply: an eps or
	// delta the algorithm does not take, the silos and batch of the mab
	// family, the checkpoint spacing a mab or bco run left to its
	// default (T/100, at least 1).
	if eps := l.float("eps"); private && eps != 0 {
		r.Eps = &eps
	}
	if delta := l.float("delta"); private && delta != 0 {
		r.Delta = &delta
	}
	if m := l.int("M"); m != 0 {
		r.M = &m
	}
	if b := l.int("B"); b != 0 {
		r.B = &b
	}
	if r.Every == 0 {
		r.Every = max(r.T/100, 1)
	}
	note := l.str("calibration_note")
	deliv := l.float("delivered_eps")
	if r.Family == FamilyLinear {
		r.Linear = &LinearSettings{
			Protocol: l.str("protocol"), Lazy: l.bool("lazy"), Preset: l.str("preset"),
			Alpha: l.float("alpha"), R: l.float("R"), Crs: l.float("crs"), GramNoise: l.str("gram_noise"),
			RewardLo: l.float("reward_lo"), RewardHi: l.float("reward_hi"), NoClip: l.bool("no_clip"),
			Lambda: l.float("lambda"), BetaT: l.float("beta_T"), Kappa: l.int("kappa"), NonPD: int64(l.int("non_pd")),
		}
		if r.Status == StatusDone {
			r.Linear.SiloPseudo, r.Linear.SiloRealised = l.floats("silo_pseudo_regret"), l.floats("silo_realised_regret")
		}
		if private {
			r.Linear.Noise = &LinearNoise{Sigma: l.float("sigma"), MuGDP: l.float("mu_gdp"), Amplified: l.bool("amplified")}
			r.Relation = l.str("relation")
		}
		r.setClaim(private, !math.IsInf(deliv, 0) && !hasNotCertified(note), deliv, l.float("delivered_delta"), note)
	} else {
		// The generic families wrote "[not certified: ]<mechanism>; <note>".
		body, notCert := cutNotCertified(note)
		mech, rest, _ := strings.Cut(body, "; ")
		if private {
			r.Mechanism = mech
		}
		r.setClaim(private, !notCert && !math.IsInf(deliv, 0), deliv, l.float("delivered_delta"), rest)
	}
	if l.err != nil {
		return nil, l.err
	}
	return r, nil
}

// notCertified is the prefix of every note of a private run that is not
// certified.
const notCertified = "not certified: "

func hasNotCertified(note string) bool {
	_, ok := cutNotCertified(note)
	return ok
}

// cutNotCertified removes a leading "not certified:" in any case (and the
// spaces after it) from note.
func cutNotCertified(note string) (string, bool) {
	const p = "not certified:"
	if len(note) >= len(p) && strings.EqualFold(note[:len(p)], p) {
		return strings.TrimLeft(note[len(p):], " "), true
	}
	return note, false
}

// setClaim records a claim: certified only for a private run; the
// delivered guarantee of a private run when finite (for a run that is not
// certified, a valid bound above its target); the note, prefixed
// notCertified once for a private run that is not certified.
func (r *RunRecord) setClaim(private, certified bool, eps, delta float64, note string) {
	r.DeliveredEps, r.DeliveredDelta = nil, nil
	if private && !math.IsInf(eps, 0) && !math.IsNaN(eps) && eps >= 0 {
		r.DeliveredEps, r.DeliveredDelta = &eps, &delta
	}
	r.Certified = private && certified && r.DeliveredEps != nil
	if mutation.On("P5-23") { // certified inferred from a finite delivered eps
		r.Certified = private && r.DeliveredEps != nil
	}
	for {
		rest, ok := cutNotCertified(note)
		if !ok {
			break
		}
		note = rest
	}
	if private && !r.Certified {
		note = strings.TrimSuffix(notCertified+note, ": ")
		if note == strings.TrimSpace(notCertified) {
			note += " no reason recorded"
		}
	}
	r.CalibrationNote = note
}

// SetPrivacy records a run's privacy claim (core.Privacy) in its columns:
// certified, target_eps and target_delta, delivered_eps and
// delivered_delta (null for a non-private run, and for one that is not
// certified unless a finite bound is known), relation and relation_note,
// mechanism, sampler and calibration_note (prefixed "not certified: " once
// when the claim is not certified; null for a non-private run: the note is
// about privacy only). Whether the run is private is the record's trust
// (set first; the claim's when unset); a private run whose simulator made
// no claim is not certified.
func (r *RunRecord) SetPrivacy(p core.Privacy) {
	if r.Trust == "" {
		r.Trust = p.Trust
	}
	private := r.Trust != "" && r.Trust != core.TrustNone
	r.Relation, r.RelationNote, r.Mechanism, r.Sampler = "", "", "", ""
	r.TargetEps, r.TargetDelta = nil, nil
	if !private {
		r.setClaim(false, false, math.Inf(1), 0, "")
		return
	}
	if !p.Private() {
		r.setClaim(true, false, math.Inf(1), 0, "the simulator recorded no privacy claim")
		return
	}
	r.Relation, r.RelationNote, r.Mechanism, r.Sampler = p.Relation, p.RelationNote, p.Mechanism, p.Sampler
	r.TargetEps, r.TargetDelta = Some(p.TargetEps), Some(p.TargetDelta)
	r.setClaim(true, p.Certified, p.DeliveredEps, p.DeliveredDelta, p.Note)
}

// claim is the record's privacy claim in core's terms: what
// core.Privacy.Check, the one certification rule, judges.
func (r *RunRecord) claim() core.Privacy {
	p := core.Privacy{Trust: r.Trust, Relation: r.Relation, Mechanism: r.Mechanism, Sampler: r.Sampler,
		Certified: r.Certified, Note: r.CalibrationNote, DeliveredEps: math.Inf(1)}
	if r.TargetEps != nil {
		p.TargetEps = *r.TargetEps
	}
	if r.TargetDelta != nil {
		p.TargetDelta = *r.TargetDelta
	}
	if r.DeliveredEps != nil {
		p.DeliveredEps, p.DeliveredDelta = *r.DeliveredEps, *r.DeliveredDelta
	}
	return p
}
