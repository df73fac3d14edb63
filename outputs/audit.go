package outputs

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
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
	Type  arrow.DataType
	Unit  string
	Doc   string
	field func(r *AuditRow) any
}

// AuditColumns describes audit.arrow, in file order.
var AuditColumns = []auditColumn{
	{"config", tString, "", "The audited configuration, as `run audit` prints it.", func(r *AuditRow) any { return &r.Config }},
	{"algorithm", tString, "", "Registered algorithm name (see runs.arrow).", func(r *AuditRow) any { return &r.Algorithm }},
	{"learner", tString, "", `"eager" (paper Algorithm 1) or "lazy" (Algorithm 8).`, func(r *AuditRow) any { return &r.Learner }},
	{"preset", tString, "", "Calibration preset.", func(r *AuditRow) any { return &r.Preset }},
	{"protocol", tString, "", `Privacy protocol ("P", "P_alt").`, func(r *AuditRow) any { return &r.Protocol }},
	{"relation", tString, "", `Neighbouring relation ("add-remove", "replace-one").`, func(r *AuditRow) any { return &r.Relation }},
	{"eps", tFloat, "", "Target eps of the configuration.", func(r *AuditRow) any { return &r.Eps }},
	{"delta", tFloat, "", "Target delta.", func(r *AuditRow) any { return &r.Delta }},
	{"B", tInt, "rounds", "Batch size.", func(r *AuditRow) any { return &r.B }},
	{"M", tInt, "silos", "Silos of the configuration: they choose the calibration (the audit simulates one silo).", func(r *AuditRow) any { return &r.M }},
	{"T", tInt, "rounds", "Horizon of the configuration (chooses the calibration).", func(r *AuditRow) any { return &r.T }},
	{"pair", tString, "", `Neighbouring datasets: "reward" (the first user's rewards 1 vs 0; release: the first tree node) or "schedule" (her norm 1 vs 1/2; release: the round of the first synchronisation).`, func(r *AuditRow) any { return &r.Pair }},
	{"pair_doc", tString, "", "The neighbouring datasets in words.", func(r *AuditRow) any { return &r.PairDoc }},
	{"trials", tInt, "releases", "Releases drawn under each dataset.", func(r *AuditRow) any { return &r.Trials }},
	{"seed", tUint, "", "Seed of the audit's noise streams.", func(r *AuditRow) any { return &r.Seed }},
	{"sigma_scale", tFloat, "", "Multiplier of the noise actually drawn (1; 0.5 and 2 are the mutation controls).", func(r *AuditRow) any { return &r.SigmaScale }},
	{"claim_mu", tFloat, "", "Gaussian-DP mu the calibration claims for one node of both streams (NaN for the schedule pair).", func(r *AuditRow) any { return &r.ClaimMu }},
	{"claim_eps", tFloat, "", "eps of the claim at delta (the target eps for the schedule pair).", func(r *AuditRow) any { return &r.ClaimEps }},
	{"exact_mu", tFloat, "", "mu of this pair for the mechanism as simulated (NaN for the schedule pair).", func(r *AuditRow) any { return &r.ExactMu }},
	{"mu", tFloat, "", "Empirical mu (NaN for the schedule pair).", func(r *AuditRow) any { return &r.Mu }},
	{"mu_lo", tFloat, "", "99% lower confidence bound on mu.", func(r *AuditRow) any { return &r.MuLo }},
	{"mu_hi", tFloat, "", "99% upper confidence bound on mu.", func(r *AuditRow) any { return &r.MuHi }},
	{"sd", tFloat, "", "Standard deviation of the whitened releases (1 when the noise is the claimed one).", func(r *AuditRow) any { return &r.SD }},
	{"sd_lo", tFloat, "", "99% lower confidence bound on sd.", func(r *AuditRow) any { return &r.SDLo }},
	{"sd_hi", tFloat, "", "99% upper confidence bound on sd.", func(r *AuditRow) any { return &r.SDHi }},
	{"p0", tFloat, "", "Schedule pair: fraction of trials synchronising at round 1 under norm 1/2 (NaN for the reward pair).", func(r *AuditRow) any { return &r.P0 }},
	{"p1", tFloat, "", "Schedule pair: the same under norm 1.", func(r *AuditRow) any { return &r.P1 }},
	{"eps_lo", tFloat, "", "95% Clopper-Pearson lower bound on eps at delta.", func(r *AuditRow) any { return &r.EpsLo }},
	{"verdict", tString, "", `"pass", or "VIOLATION: ..." / "NOISE SCALE: ..." with the reason.`, func(r *AuditRow) any { return &r.Verdict }},
	{"released0", tFloats, "", "Releases under dataset 0 (reward 0, norm 1/2), one per trial: whitened projections, or first synchronisation rounds.", func(r *AuditRow) any { return &r.Released0 }},
	{"released1", tFloats, "", "Releases under dataset 1 (reward 1, norm 1).", func(r *AuditRow) any { return &r.Released1 }},
}

// AuditSchema returns the Arrow schema of audit.arrow.
func AuditSchema() *arrow.Schema {
	fs := make([]arrow.Field, len(AuditColumns))
	for i, c := range AuditColumns {
		fs[i] = arrow.Field{Name: c.Name, Type: c.Type}
	}
	return versionedSchema(fs)
}

// WriteAudit writes audit.arrow (one row per audited configuration, in the
// order given) atomically.
func WriteAudit(path string, rows []AuditRow) error {
	data, err := encodeRows(AuditSchema(), auditFields(), rows)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return WriteFileAtomic(path, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// ReadAudit reads audit.arrow.
func ReadAudit(path string) ([]AuditRow, error) {
	return readRows(path, "audit table", AuditSchema(), auditFields())
}

// auditFields are the AuditRow fields of audit.arrow's columns, in order.
func auditFields() []func(*AuditRow) any {
	fields := make([]func(*AuditRow) any, len(AuditColumns))
	for j, c := range AuditColumns {
		fields[j] = c.field
	}
	return fields
}
