package outputs

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// Column documents one column of runs.arrow: its name, unit and meaning;
// its Arrow type is that of its RunRecord field (codecs). The order of
// Columns is the column order of the file.
type Column struct {
	Name string
	Unit string // "" for dimensionless or categorical columns
	Doc  string
	// field returns a pointer to the RunRecord field holding the value
	// (a type of codecs).
	field func(r *RunRecord) any
}

// TypeName is the column's type as README.md writes it: string, int64,
// uint64, float64, bool, list<float64> or struct<float64> (params).
func (c Column) TypeName() string { return codecOf(c.field(new(RunRecord))).docType }

var (
	tString = arrow.BinaryTypes.String
	tInt    = arrow.PrimitiveTypes.Int64
	tUint   = arrow.PrimitiveTypes.Uint64
	tFloat  = arrow.PrimitiveTypes.Float64
	tBool   = arrow.FixedWidthTypes.Boolean
	tFloats = arrow.ListOf(arrow.PrimitiveTypes.Float64)
)

// Columns describes runs.arrow, in file order.
var Columns = []Column{
	{"run_id", "", "Run identity: hex SHA-256 of the canonical run specification, the instance content hash and the simulator-semantics version (runner.SemanticsVersion; not the layout). Same id, same spec, same curve bytes.", func(r *RunRecord) any { return &r.RunID }},
	{"status", "", `"done" or "failed".`, func(r *RunRecord) any { return &r.Status }},
	{"error", "", `Why a failed run failed (error or panic message); "" when done.`, func(r *RunRecord) any { return &r.Error }},
	{"format_version", "", "Layout version of the per-run file the run was recorded in (outputs.FormatVersion when recorded by this release; 1 for a run recorded before family, trust and params existed, whose values are then derived on reading).", func(r *RunRecord) any { return &r.FormatVersion }},
	{"sweep", "", "Name of the sweep that produced the run (informational; not part of the id).", func(r *RunRecord) any { return &r.Sweep }},
	{"group", "", "Human-readable configuration: every specification field except the seed. Runs with the same group differ only in their seed; average over them.", func(r *RunRecord) any { return &r.Group }},
	{"group_id", "", "Hex SHA-256 (16 characters) of the specification without the seed: the grouping key of group.", func(r *RunRecord) any { return &r.GroupID }},

	{"instance", "", "Instance name given in the sweep file (informational; not part of the id).", func(r *RunRecord) any { return &r.Instance }},
	{"instance_kind", "", `"synthetic" (paper section 6 Gaussian instance) or "ltr" (learning-to-rank dataset).`, func(r *RunRecord) any { return &r.InstanceKind }},
	{"instance_hash", "", "Content hash of the instance: for ltr the hash of the prepared data (documents, theta*, reward model, partition: LTRData.Hash); for synthetic the hash of its parameters.", func(r *RunRecord) any { return &r.InstanceHash }},
	{"instance_name", "", "Description of the instance (ltr: dataset, feature set, model; synthetic: its parameters).", func(r *RunRecord) any { return &r.InstanceName }},
	{"d", "", "Feature dimension d of the learner.", func(r *RunRecord) any { return &r.Dim }},
	{"features", "", `ltr feature set ("title", "body", "all" or a column list); "" for synthetic.`, func(r *RunRecord) any { return &r.Features }},
	{"reward_model", "", `ltr reward model; "" for synthetic.`, func(r *RunRecord) any { return &r.RewardModel }},
	{"noise_var", "reward^2", "Variance of the Gaussian reward noise (0.25 in the synthetic instance, 0 for the noiseless ltr reference model).", func(r *RunRecord) any { return &r.NoiseVar }},
	{"partition_strategy", "", `ltr: how queries are split across silos (e.g. "contiguous"); "" for synthetic.`, func(r *RunRecord) any { return &r.PartitionStrategy }},
	{"partition_seed", "", "ltr: seed of a randomised partition (0 otherwise).", func(r *RunRecord) any { return &r.PartitionSeed }},
	{"k", "actions", "synthetic: actions per silo per round K (0 for ltr, where the actions are a query's documents).", func(r *RunRecord) any { return &r.SynK }},
	{"fixed_basis", "", "synthetic: the published code's fixed basis-like first d actions.", func(r *RunRecord) any { return &r.FixedBasis }},
	{"instance_seed", "", "synthetic: seed of theta* (and shared contexts); separate from the run seed.", func(r *RunRecord) any { return &r.InstanceSeed }},
	{"shared_contexts", "", "synthetic: contexts drawn from the instance seed (one instance for all runs, as the published code did).", func(r *RunRecord) any { return &r.SharedContexts }},

	{"context_gen", "", `synthetic: generator of the contexts' Gaussian coordinates ("xoshiro-ziggurat" or "chacha8"); "" for ltr.`, func(r *RunRecord) any { return &r.ContextGen }},

	{"family", "", `Algorithm family: "linear" (linear contextual bandits, package federate; every run of layout 1), "mab" (distributed-DP multi-armed bandits) or "bco" (locally private bandit convex optimisation).`, func(r *RunRecord) any { return &r.Family }},
	{"algorithm", "", "Registered name (`registry.Algorithms`; `run sweep --help` lists every algorithm with its summary and own parameters); the `family`, `trust` and `params` columns say what it is.", func(r *RunRecord) any { return &r.Algorithm }},
	{"trust", "", `Trust model of the algorithm's privacy: "none" (non-private), "central" (a trusted curator sees raw data), "local" (each silo or user randomises before anything leaves it), "shuffle" (a trusted shuffler between silos and server) or "distributed" (secure aggregation: the server sees only a noisy sum).`, func(r *RunRecord) any { return &r.Trust }},
	{"params", "", "The algorithm's own parameters (with defaults filled in): a struct with one float64 field per parameter key used in the table, null where the run's algorithm has no such key (a notebook unnests it: polars `unnest(\"params\")`, pyarrow `flatten()`). The whole value is null for a run recorded by layout 1 whose parameters that layout did not record (feducb's sync_threshold).", func(r *RunRecord) any { return &r.Params }},
	{"protocol", "", `Privacy protocol: "P" (paper Algorithm 2) or "P_alt" (Algorithm 4).`, func(r *RunRecord) any { return &r.Protocol }},
	{"lazy", "", "Lazy variant (paper Algorithm 8): act on synchronised statistics only.", func(r *RunRecord) any { return &r.Lazy }},
	{"preset", "", `Calibration preset that chose sigma, lambda and beta: "paper", "reference-code" or "exact".`, func(r *RunRecord) any { return &r.Preset }},
	{"eps", "", "Target epsilon (0 for fedlinucb).", func(r *RunRecord) any { return &r.Eps }},
	{"delta", "", "Target delta (0 for fedlinucb).", func(r *RunRecord) any { return &r.Delta }},
	{"relation", "", `Neighbouring relation of the guarantee: "add-remove" or "replace-one".`, func(r *RunRecord) any { return &r.Relation }},
	{"M", "silos", "Number of silos M.", func(r *RunRecord) any { return &r.M }},
	{"T", "rounds", "Rounds per silo T.", func(r *RunRecord) any { return &r.T }},
	{"B", "rounds", "Batch size B: synchronise every B rounds.", func(r *RunRecord) any { return &r.B }},
	{"alpha", "", "Confidence level of the UCB (0.01 in the paper).", func(r *RunRecord) any { return &r.Alpha }},
	{"every", "rounds", "Checkpoint spacing of the curve (the last round is always recorded).", func(r *RunRecord) any { return &r.Every }},
	{"seed", "", "Run seed: every random stream of the run derives from it.", func(r *RunRecord) any { return &r.Seed }},
	{"R", "reward", "Reward-noise scale R in beta_t (synthetic default sqrt(noise_var); ltr 1).", func(r *RunRecord) any { return &r.R }},
	{"crs", "", "Multiplier crs on beta_t (synthetic 1; ltr 0.1).", func(r *RunRecord) any { return &r.Crs }},
	{"gram_noise", "", `Gram-noise convention: "symmetrised" ((Z+Z^T)/2, the published code's) or "upper-iid".`, func(r *RunRecord) any { return &r.GramNoise }},
	{"reward_lo", "reward", "Observed rewards are clamped to [reward_lo, reward_hi] before entering any statistic.", func(r *RunRecord) any { return &r.RewardLo }},
	{"reward_hi", "reward", "Upper end of the reward clamp.", func(r *RunRecord) any { return &r.RewardHi }},
	{"no_clip", "", "Rewards not clamped (non-private fedlinucb only, like the published code).", func(r *RunRecord) any { return &r.NoClip }},

	{"sigma", "", "Standard deviation of the Gaussian noise added to each entry of each released tree node, per stream (0 for fedlinucb).", func(r *RunRecord) any { return &r.Sigma }},
	{"lambda", "", "Ridge regulariser lambda (the reference code's Lambda).", func(r *RunRecord) any { return &r.Lambda }},
	{"beta_T", "", "Confidence width multiplier beta_t at the last round T.", func(r *RunRecord) any { return &r.BetaT }},
	{"kappa", "nodes", "Tree nodes containing one batch, 1 + floor(log2 ceil(T/B)).", func(r *RunRecord) any { return &r.Kappa }},
	{"delivered_eps", "", "Epsilon the run's noise actually guarantees under relation, at delivered_delta, from the exact accountant (+Inf for fedlinucb).", func(r *RunRecord) any { return &r.DeliveredEps }},
	{"delivered_delta", "", "Delta of the delivered guarantee.", func(r *RunRecord) any { return &r.DeliveredDelta }},
	{"amplified", "", "Whether shuffle amplification applied (sdp-amp); when false for sdp-amp, calibration_note says why and the delivered guarantee is the unamplified one.", func(r *RunRecord) any { return &r.Amplified }},
	{"calibration_note", "", "Anything a reader of the calibration should know (from the accountant).", func(r *RunRecord) any { return &r.CalibrationNote }},
	{"mu_gdp", "", "Gaussian-DP parameter mu of one silo's whole transcript (0 for fedlinucb).", func(r *RunRecord) any { return &r.MuGDP }},

	{"non_pd", "events", "Times a noisy Gram matrix V was not positive definite (handled by the simulator's documented rule).", func(r *RunRecord) any { return &r.NonPD }},
	{"syncs", "synchronisations", "Number of synchronisations.", func(r *RunRecord) any { return &r.Syncs }},
	{"scalars", "scalars", "Scalars communicated from silos to the server.", func(r *RunRecord) any { return &r.Scalars }},
	{"rounds", "rounds", "Last round recorded in the curve (T for a done run, 0 for a failed one).", func(r *RunRecord) any { return &r.Rounds }},
	{"pseudo_regret", "reward", "Group pseudo-regret R_M(T): sum over silos and rounds of best mean minus chosen mean.", func(r *RunRecord) any { return &r.PseudoRegret }},
	{"realised_regret", "reward", "Group realised regret at T: sum of observed reward of the best action minus that of the chosen one.", func(r *RunRecord) any { return &r.RealisedRegret }},
	{"silo_pseudo_regret", "reward", "Per-silo pseudo-regret totals at T (list of M values, silo order).", func(r *RunRecord) any { return &r.SiloPseudo }},
	{"silo_realised_regret", "reward", "Per-silo realised-regret totals at T (list of M values).", func(r *RunRecord) any { return &r.SiloRealised }},
	{"wall_seconds", "s", "Wall time of the simulation. The only column that is not reproducible: exclude it when comparing outputs.", func(r *RunRecord) any { return &r.WallSeconds }},
}

// CurveColumn documents one column of curves.arrow.
type CurveColumn struct {
	Name  string
	Unit  string
	Doc   string
	field func(r *CurvePoint) any
}

// TypeName is the column's type as README.md writes it: string, int64,
// uint64, float64, bool, list<float64> or struct<float64> (params).
func (c CurveColumn) TypeName() string { return codecOf(c.field(new(CurvePoint))).docType }

// CurveColumns describes curves.arrow, in file order. The per-run files
// DIR/runs/<id>.arrow hold round, pseudo_regret, realised_regret and syncs.
var CurveColumns = []CurveColumn{
	{"run_id", "", "Run identity; joins with runs.arrow.", func(r *CurvePoint) any { return &r.RunID }},
	{"round", "rounds", "Round t per silo (1-indexed). Checkpoints every `every` rounds plus the last round.", func(r *CurvePoint) any { return &r.Round }},
	{"pseudo_regret", "reward", "Group pseudo-regret R_M(t), summed over silos (means of best and chosen actions).", func(r *CurvePoint) any { return &r.Pseudo }},
	{"realised_regret", "reward", "Group realised regret up to t (observed rewards of best and chosen actions), summed over silos.", func(r *CurvePoint) any { return &r.Realised }},
	{"time_avg_pseudo_regret", "reward/round", "pseudo_regret / round: the paper's time-average group regret R_M(t)/t.", func(r *CurvePoint) any { return &r.TimeAvgPseudo }},
	{"time_avg_realised_regret", "reward/round", "realised_regret / round.", func(r *CurvePoint) any { return &r.TimeAvgRealised }},
	{"per_silo_pseudo_regret", "reward/round/silo", "pseudo_regret / (round * M): average regret per silo and round.", func(r *CurvePoint) any { return &r.PerSiloPseudo }},
	{"per_silo_realised_regret", "reward/round/silo", "realised_regret / (round * M).", func(r *CurvePoint) any { return &r.PerSiloRealised }},
	{"syncs", "synchronisations", "Synchronisations up to round t.", func(r *CurvePoint) any { return &r.Syncs }},
}

// Schema metadata keys.
const (
	metaFormat   = "fedbandit.format_version"
	metaPrefix   = "fedbandit.run."
	metaChecksum = "fedbandit.content_sha256"
)

// typeName is the short name of a column type used in README.md: string,
// int64, uint64, float64, bool or list<float64>.
func typeName(t arrow.DataType) string {
	switch t.ID() {
	case arrow.STRING:
		return "string"
	case arrow.BOOL:
		return "bool"
	case arrow.LIST:
		return "list<" + t.(*arrow.ListType).Elem().String() + ">"
	}
	return t.String()
}
