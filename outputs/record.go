// Package outputs defines the result files of a fedbandit sweep and reads
// and writes them:
//
//	DIR/runs/<run id>.arrow  one file per finished run: its regret curve
//	                         as the table, its summary in the schema metadata
//	DIR/runs.arrow           one row per run (RunRecord)
//	DIR/curves.arrow         one row per run and checkpoint (CurvePoint)
//
// All three are Arrow IPC files (the "Feather v2" file format), uncompressed,
// with a deterministic row order (run id, then round), so that the same runs
// give the same bytes. Every file is published atomically (WriteFileAtomic).
// README.md in this directory documents every column with its meaning and
// unit; Columns and CurveColumns are the same documentation in code.
package outputs

import ()

// FormatVersion is the version of the result files written by this package.
// It is part of every run id: a change to what a run records or how it is
// encoded must bump it, so that old and new results are never mixed.
const FormatVersion = 1

// Run statuses.
const (
	// StatusDone marks a run that finished and recorded its curve.
	StatusDone = "done"
	// StatusFailed marks a run that returned an error or panicked; Error
	// says why and the curve is empty.
	StatusFailed = "failed"
)

// RunRecord is one row of runs.arrow: a run's full specification, its
// instance's content hash, the calibration its noise used, what it
// delivered and its final regret. Field documentation (meaning and unit)
// lives with the column descriptors in Columns and in README.md.
type RunRecord struct {
	RunID         string
	Status        string
	Error         string
	FormatVersion int
	Sweep         string
	Group         string
	GroupID       string

	Instance          string
	InstanceKind      string
	InstanceHash      string
	InstanceName      string
	Dim               int
	Features          string
	RewardModel       string
	NoiseVar          float64
	PartitionStrategy string
	PartitionSeed     uint64
	SynK              int
	FixedBasis        bool
	InstanceSeed      uint64
	SharedContexts    bool
	ContextGen        string

	Algorithm string
	// Family, Trust and Params are the algorithm's family, trust model
	// and own parameters (by key, defaults filled).
	Family    string
	Trust     string
	Params    map[string]float64
	Protocol  string
	Lazy      bool
	Preset    string
	Eps       float64
	Delta     float64
	Relation  string
	M         int
	T         int
	B         int
	Alpha     float64
	Every     int
	Seed      uint64
	R         float64
	Crs       float64
	GramNoise string
	RewardLo  float64
	RewardHi  float64
	NoClip    bool

	Sigma           float64
	Lambda          float64
	BetaT           float64
	Kappa           int
	DeliveredEps    float64
	DeliveredDelta  float64
	Amplified       bool
	CalibrationNote string
	MuGDP           float64

	NonPD          int64
	Syncs          int64
	Scalars        int64
	Rounds         int
	PseudoRegret   float64
	RealisedRegret float64
	SiloPseudo     []float64
	SiloRealised   []float64
	WallSeconds    float64
}

// Point is one checkpoint of a run's regret curve, as stored in the run's
// own file.
type Point struct {
	Round    int64   // t, rounds per silo (1-indexed)
	Pseudo   float64 // group pseudo-regret summed over silos up to t
	Realised float64 // group realised regret summed over silos up to t
	Syncs    int64   // synchronisations up to t
}

// CurvePoint is one row of curves.arrow: a checkpoint of one run with the
// derived averages the paper plots.
type CurvePoint struct {
	RunID string
	Point
	// TimeAvgPseudo = Pseudo / Round and TimeAvgRealised = Realised / Round:
	// the paper's time-average group regret R_M(t)/t.
	TimeAvgPseudo, TimeAvgRealised float64
	// PerSiloPseudo = Pseudo / (Round M), PerSiloRealised likewise: the
	// average regret per silo and round.
	PerSiloPseudo, PerSiloRealised float64
}

// Derive returns the curves.arrow row of checkpoint p of a run with m silos.
func Derive(runID string, m int, p Point) CurvePoint {
	t := float64(p.Round)
	tm := t * float64(m)
	return CurvePoint{
		RunID:           runID,
		Point:           p,
		TimeAvgPseudo:   p.Pseudo / t,
		TimeAvgRealised: p.Realised / t,
		PerSiloPseudo:   p.Pseudo / tm,
		PerSiloRealised: p.Realised / tm,
	}
}
