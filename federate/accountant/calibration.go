// Package accountant chooses the noise of Private-FedLinUCB and states,
// for every run, the privacy its noise actually delivers.
//
// Calibrate turns a Request (preset, privacy model, target (eps, delta),
// neighbouring relation, M, T, B, d) into a Calibration: the per-entry noise
// sigma of every released tree node, the ridge regulariser Lambda, the
// confidence width beta_t and the delivered (eps, delta) computed by an
// exact accountant, whatever preset chose sigma. Delivered re-checks any
// sigma. The accountant functions (zCDP with the Bun-Steinke and
// Canonne-Kamath-Steinke conversions, Gaussian DP, the analytic Gaussian of
// Balle & Wang, shuffle amplification of Feldman, McMillan & Talwar) are
// exported so that tests and users can reproduce every number. All of them
// reject NaN, infinite and out-of-range arguments and round toward the safe
// side: a reported epsilon or delta is never smaller than the exact value
// because of floating-point rounding.
//
// docs/privacy.md explains the presets, the neighbouring relations and the
// known discrepancies between the paper and the published code.
package accountant

import (
	"math"

	"github.com/fedbandit/fedbandit/internal/fmath"
)

// Calibration preset names. Every run records the preset that chose its
// noise; none is ever mixed silently with another.
const (
	// PresetPaper is Theorem 5.1 of Zhou & Chowdhury (ICLR 2024):
	// sigma0^2 = 8 kappa (ln(2/delta)+eps)/eps^2 per entry and node (LDP),
	// Theorem 5.3's sigma with its O(.) constant 1 (SDP-amp), and the
	// theory's lambda and beta_t (Lemmas C.2 and C.4, unit constants).
	PresetPaper = "paper"
	// PresetReferenceCode reproduces the authors' published code (sigma,
	// Lambda, beta_t with crs, R, S = sqrt(d)); see protocol.md section 3.
	PresetReferenceCode = "reference-code"
	// PresetExact is the smallest sigma for which the accountant certifies
	// the target (eps, delta): via the Gaussian-DP view of the whole tree
	// (LDP) or the shuffle-amplification accountant (SDP-amp, falling back
	// to the LDP sigma when amplification does not help). Lambda and beta_t
	// are the reference code's formulas evaluated at that sigma.
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
	// ModelFedUCB is FedUCB's (Dubey & Pentland 2020) silo-level tree
	// mechanism: each silo's cumulative statistics through a tree over
	// every round at which a synchronisation may happen (a request for it
	// has B = 1), its own noise formula under every preset but exact.
	ModelFedUCB = "feducb"
	// ModelUserLDP is local DP for every user (LDP-LinUCB): each user's
	// summand is noised once, before it leaves her.
	ModelUserLDP = "user-ldp"
	// ModelUserLDPGLM is ModelUserLDP for the generalized-linear variant
	// (LDP-GLOC, a logistic link): each user also reports her gradient.
	ModelUserLDPGLM = "user-ldp-glm"
	// ModelCentral is central joint DP (the super agent): one tree
	// mechanism over all users' statistics, one noise draw per entry.
	ModelCentral = "central"
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
	Model    string  // one of the Model* constants (the algorithm registry says which)
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
	// Noise is the sampler of the releases: NoiseGaussian (the empty
	// value means it) or NoiseDiscrete, whose accounting (DiscreteRho)
	// charges the grid's rounding and covers the implementation too.
	Noise string
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
	// Lambda is the ridge regulariser lambda of V = lambda I + W (the
	// preset's formula: the reference code's Lambda, or the paper's
	// max(1, 2 Sigma)).
	Lambda float64
	// DeliveredEps, DeliveredDelta are the guarantee this Sigma actually
	// delivers under Relation, computed by the exact accountant (at
	// DeliveredDelta = the requested Delta); (+Inf, 0) for ModelNone.
	DeliveredEps, DeliveredDelta float64
	// Amplified reports whether shuffle amplification improved the
	// delivered guarantee (ModelSDPAmp only); when it did not (too few
	// silos, or too many users per node), Note says why and the delivered
	// guarantee is the unamplified silo-level LDP one.
	Amplified bool
	// Note explains anything a reader of the run's record should know.
	Note string
	// CodeN is the published code's node count N = 1+floor(log2(T div B))
	// (integer division); the reference-code preset uses it in sigma and
	// Lambda. It differs from Kappa only when T is not a multiple of B and
	// ceil(T/B) is a power of two (then CodeN = Kappa-1: the code
	// under-counts the nodes of the last, partial batch).
	CodeN int
	// Mu is the Gaussian-DP parameter of one silo's whole transcript,
	// sqrt(Kappa) sqrt(DeltaG^2+Deltab^2)/Sigma under Relation (0 for
	// ModelNone). It is what an empirical audit should estimate.
	Mu float64
	// BetaT is Beta(T), recorded for convenience.
	BetaT float64
	// Width holds the parameters of beta_t; see Beta.
	Width Width
}

// Width holds the parameters of the confidence width
//
//	beta_t = Crs * ( R sqrt(C0 + d ln(1 + M t L^2/(d LamMin))) + S sqrt(LamMax) + Nu )
//
// that both presets' formulas reduce to (see docs/privacy.md): the
// reference code has C0 = ln(1/alpha), LamMin = LamMax = Lambda, Nu = 0;
// the paper's Lemma C.2 has C0 = 2 ln(1/alpha), Crs = 1 and the lambda_min,
// lambda_max, nu of Lemma C.4.
type Width struct {
	Crs    float64 // overall multiplier (Request.Crs, or 1 for the paper preset)
	R      float64 // sub-Gaussian reward-noise scale
	S      float64 // bound on ||theta*||
	C0     float64 // confidence term: ln(1/alpha) or 2 ln(1/alpha)
	LamMin float64 // lower bound on the regularised noisy Gram's eigenvalues
	LamMax float64 // upper bound on them
	Nu     float64 // bound on the bias noise in the V^-1 norm (paper preset)
	D      int     // feature dimension
	M      int     // number of silos
}

// Beta returns the confidence width multiplier beta_t at round t (1-indexed
// rounds per silo; the log term counts the M t data points of all silos).
func (c *Calibration) Beta(t int) float64 { return c.Width.At(t) }

// At evaluates beta_t.
func (w Width) At(t int) float64 {
	d := float64(w.D)
	inner := w.C0 + float64(d*fmath.Log1p(float64(w.M)*float64(t)/(d*w.LamMin)))
	return w.Crs * (float64(w.R*math.Sqrt(inner)) + float64(w.S*math.Sqrt(w.LamMax)) + w.Nu)
}
