// Package outputs defines the result files of a fedbandit sweep and reads
// and writes them:
//
//	DIR/runs/<run id>.arrow  one file per finished run: its regret curve
//	                         as the table, its summary in the schema metadata
//	DIR/runs.arrow           one row per run (RunRecord)
//	DIR/curves.arrow         one row per run and checkpoint (CurvePoint)
//
// All three are Arrow IPC files (the "Feather v2" file format), uncompressed,
// with a deterministic row order, so that the same runs give the same
// bytes. Every file is published atomically (WriteFileAtomic). README.md in
// this directory documents every column with its meaning, its unit and the
// families it applies to; Columns, CurveColumns and Metrics are the same
// documentation in code, and the one schema every writer walks.
//
// A column that does not apply to a run (its family, its instance kind, a
// non-private run, a failed run) is null: never 0, "", false or an empty
// list. In Go, such a value is a nil pointer, a nil group (Linear), or ""
// for a string column (no string column has a meaningful empty value).
package outputs

import (
	"fmt"
	"strconv"
)

// FormatVersion is the layout version of the result files this package
// writes: the columns of runs.arrow, curves.arrow and audit.arrow, and the
// summary keys of a per-run file. It is written into every file and
// manifest.json, and it is not part of run ids (runner.SemanticsVersion
// is). Readers accept per-run files of every layout from 1 to
// FormatVersion (legacy.go upgrades the older ones) and refuse a newer one
// with a *NewerLayoutError; runs.arrow and curves.arrow of an older layout
// are refused with a message to run `run collect`, which rewrites them.
//
// Layouts: 1, the first release; 2 added family, trust and params; 3 made
// every family first-class: nulls where a column does not apply, no
// unsigned integers, renamed columns (README.md "Upgrade from layout 2"),
// the privacy columns certified, mechanism and sampler, and curve metrics
// that families add without a new layout (Metrics); 4 gave every column
// one meaning: target_eps and target_delta, relation and mechanism tokens,
// the runs totals final_*, qid, hindsight_note, no group_id in
// curves.arrow (README.md "Upgrade from layout 3").
const FormatVersion = 4

// NewerLayoutError is returned when a file or directory was written by a
// newer fedbandit than this build, in a layout it does not know: it is
// not damaged, and this build must neither read it nor move it aside.
// Callers wrap it with the file's name.
type NewerLayoutError struct {
	Layout string // the layout the file declares
}

func (e *NewerLayoutError) Error() string {
	return fmt.Sprintf("written by a newer fedbandit (layout %s); this build reads up to %d: upgrade", e.Layout, FormatVersion)
}

// CheckLayout returns the layout a file declares (its format version as
// written), a *NewerLayoutError when it is newer than FormatVersion, and
// another error when it is not a layout at all (a damaged or foreign file).
func CheckLayout(layout string) (int, error) {
	v, err := strconv.Atoi(layout)
	switch {
	case err != nil || v < 1:
		return 0, fmt.Errorf("format version %q is not a fedbandit layout", layout)
	case v > FormatVersion:
		return 0, &NewerLayoutError{Layout: layout}
	}
	return v, nil
}

// Run statuses.
const (
	// StatusDone marks a run that finished and recorded its curve.
	StatusDone = "done"
	// StatusFailed marks a run that returned an error or panicked; Error
	// says why, the curve is empty and the result columns are null.
	StatusFailed = "failed"
)

// Some returns a pointer to v: the value of a nullable column that applies.
func Some[T any](v T) *T { return &v }

// Deref returns *p, or T's zero value when p is nil (a null): for labels
// and displays, never for arithmetic on a column that may be null.
func Deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// RunRecord is one row of runs.arrow: a run's full specification, its
// instance's content hash, its privacy claim and its final regret. Field
// documentation (meaning, unit, families) lives with the column
// descriptors in Columns and in README.md. A nil pointer, a nil Linear or
// an empty string is a null column: it does not apply to this run.
type RunRecord struct {
	RunID         string
	Status        string
	Error         string
	FormatVersion int
	Sweep         string
	Group         string // column group_label
	GroupID       string

	Instance          string
	InstanceKind      string
	InstanceHash      string
	InstanceName      string
	InstanceSeed      *uint64
	Arms              *int
	Query             *int64 // column qid: the query whose documents are the arms (mab-ltr)
	Dim               *int
	NoiseVar          *float64
	Features          string
	RewardModel       string
	PartitionStrategy string
	PartitionSeed     *uint64
	FixedBasis        *bool
	SharedContexts    *bool
	ContextGen        string
	// KindValues are the values of the columns a kind declares that
	// Columns lacks (RegisterKindColumns), by column name: an int64,
	// float64, string or bool as declared (nil or absent: null).
	KindValues map[string]any

	Family    string
	Algorithm string
	Trust     string
	// Params are the algorithm's own parameters, defaults filled in
	// (empty when it has none; nil when not recorded: a layout-1 run of
	// an algorithm with parameters). Column param_<key> each.
	Params map[string]float64
	Eps    *float64 // null when the algorithm takes no eps
	Delta  *float64 // null when the algorithm takes no delta
	M      *int     // null when the family has no silos
	B      *int     // null when the family has no batch size
	T      int      // column horizon
	Every  int
	Seed   uint64 // an int64 column

	// Linear holds the linear family's settings (nil for other families).
	Linear *LinearSettings

	Certified bool
	// TargetEps, TargetDelta are the (eps, delta)-DP target the run was
	// calibrated to (nil for a non-private run).
	TargetEps, TargetDelta *float64
	DeliveredEps           *float64
	DeliveredDelta         *float64
	Relation               string // a token: add-remove or replace-one
	RelationNote           string // the relation in words
	Mechanism              string // a token of core.Mechanisms
	Sampler                string
	CalibrationNote        string

	// Results: null in the file for a failed run.
	Syncs          int64
	Scalars        int64
	Rounds         int
	PseudoRegret   float64
	RealisedRegret float64
	// HindsightNote says how exact the regret's comparator is (bco-ltr's
	// hindsight certificate; an ltr instance's reference-model note).
	HindsightNote string
	WallSeconds   float64
}

// LinearSettings are the columns of the linear contextual family (package
// federate): its learner, calibration and per-silo totals.
type LinearSettings struct {
	Protocol  string
	Lazy      bool // column lazy_learner
	Preset    string
	Alpha     float64
	R         float64
	Crs       float64 // column beta_crs
	GramNoise string
	RewardLo  float64
	RewardHi  float64
	NoClip    bool
	Lambda    float64 // column ridge_lambda
	BetaT     float64
	Kappa     int
	NonPD     int64
	// Noise is the calibration of a private run's noise (nil when
	// non-private).
	Noise *LinearNoise
	// SiloPseudo and SiloRealised are the per-silo totals at T (nil for a
	// failed run).
	SiloPseudo   []float64
	SiloRealised []float64
}

// LinearNoise is the noise of a private linear run.
type LinearNoise struct {
	Sigma     float64
	MuGDP     float64
	Amplified bool
}

// Point is one checkpoint of a run's regret curve, as stored in the run's
// own file.
type Point struct {
	Round    int64   // t, rounds per silo (1-indexed); column t
	Pseudo   float64 // group pseudo-regret summed over silos up to t
	Realised float64 // group realised regret summed over silos up to t
	Syncs    int64   // synchronisations up to t
	// Metrics are the curve metrics the run's family produces (core's
	// Checkpoint.Metrics) by curves.arrow column; nil when none.
	Metrics map[string]float64
}

// CurvePoint is one row of curves.arrow: a checkpoint of one run with the
// derived averages the paper plots.
type CurvePoint struct {
	RunID   string
	GroupID string
	Point
	// TimeAvgPseudo = Pseudo / Round and TimeAvgRealised = Realised / Round:
	// the paper's time-average group regret R_M(t)/t.
	TimeAvgPseudo, TimeAvgRealised float64
	// PerSiloPseudo = Pseudo / (Round M), PerSiloRealised likewise: the
	// average regret per silo and round; nil when the run has no silos.
	PerSiloPseudo, PerSiloRealised *float64
}

// Derive returns the curves.arrow row of checkpoint p of run rec.
func Derive(rec *RunRecord, p Point) CurvePoint {
	t := float64(p.Round)
	c := CurvePoint{
		RunID:           rec.RunID,
		GroupID:         rec.GroupID,
		Point:           p,
		TimeAvgPseudo:   p.Pseudo / t,
		TimeAvgRealised: p.Realised / t,
	}
	if rec.M != nil && *rec.M > 0 {
		tm := t * float64(*rec.M)
		c.PerSiloPseudo, c.PerSiloRealised = Some(p.Pseudo/tm), Some(p.Realised/tm)
	}
	return c
}
