package outputs

import (
	"fmt"
	"io"
	"math"
)

// AuditFile is the name of `run audit --out DIR`'s table.
const AuditFile = "audit.arrow"

// AuditRow is one audited configuration of `run audit` (federate.Audit):
// the configuration, the accountant's claim and the empirical bounds.
type AuditRow struct {
	Config     string // the configuration, as `run audit` prints it
	Algorithm  string
	Learner    string // "eager" or "lazy"
	Preset     string
	Protocol   string
	Relation   string
	Eps, Delta float64
	B, M, T    int
	Pair       string // "reward" or "schedule"
	PairDoc    string
	Trials     int
	Seed       uint64
	SigmaScale float64
	ClaimMu    float64
	ClaimEps   float64
	ExactMu    float64
	Mu         float64
	MuLo, MuHi float64
	SD         float64
	SDLo, SDHi float64
	P0, P1     float64
	EpsLo      float64
	Verdict    string
	// Released0 and Released1 are the releases under the two datasets,
	// one per trial (federate.AuditResult).
	Released0, Released1 []float64
}

// auditColumn documents one column of audit.arrow.
type auditColumn struct {
	Name  string
	Unit  string
	Doc   string
	field func(r *AuditRow) any
}

// TypeName is the column's type as README.md writes it: string, int64,
// uint64, float64, bool, list<float64> or struct<float64> (params).
func (c auditColumn) TypeName() string { return codecOf(c.field(new(AuditRow))).docType }

// AuditColumns describes audit.arrow, in file order.
var AuditColumns = []auditColumn{
	{"config", "", "The audited configuration, as `run audit` prints it.", func(r *AuditRow) any { return &r.Config }},
	{"algorithm", "", "Registered algorithm name (see runs.arrow).", func(r *AuditRow) any { return &r.Algorithm }},
	{"learner", "", `"eager" (paper Algorithm 1) or "lazy" (Algorithm 8).`, func(r *AuditRow) any { return &r.Learner }},
	{"preset", "", "Calibration preset.", func(r *AuditRow) any { return &r.Preset }},
	{"protocol", "", `Privacy protocol ("P", "P_alt").`, func(r *AuditRow) any { return &r.Protocol }},
	{"relation", "", `Neighbouring relation ("add-remove", "replace-one").`, func(r *AuditRow) any { return &r.Relation }},
	{"eps", "", "Target eps of the configuration.", func(r *AuditRow) any { return &r.Eps }},
	{"delta", "", "Target delta.", func(r *AuditRow) any { return &r.Delta }},
	{"B", "rounds", "Batch size.", func(r *AuditRow) any { return &r.B }},
	{"M", "silos", "Silos of the configuration: they choose the calibration (the audit simulates one silo).", func(r *AuditRow) any { return &r.M }},
	{"T", "rounds", "Horizon of the configuration (chooses the calibration).", func(r *AuditRow) any { return &r.T }},
	{"pair", "", `Neighbouring datasets: "reward" (the first user's rewards 1 vs 0; release: the first tree node) or "schedule" (her norm 1 vs 1/2; release: the round of the first synchronisation).`, func(r *AuditRow) any { return &r.Pair }},
	{"pair_doc", "", "The neighbouring datasets in words.", func(r *AuditRow) any { return &r.PairDoc }},
	{"trials", "releases", "Releases drawn under each dataset.", func(r *AuditRow) any { return &r.Trials }},
	{"seed", "", "Seed of the audit's noise streams.", func(r *AuditRow) any { return &r.Seed }},
	{"sigma_scale", "", "Multiplier of the noise actually drawn (1; 0.5 and 2 are the mutation controls).", func(r *AuditRow) any { return &r.SigmaScale }},
	{"claim_mu", "", "Gaussian-DP mu the calibration claims for one node of both streams (NaN for the schedule pair).", func(r *AuditRow) any { return &r.ClaimMu }},
	{"claim_eps", "", "eps of the claim at delta (the target eps for the schedule pair).", func(r *AuditRow) any { return &r.ClaimEps }},
	{"exact_mu", "", "mu of this pair for the mechanism as simulated (NaN for the schedule pair).", func(r *AuditRow) any { return &r.ExactMu }},
	{"mu", "", "Empirical mu (NaN for the schedule pair).", func(r *AuditRow) any { return &r.Mu }},
	{"mu_lo", "", "99% lower confidence bound on mu.", func(r *AuditRow) any { return &r.MuLo }},
	{"mu_hi", "", "99% upper confidence bound on mu.", func(r *AuditRow) any { return &r.MuHi }},
	{"sd", "", "Standard deviation of the whitened releases (1 when the noise is the claimed one).", func(r *AuditRow) any { return &r.SD }},
	{"sd_lo", "", "99% lower confidence bound on sd.", func(r *AuditRow) any { return &r.SDLo }},
	{"sd_hi", "", "99% upper confidence bound on sd.", func(r *AuditRow) any { return &r.SDHi }},
	{"p0", "", "Schedule pair: fraction of trials synchronising at round 1 under norm 1/2 (NaN for the reward pair).", func(r *AuditRow) any { return &r.P0 }},
	{"p1", "", "Schedule pair: the same under norm 1.", func(r *AuditRow) any { return &r.P1 }},
	{"eps_lo", "", "95% Clopper-Pearson lower bound on eps at delta.", func(r *AuditRow) any { return &r.EpsLo }},
	{"verdict", "", `"pass", or "VIOLATION: ..." / "NOISE SCALE: ..." with the reason.`, func(r *AuditRow) any { return &r.Verdict }},
	{"released0", "", "Releases under dataset 0 (reward 0, norm 1/2), one per trial: whitened projections, or first synchronisation rounds.", func(r *AuditRow) any { return &r.Released0 }},
	{"released1", "", "Releases under dataset 1 (reward 1, norm 1).", func(r *AuditRow) any { return &r.Released1 }},
}

// WriteAudit writes audit.arrow (one row per audited configuration, in the
// order given) atomically.
func WriteAudit(path string, rows []AuditRow) error {
	data, err := encodeRows(auditCols(), rows, layoutMetadata(FormatVersion), math.MaxInt)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return WriteFileAtomic(path, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// ReadAudit reads audit.arrow (the same columns in every layout).
func ReadAudit(path string) ([]AuditRow, error) {
	return readTable(path, "audit table", func(int) []col[AuditRow] { return auditCols() })
}

// auditCols are the columns of audit.arrow.
func auditCols() []col[AuditRow] {
	cols := make([]col[AuditRow], len(AuditColumns))
	for i, c := range AuditColumns {
		cols[i] = col[AuditRow]{c.Name, c.field}
	}
	return cols
}
