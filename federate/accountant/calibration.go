package accountant

// Calibration preset names. Every run records the preset that chose its
// noise; none is ever mixed silently with another.
const (
	// PresetPaper is Theorem 5.1 of Zhou & Chowdhury (ICLR 2024):
	// sigma0^2 = 8 kappa (ln(2/delta)+eps)/eps^2 per entry and node, with the
	// theory's lambda and beta.
	PresetPaper = "paper"
	// PresetReferenceCode reproduces the authors' published code (sigma,
	// Lambda, beta_t with crs, R, S = sqrt(d)); see protocol.md section 3.
	PresetReferenceCode = "reference-code"
	// PresetExact is the smallest sigma for which the accountant certifies
	// the target (eps, delta), via the Gaussian-DP view of the whole tree.
	PresetExact = "exact"
)

// Privacy models a calibration can be asked for.
const (
	// ModelNone is non-private FedLinUCB: no noise.
	ModelNone = "none"
	// ModelLDP is silo-level local DP (protocol P or P_alt).
	ModelLDP = "ldp"
	// ModelSDPAmp is shuffle DP by amplification (P plus a shuffler).
	ModelSDPAmp = "sdp-amp"
)

// Neighbouring relations.
const (
	// AddRemove: neighbouring datasets differ by adding or removing one
	// user (the default; sensitivity 1 per stream).
	AddRemove = "add-remove"
	// ReplaceOne: neighbouring datasets differ in one user's data
	// (sensitivity sqrt(2) for the Gram stream, 2 for the bias stream).
	ReplaceOne = "replace-one"
)

// Request describes a run for calibration purposes. It holds only
// data-independent quantities: a schedule or noise level never depends on
// data.
type Request struct {
	Preset   string  // PresetPaper, PresetReferenceCode or PresetExact
	Model    string  // ModelNone, ModelLDP or ModelSDPAmp
	Eps      float64 // target epsilon (ignored for ModelNone)
	Delta    float64 // target delta (ignored for ModelNone)
	Relation string  // AddRemove (default when empty) or ReplaceOne
	M        int     // number of silos
	T        int     // rounds per silo
	B        int     // batch size (synchronise every B rounds)
	D        int     // feature dimension
	Alpha    float64 // confidence level of the UCB (0.01 in the paper)
	R        float64 // sub-Gaussian reward-noise scale in beta_t (0.5 synthetic, 1 learning-to-rank)
	Crs      float64 // multiplier on beta_t (1 synthetic, 0.1 learning-to-rank; reference-code preset)
	S        float64 // bound on ||theta*|| (reference code: sqrt(d)); 0 means the preset's default
}

// Calibration is what a run uses and records: the noise scale, the
// regulariser, the confidence width schedule and the privacy it delivers.
type Calibration struct {
	Request Request
	// K is the number of synchronisations ceil(T/B); Kappa = 1+floor(log2 K)
	// is the number of tree nodes containing one batch.
	K, Kappa int
	// Sigma is the standard deviation of the Gaussian noise added to each
	// entry of each released tree node, per stream (0 for ModelNone).
	Sigma float64
	// Lambda is the ridge regulariser (the reference code's Lambda).
	Lambda float64
	// DeliveredEps, DeliveredDelta are the guarantee this Sigma actually
	// delivers under Relation, computed by the exact accountant (at
	// DeliveredDelta = the requested Delta); +Inf eps for ModelNone.
	DeliveredEps, DeliveredDelta float64
	// Amplified reports whether shuffle amplification applied; when it
	// does not (too few silos), Note says why and the delivered guarantee
	// is the unamplified one.
	Amplified bool
	// Note explains anything a reader of the run's record should know.
	Note string
	// beta computes beta_t; see Beta.
	beta func(t int) float64
}

// Beta returns the confidence width multiplier beta_t at round t (1-indexed).
func (c *Calibration) Beta(t int) float64 { return c.beta(t) }
