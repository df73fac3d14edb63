package outputs

import (
	"reflect"
)

// Column documents one column of a table of rows R (runs.arrow, curves.arrow,
// audit.arrow): its name, unit, the runs it applies to (null in every other
// row) and meaning, and how to reach its value in a row. Its Arrow type is
// that of its value's codec. Columns, CurveColumns and AuditColumns are the
// one schema of each table: the Arrow writers and readers here walk them,
// and so may any other writer (a Parquet copy).
type Column[R any] struct {
	Name    string
	Unit    string // "" for dimensionless or categorical columns
	Applies string // the rows it applies to; null in the others
	Doc     string
	// get returns a pointer to the row's value (*T), or a nil *T when
	// the column is null for the row; set stores a read value (*T).
	get func(r *R) any
	set func(r *R, v any)
	// cd is the codec of the value type, set by withCodec.
	cd *codec
	// notNull marks a column no row leaves null (a value that always
	// applies, or a string every row records: always): its field is
	// non-nullable, a writer refuses a null there and a reader calls one
	// a damaged table.
	notNull bool
}

// required reports whether no row leaves the column null: its field is
// non-nullable in the tables' Arrow and Parquet schemas.
func (c Column[R]) required() bool { return c.notNull }

// always marks a string column that every row records (run_id, family,
// ...): non-nullable like a value that always applies.
func always[R any](c Column[R]) Column[R] {
	c.notNull = true
	return c
}

// TypeName is the column's type as README.md writes it: string, int64,
// float64, bool or list<float64>.
func (c Column[R]) TypeName() string { return c.codec().docType }

// Get returns a pointer to the row's value (*T for the column's value type
// T), or a nil pointer when the column is null for the row.
func (c Column[R]) Get(r *R) any { return c.get(r) }

func (c Column[R]) codec() codec {
	if c.cd != nil {
		return *c.cd
	}
	return codecFor(c.get(new(R)))
}

// withCodec returns c with its codec looked up once.
func withCodec[R any](c Column[R]) Column[R] {
	cd := codecFor(c.get(new(R)))
	c.cd = &cd
	return c
}

// Applies values.
const (
	appliesAll     = "all"
	appliesDone    = "done runs"
	appliesLinear  = "linear"
	appliesPrivate = "private runs (trust not none)"
	// appliesDonePrivate: a failed run records no privacy claim.
	appliesDonePrivate = "done private runs (trust not none)"
	// AppliesKinds is the Applies of a column of an instance kind's own
	// in Columns and README.md: each kind declares the columns its Record
	// fills (registry.Kind.Columns, listed by `run sweep --help`), so no
	// kind is named here. The tables' field metadata names them: the
	// registry registers them (RegisterKindColumns) and runs tables write
	// "instance kinds " and their names as the column's applies_to.
	AppliesKinds = "the kinds that declare it (registry.Kind.Columns; the field's applies_to metadata)"
)

// value is a column whose value always applies (a *T field of the row).
func value[R, T any](name, unit, applies, doc string, f func(*R) *T) Column[R] {
	_, str := any(new(T)).(*string)
	return withCodec(Column[R]{Name: name, Unit: unit, Applies: applies, Doc: doc,
		get:     func(r *R) any { return f(r) },
		set:     func(r *R, v any) { *f(r) = *v.(*T) },
		notNull: !str})
}

// nullable is a column held in a pointer field: nil is null.
func nullable[R, T any](name, unit, applies, doc string, f func(*R) **T) Column[R] {
	return withCodec(Column[R]{Name: name, Unit: unit, Applies: applies, Doc: doc,
		get: func(r *R) any { return *f(r) },
		set: func(r *R, v any) { *f(r) = v.(*T) }})
}

// inGroup is a column held in a group of fields that a row may lack (a
// nil *G, e.g. RunRecord.Linear): null when the group is absent.
func inGroup[R, G, T any](name, unit, applies, doc string, g func(*R) **G, f func(*G) *T) Column[R] {
	return withCodec(Column[R]{Name: name, Unit: unit, Applies: applies, Doc: doc,
		get: func(r *R) any {
			if *g(r) == nil {
				return (*T)(nil)
			}
			return f(*g(r))
		},
		set: func(r *R, v any) {
			if *g(r) == nil {
				*g(r) = new(G)
			}
			*f(*g(r)) = *v.(*T)
		}})
}

// doneOnly makes c null in the rows of failed runs.
func doneOnly(c Column[RunRecord]) Column[RunRecord] {
	c.notNull = false
	get := c.get
	c.get = func(r *RunRecord) any {
		p := get(r)
		if r.Status != StatusDone {
			return reflect.Zero(reflect.TypeOf(p)).Interface()
		}
		return p
	}
	return c
}

func linear[T any](name, unit, doc string, f func(*LinearSettings) *T) Column[RunRecord] {
	return inGroup(name, unit, appliesLinear, doc, func(r *RunRecord) **LinearSettings { return &r.Linear }, f)
}

func linearNoise[T any](name, unit, doc string, f func(*LinearNoise) *T) Column[RunRecord] {
	g := func(r *RunRecord) **LinearNoise {
		if r.Linear == nil {
			var none *LinearNoise
			return &none
		}
		return &r.Linear.Noise
	}
	c := inGroup(name, unit, "done private linear runs", doc, g, f)
	c.set = func(r *RunRecord, v any) {
		if r.Linear == nil {
			r.Linear = new(LinearSettings)
		}
		if r.Linear.Noise == nil {
			r.Linear.Noise = new(LinearNoise)
		}
		*f(r.Linear.Noise) = *v.(*T)
	}
	return c
}

type rr = RunRecord

// Columns describes runs.arrow, in file order. After them come the
// columns instance kinds declare that Columns lacks (RegisterKindColumns,
// sorted by name), then the algorithms' own parameters, one float64
// column param_<key> per key used by any row (sorted by key), null where
// a run's algorithm has no such key. A column with Applies AppliesKinds
// applies, in the tables, to the kinds that declare it (kindApplies).
var Columns = []Column[RunRecord]{
	always(value("run_id", "", appliesAll, "Run identity: hex SHA-256 of the canonical run specification, the instance content hash and the simulator-semantics version (runner.SemanticsVersion; not the layout). Same id, same spec, same curve bytes.", func(r *rr) *string { return &r.RunID })),
	always(value("status", "", appliesAll, `"done" or "failed".`, func(r *rr) *string { return &r.Status })),
	value("error", "", "failed runs", "Why a failed run failed (error or panic message).", func(r *rr) *string { return &r.Error }),
	value("format_version", "", appliesAll, "Layout version of the per-run file the run was recorded in (outputs.FormatVersion when recorded by this release; 1 or 2 for a run recorded by an older release, whose row is then upgraded on reading: README.md, Upgrade).", func(r *rr) *int { return &r.FormatVersion }),
	value("sweep", "", appliesAll, "Name of the sweep that produced the run (informational; not part of the id).", func(r *rr) *string { return &r.Sweep }),
	always(value("group_label", "", appliesAll, "Human-readable configuration: every specification field except the seed. Runs with the same group_label differ only in their seed; average over them. (Layout 2: group.)", func(r *rr) *string { return &r.Group })),
	always(value("group_id", "", appliesAll, "Hex SHA-256 (16 characters) of the specification without the seed: the grouping key of a configuration.", func(r *rr) *string { return &r.GroupID })),

	always(value("instance", "", appliesAll, "Instance name given in the sweep file (informational; not part of the id).", func(r *rr) *string { return &r.Instance })),
	always(value("instance_kind", "", appliesAll, `Instance kind of the run's [[instance]] table, one of the registry's (run sweep --help lists each with its keys and the columns it records).`, func(r *rr) *string { return &r.InstanceKind })),
	always(value("instance_hash", "", appliesAll, "Content hash of the instance: of the data a data-backed kind reads (documents, theta*, click model, partition), of its parameters otherwise.", func(r *rr) *string { return &r.InstanceHash })),
	always(value("instance_name", "", appliesAll, "Description of the instance (its kind's parameters).", func(r *rr) *string { return &r.InstanceName })),
	nullable("instance_seed", "", AppliesKinds, "Seed of the instance's random parts (theta* and shared contexts, the arms' means, the loss sequence, the order the documents arrive in); separate from the run seed.", func(r *rr) **uint64 { return &r.InstanceSeed }),
	nullable("arms", "actions", AppliesKinds, "Number of arms: the actions per silo per round K, or a multi-armed bandit's arms (a query's documents when they are the arms). Null where each round's actions are a query's documents. (Layout 2: k; a mab run's arms were in d.)", func(r *rr) **int { return &r.Arms }),
	nullable("qid", "", AppliesKinds, "The qid of the dataset's query whose documents are the arms. (Layout 3: query.)", func(r *rr) **int64 { return &r.Query }),
	nullable("d", "", "linear, bco", "Dimension: the linear learner's feature dimension, or bco's decision space.", func(r *rr) **int { return &r.Dim }),
	nullable("noise_var", "reward^2", AppliesKinds, "Variance of the Gaussian reward noise of a linear instance (0.25 in the paper's synthetic instance; 0 for noiseless rewards and for clicks); null where the rewards are Bernoulli by the instance's construction.", func(r *rr) **float64 { return &r.NoiseVar }),
	value("features", "", AppliesKinds, `Feature set of the dataset's documents ("title", "body", "all" or a column list).`, func(r *rr) *string { return &r.Features }),
	value("reward_model", "", AppliesKinds, `Reward model of a dataset's documents: the model theta* was fitted for ("reference", "well-specified"), or "click-" and the click model whose clicks are the rewards.`, func(r *rr) *string { return &r.RewardModel }),
	value("partition_strategy", "", AppliesKinds, `How queries are split across silos (e.g. "contiguous").`, func(r *rr) *string { return &r.PartitionStrategy }),
	nullable("partition_seed", "", AppliesKinds, "Seed of a randomised partition (0 for a deterministic one).", func(r *rr) **uint64 { return &r.PartitionSeed }),
	nullable("fixed_basis", "", AppliesKinds, "The published code's fixed basis-like first d actions.", func(r *rr) **bool { return &r.FixedBasis }),
	nullable("shared_contexts", "", AppliesKinds, "Contexts drawn from the instance seed (one instance for all runs, as the published code did).", func(r *rr) **bool { return &r.SharedContexts }),
	value("context_gen", "", AppliesKinds, `Generator of the contexts' Gaussian coordinates ("xoshiro-ziggurat" or "chacha8").`, func(r *rr) *string { return &r.ContextGen }),

	always(value("family", "", appliesAll, `Algorithm family: "linear" (linear contextual bandits, package federate; every run of layout 1), "mab" (distributed-DP multi-armed bandits) or "bco" (locally private bandit convex optimisation).`, func(r *rr) *string { return &r.Family })),
	always(value("algorithm", "", appliesAll, "Registered name (`run sweep --help` lists every algorithm with its summary and own parameters).", func(r *rr) *string { return &r.Algorithm })),
	always(value("trust", "", appliesAll, `Trust model of the algorithm's privacy: "none" (non-private), "central" (a trusted curator sees raw data), "local" (each silo or user randomises before anything leaves it), "shuffle" (a trusted shuffler between silos and server) or "distributed" (secure aggregation: the server sees only a noisy sum).`, func(r *rr) *string { return &r.Trust })),
	nullable("eps", "", "algorithms that take eps", "The algorithm's eps parameter as the sweep gave it. Its meaning is the algorithm's: a pure or (eps, delta) target, or under dist-rdp-se / dist-cdp-se's paper preset (param_paper_eps = 1) the Renyi or zCDP parameter. target_eps is always the (eps, delta)-DP target.", func(r *rr) **float64 { return &r.Eps }),
	nullable("delta", "", "algorithms that take delta", "The algorithm's delta parameter as the sweep gave it (null for a pure-DP algorithm; target_delta is then 0).", func(r *rr) **float64 { return &r.Delta }),
	nullable("M", "silos", "linear, bco", "Number of silos M.", func(r *rr) **int { return &r.M }),
	nullable("B", "rounds", "linear, bco", "Batch size B: synchronise every B rounds.", func(r *rr) **int { return &r.B }),
	value("horizon", "rounds", appliesAll, "Rounds per silo T. (Layout 2: T.)", func(r *rr) *int { return &r.T }),
	value("checkpoint_every", "rounds", appliesAll, "Checkpoint spacing of the curve (the last round is always recorded): the sweep key checkpoint_every. (Layout 3: every, an SQL reserved word.)", func(r *rr) *int { return &r.Every }),
	value("seed", "", appliesAll, "Run seed: every random stream of the run derives from it (int64; layout 2 wrote uint64).", func(r *rr) *uint64 { return &r.Seed }),

	linear("protocol", "", `Privacy protocol: "P" (paper Algorithm 2) or "P_alt" (Algorithm 4).`, func(l *LinearSettings) *string { return &l.Protocol }),
	linear("lazy_learner", "", "Lazy variant (paper Algorithm 8): act on synchronised statistics only. (Layout 2: lazy.)", func(l *LinearSettings) *bool { return &l.Lazy }),
	linear("preset", "", `Calibration preset that chose sigma, lambda and beta: "paper", "reference-code" or "exact".`, func(l *LinearSettings) *string { return &l.Preset }),
	linear("alpha", "", "Confidence level of the UCB (0.01 in the paper).", func(l *LinearSettings) *float64 { return &l.Alpha }),
	linear("R", "reward", "Reward-noise scale R in beta_t (synthetic default sqrt(noise_var); ltr 1).", func(l *LinearSettings) *float64 { return &l.R }),
	linear("beta_crs", "", "Multiplier crs on beta_t (synthetic 1; ltr 0.1). (Layout 2: crs; a mab algorithm's own crs is param_crs.)", func(l *LinearSettings) *float64 { return &l.Crs }),
	linear("gram_noise", "", `Gram-noise convention: "symmetrised" ((Z+Z^T)/2, the published code's) or "upper-iid".`, func(l *LinearSettings) *string { return &l.GramNoise }),
	linear("reward_lo", "reward", "Observed rewards are clamped to [reward_lo, reward_hi] before entering any statistic.", func(l *LinearSettings) *float64 { return &l.RewardLo }),
	linear("reward_hi", "reward", "Upper end of the reward clamp.", func(l *LinearSettings) *float64 { return &l.RewardHi }),
	linear("no_clip", "", "Rewards not clamped (non-private fedlinucb only, like the published code).", func(l *LinearSettings) *bool { return &l.NoClip }),
	linear("ridge_lambda", "", "Ridge regulariser lambda (the reference code's Lambda). (Layout 2: lambda.)", func(l *LinearSettings) *float64 { return &l.Lambda }),
	linear("beta_T", "", "Confidence width multiplier beta_t at the last round T.", func(l *LinearSettings) *float64 { return &l.BetaT }),
	linear("kappa", "nodes", "Tree nodes containing one batch, 1 + floor(log2 ceil(T/B)).", func(l *LinearSettings) *int { return &l.Kappa }),
	linearNoise("sigma", "", "Standard deviation of the Gaussian noise added to each entry of each released tree node, per stream.", func(n *LinearNoise) *float64 { return &n.Sigma }),
	linearNoise("mu_gdp", "", "Gaussian-DP parameter mu of one silo's whole transcript.", func(n *LinearNoise) *float64 { return &n.MuGDP }),
	linearNoise("amplified", "", "Whether shuffle amplification applied (sdp-amp); when false for sdp-amp, calibration_note says why and the delivered guarantee is the unamplified one.", func(n *LinearNoise) *bool { return &n.Amplified }),
	doneOnly(linear("non_pd", "events", "Times a noisy Gram matrix V was not positive definite (handled by the simulator's documented rule).", func(l *LinearSettings) *int64 { return &l.NonPD })),
	doneOnly(linear("silo_pseudo_regret", "reward", "Per-silo pseudo-regret totals at T (list of M values, silo order).", func(l *LinearSettings) *[]float64 { return &l.SiloPseudo })),
	doneOnly(linear("silo_realised_regret", "reward", "Per-silo realised-regret totals at T (list of M values).", func(l *LinearSettings) *[]float64 { return &l.SiloRealised })),

	value("certified", "", appliesAll, "Whether the run's privacy guarantee is certified for the run as simulated: true exactly when the run is private, its guarantee is sound in exact arithmetic and delivered_eps <= target_eps and delivered_delta <= target_delta (core.Privacy.Check, the same rule for upgraded rows). Never null; false for every non-private run (trust none).", func(r *rr) *bool { return &r.Certified }),
	nullable("target_eps", "", appliesDonePrivate, "Epsilon of the (eps, delta)-DP target the run was calibrated to, in every family: the algorithm's eps, or under a paper preset (param_paper_eps = 1) its nominal curve as (eps, delta)-DP at delta. Never null in a done private run's row; null for every non-private run and every failed run (which records no claim).", func(r *rr) **float64 { return &r.TargetEps }),
	nullable("target_delta", "", appliesDonePrivate, "Delta of the target: the algorithm's delta, 0 for a pure-DP target. Null where target_eps is.", func(r *rr) **float64 { return &r.TargetDelta }),
	nullable("delivered_eps", "", appliesPrivate, "Epsilon the run's noise guarantees under relation at delivered_delta, from the family's accountant. For a run that is not certified, a valid bound when one is known (above the target), else null. Null for every non-private run.", func(r *rr) **float64 { return &r.DeliveredEps }),
	nullable("delivered_delta", "", appliesPrivate, "Delta of the delivered guarantee (null when delivered_eps is).", func(r *rr) **float64 { return &r.DeliveredDelta }),
	value("relation", "", appliesPrivate, `Neighbouring relation of the guarantee, a token in every family: "add-remove" (one user added or removed) or "replace-one" (one user's data replaced); relation_note says more. Layout-1 and layout-2 mab and bco rows, which did not record it, get their family's (replace-one).`, func(r *rr) *string { return &r.Relation }),
	value("relation_note", "", "private mab and bco runs", "The family's neighbouring relation in words (e.g. mab: each user contributes once, so the batches compose in parallel).", func(r *rr) *string { return &r.RelationNote }),
	value("mechanism", "", appliesPrivate, "The privacy mechanism, one token of core.Mechanisms (README.md, \"Mechanisms\"), e.g. \"tree-gaussian\", \"polya-secagg\", \"gaussian-report\". Layout-1 and layout-2 linear rows, which did not record it, get their algorithm's (discrete when the note names the exact sampler).", func(r *rr) *string { return &r.Mechanism }),
	value("sampler", "", appliesPrivate, `The sampler that draws the privacy noise, by short name, the same vocabulary in every family (core.Samplers): "gaussian" (floating point), "discrete-gaussian" (exact) or "binomial" for the linear family; "discrete-laplace", "laplace" (floating point: DP-SE with reference_code = 1), "polya" (Polya shares drawn per user), "skellam" or "discrete-gaussian" for mab; "gaussian" for bco. How it draws is said in calibration_note ("sampler: ...", mab).`, func(r *rr) *string { return &r.Sampler }),
	value("calibration_note", "", appliesPrivate, `What a reader of the privacy claim should know, about privacy only (null for every non-private run). Starts with "not certified: " and the reason for every private run that is not certified.`, func(r *rr) *string { return &r.CalibrationNote }),

	doneOnly(value("final_syncs", "synchronisations", appliesDone, "Number of synchronisations at T (mab: batches; bco: releases). (Layout 3: syncs.)", func(r *rr) *int64 { return &r.Syncs })),
	doneOnly(value("scalars", "scalars", appliesDone, "Scalars communicated from silos (or users) to the server.", func(r *rr) *int64 { return &r.Scalars })),
	doneOnly(value("rounds", "rounds", appliesDone, "Last round recorded in the curve (T for a done run).", func(r *rr) *int { return &r.Rounds })),
	doneOnly(value("final_pseudo_regret", "reward", appliesDone, "Group pseudo-regret R_M(T): sum over silos and rounds of best mean minus chosen mean (bco: of the loss over its minimum). (Layout 3: pseudo_regret.)", func(r *rr) *float64 { return &r.PseudoRegret })),
	doneOnly(value("final_realised_regret", "reward", appliesDone, "Group realised regret at T: sum of observed reward of the best action minus that of the chosen one (bco: of the incurred losses). (Layout 3: realised_regret.)", func(r *rr) *float64 { return &r.RealisedRegret })),
	value("hindsight_note", "", "runs with a note (bco-ltr absolute loss, ltr)", "How exact the regret's comparator is: bco-ltr's certificate of its absolute-loss hindsight minima (largest duality gap), or a linear ltr instance's note on its reference model theta*. Not about privacy.", func(r *rr) *string { return &r.HindsightNote }),
	doneOnly(value("wall_seconds", "s", appliesDone, "Wall time of the simulation. The only column that is not reproducible: exclude it when comparing outputs.", func(r *rr) *float64 { return &r.WallSeconds })),
}

// ParamPrefix starts the name of the column of an algorithm's own
// parameter: param_<key>.
const ParamPrefix = "param_"

// paramColumn is the column of parameter key: its meaning and the
// algorithms that take it as registered (RegisterRelease).
func paramColumn(key string) Column[RunRecord] {
	applies, doc := "algorithms with this parameter", ""
	if params, _ := registered(); params != nil {
		if p, ok := params[key]; ok {
			applies, doc = p.Algorithms, p.Doc
		}
	}
	return withCodec(Column[RunRecord]{Name: ParamPrefix + key, Applies: applies, Doc: doc,
		get: func(r *rr) any {
			v, ok := r.Params[key]
			if !ok {
				return (*float64)(nil)
			}
			return &v
		},
		set: func(r *rr, v any) {
			if r.Params == nil {
				r.Params = map[string]float64{}
			}
			r.Params[key] = *v.(*float64)
		}})
}

type cp = CurvePoint

// curveBase are the columns of curves.arrow that every run has; the
// curve metrics families produce (Metrics with a family source) follow.
var curveBase = []Column[CurvePoint]{
	always(value("run_id", "", appliesAll, "Run identity; joins with runs.arrow (the only column the two tables share: `curves JOIN runs USING (run_id)`). Rows are sorted by the run's group_id (in runs.arrow), then run_id and t, and a record batch holds whole configurations (tables.json lists them).", func(r *cp) *string { return &r.RunID })),
	value("t", "rounds", appliesAll, "Round t per silo (1-indexed). Checkpoints every `every` rounds plus the last round. (Layout 2: round.)", func(r *cp) *int64 { return &r.Round }),
	value("pseudo_regret", "reward", appliesAll, "Group pseudo-regret R_M(t), summed over silos (means of best and chosen actions).", func(r *cp) *float64 { return &r.Pseudo }),
	value("realised_regret", "reward", appliesAll, "Group realised regret up to t (observed rewards of best and chosen actions), summed over silos.", func(r *cp) *float64 { return &r.Realised }),
	value("syncs", "synchronisations", appliesAll, "Synchronisations up to round t.", func(r *cp) *int64 { return &r.Syncs }),
	value("time_avg_pseudo_regret", "reward/round", appliesAll, "pseudo_regret / t: the paper's time-average group regret R_M(t)/t.", func(r *cp) *float64 { return &r.TimeAvgPseudo }),
	value("time_avg_realised_regret", "reward/round", appliesAll, "realised_regret / t.", func(r *cp) *float64 { return &r.TimeAvgRealised }),
	nullable("per_silo_pseudo_regret", "reward/round/silo", "linear, bco", "pseudo_regret / (t M): average regret per silo and round; null where the family has no silos (M null).", func(r *cp) **float64 { return &r.PerSiloPseudo }),
	nullable("per_silo_realised_regret", "reward/round/silo", "linear, bco", "realised_regret / (t M).", func(r *cp) **float64 { return &r.PerSiloRealised }),
}

// CurveColumns describes curves.arrow, in file order: the base columns,
// then one float64 column per curve metric a run produces (Metrics, in
// its order: core's, then the families'), null for the runs that do not
// produce it (and in files written before the metric existed). The
// per-run files DIR/runs/<id>.arrow hold t, pseudo_regret,
// realised_regret, syncs and the metrics their run produced.
func CurveColumns() []Column[CurvePoint] {
	cols := append([]Column[CurvePoint](nil), curveBase...)
	for _, m := range Metrics() {
		if m.derive == nil {
			cols = append(cols, m.column())
		}
	}
	return cols
}

// Schema metadata keys.
const (
	metaFormat   = "fedbandit.format_version"
	metaPrefix   = "fedbandit.run."
	metaChecksum = "fedbandit.content_sha256"
)
