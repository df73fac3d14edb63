package outputs

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"

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

// AuditColumns describes audit.arrow, in file order.
var AuditColumns = []Column[AuditRow]{
	value("config", "", "all", "The audited configuration, as `run audit` prints it.", func(r *AuditRow) *string { return &r.Config }),
	value("algorithm", "", "all", "Registered algorithm name (see runs.arrow).", func(r *AuditRow) *string { return &r.Algorithm }),
	value("learner", "", "all", `"eager" (paper Algorithm 1) or "lazy" (Algorithm 8).`, func(r *AuditRow) *string { return &r.Learner }),
	value("preset", "", "all", "Calibration preset.", func(r *AuditRow) *string { return &r.Preset }),
	value("protocol", "", "all", `Privacy protocol ("P", "P_alt").`, func(r *AuditRow) *string { return &r.Protocol }),
	value("relation", "", "all", `Neighbouring relation ("add-remove", "replace-one").`, func(r *AuditRow) *string { return &r.Relation }),
	value("eps", "", "all", "Target eps of the configuration.", func(r *AuditRow) *float64 { return &r.Eps }),
	value("delta", "", "all", "Target delta.", func(r *AuditRow) *float64 { return &r.Delta }),
	value("B", "rounds", "all", "Batch size.", func(r *AuditRow) *int { return &r.B }),
	value("M", "silos", "all", "Silos of the configuration: they choose the calibration (the audit simulates one silo).", func(r *AuditRow) *int { return &r.M }),
	value("horizon", "rounds", "all", "Horizon T of the configuration (chooses the calibration). (Layouts 1-3: T, which DataFrame.T shadows.)", func(r *AuditRow) *int { return &r.T }),
	value("pair", "", "all", `Neighbouring datasets: "reward" (the first user's rewards 1 vs 0; release: the first tree node) or "schedule" (her norm 1 vs 1/2; release: the round of the first synchronisation).`, func(r *AuditRow) *string { return &r.Pair }),
	value("pair_doc", "", "all", "The neighbouring datasets in words.", func(r *AuditRow) *string { return &r.PairDoc }),
	value("trials", "releases", "all", "Releases drawn under each dataset.", func(r *AuditRow) *int { return &r.Trials }),
	value("seed", "", "all", "Seed of the audit's noise streams.", func(r *AuditRow) *uint64 { return &r.Seed }),
	value("sigma_scale", "", "all", "Multiplier of the noise actually drawn (1; 0.5 and 2 are the mutation controls).", func(r *AuditRow) *float64 { return &r.SigmaScale }),
	value("claim_mu", "", "all", "Gaussian-DP mu the calibration claims for one node of both streams (NaN for the schedule pair).", func(r *AuditRow) *float64 { return &r.ClaimMu }),
	value("claim_eps", "", "all", "eps of the claim at delta (the target eps for the schedule pair).", func(r *AuditRow) *float64 { return &r.ClaimEps }),
	value("exact_mu", "", "all", "mu of this pair for the mechanism as simulated (NaN for the schedule pair).", func(r *AuditRow) *float64 { return &r.ExactMu }),
	value("mu", "", "all", "Empirical mu (NaN for the schedule pair).", func(r *AuditRow) *float64 { return &r.Mu }),
	value("mu_lo", "", "all", "99% lower confidence bound on mu.", func(r *AuditRow) *float64 { return &r.MuLo }),
	value("mu_hi", "", "all", "99% upper confidence bound on mu.", func(r *AuditRow) *float64 { return &r.MuHi }),
	value("sd", "", "all", "Standard deviation of the whitened releases (1 when the noise is the claimed one).", func(r *AuditRow) *float64 { return &r.SD }),
	value("sd_lo", "", "all", "99% lower confidence bound on sd.", func(r *AuditRow) *float64 { return &r.SDLo }),
	value("sd_hi", "", "all", "99% upper confidence bound on sd.", func(r *AuditRow) *float64 { return &r.SDHi }),
	value("p0", "", "all", "Schedule pair: fraction of trials synchronising at round 1 under norm 1/2 (NaN for the reward pair).", func(r *AuditRow) *float64 { return &r.P0 }),
	value("p1", "", "all", "Schedule pair: the same under norm 1.", func(r *AuditRow) *float64 { return &r.P1 }),
	value("eps_lo", "", "all", "95% Clopper-Pearson lower bound on eps at delta.", func(r *AuditRow) *float64 { return &r.EpsLo }),
	value("verdict", "", "all", `"pass", or "VIOLATION: ..." / "NOISE SCALE: ..." with the reason.`, func(r *AuditRow) *string { return &r.Verdict }),
	value("released0", "", "all", "Releases under dataset 0 (reward 0, norm 1/2), one per trial: whitened projections, or first synchronisation rounds.", func(r *AuditRow) *[]float64 { return &r.Released0 }),
	value("released1", "", "all", "Releases under dataset 1 (reward 1, norm 1).", func(r *AuditRow) *[]float64 { return &r.Released1 }),
}

// WriteAudit writes audit.arrow (one row per audited configuration, in the
// order given) atomically.
func WriteAudit(path string, rows []AuditRow) error {
	data, err := encodeTable(tableSchema(AuditColumns), AuditColumns, rows, math.MaxInt)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return WriteFileAtomic(path, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// ReadAudit reads audit.arrow (the same columns in every layout; the
// seed was a uint64 column before layout 3, horizon was T before layout 4).
func ReadAudit(path string) ([]AuditRow, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read audit table: %w", err)
	}
	rows, err := decodeTable(data, func(fs []arrow.Field) ([]Column[AuditRow], error) {
		cols := slices.Clone(AuditColumns)
		for i, c := range cols {
			if c.Name == "horizon" && i < len(fs) && fs[i].Name == "T" {
				cols[i].Name = "T" // layouts 1-3
			}
		}
		return cols, nil
	}, 1)
	if err != nil {
		return nil, fmt.Errorf("audit table %s: %w", path, err)
	}
	return rows, nil
}
