package accountant

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/fedbandit/fedbandit/internal/mutation"
)

// A mechanism is the accounting of one privacy model: the noise each
// calibration preset chooses for it and the guarantee that a noise level
// delivers. Calibrate, Delivered and Certifies look the model up in
// mechanisms; a new privacy model is one more implementation.
type mechanism interface {
	// private is false for the model without noise.
	private() bool
	// referenceSigma is the published code's noise with its node count n.
	referenceSigma(r Request, n int) float64
	// paperSigma is the paper's theorem for the model, and a note on the
	// constants it had to assume.
	paperSigma(r Request, kappa int) (sigma float64, note string, err error)
	// exactSigma is the smallest noise the accountant certifies at (r.Eps,
	// r.Delta), and a note when it is not what the model promises (e.g.
	// amplification that does not apply).
	exactSigma(r Request, kappa int) (sigma float64, note string, err error)
	// delivered is the eps at r.Delta that noise sigma on every node of a
	// kappa-level tree certifies, for r's silos, batch size, dimension and
	// relation.
	delivered(r Request, sigma float64, kappa int) (eps float64, amplified bool, note string, err error)
	// terms is the number of independent noise terms of standard
	// deviation sigma in each entry of a silo's published statistics at
	// the end of a run, which the presets' Lambda and beta_t scale with:
	// the tree's levels (levels) for the tree mechanisms.
	terms(r Request, levels int) int
}

// mechanisms maps each privacy model to its accounting.
var mechanisms = map[string]mechanism{
	ModelNone:       noPrivacy{},
	ModelLDP:        siloLDP{},
	ModelSDPAmp:     shuffleAmplified{},
	ModelFedUCB:     fedUCB{},
	ModelUserLDP:    userLDP{},
	ModelUserLDPGLM: userLDP{glm: true},
	ModelSDPVec:     shuffleVec{},
	ModelCentral:    centralTree{},
}

// lookupMechanism returns the accounting of model, or an error naming the
// known models.
func lookupMechanism(model string) (mechanism, error) {
	if m, ok := mechanisms[model]; ok {
		return m, nil
	}
	names := make([]string, 0, len(mechanisms))
	for k := range mechanisms {
		names = append(names, fmt.Sprintf("%q", k))
	}
	slices.Sort(names)
	return nil, fmt.Errorf("%w: model %q, want one of %s", ErrInvalid, model, strings.Join(names, ", "))
}

// noPrivacy is ModelNone: no noise, no guarantee.
type noPrivacy struct{}

func (noPrivacy) private() bool                       { return false }
func (noPrivacy) referenceSigma(Request, int) float64 { return 0 }
func (noPrivacy) paperSigma(Request, int) (float64, string, error) {
	return 0, "", nil
}
func (noPrivacy) exactSigma(Request, int) (float64, string, error) {
	return 0, "", nil
}
func (noPrivacy) delivered(Request, float64, int) (float64, bool, string, error) {
	return math.Inf(1), false, "no privacy", nil
}
func (noPrivacy) terms(_ Request, levels int) int { return levels }

// siloLDP is ModelLDP, silo-level local DP: every silo's releases are
// private on their own (protocol P or P_alt), accounted exactly as one
// Gaussian-DP mechanism over both streams of the whole tree.
type siloLDP struct{}

func (siloLDP) private() bool { return true }

func (siloLDP) terms(_ Request, levels int) int { return levels }

func (siloLDP) referenceSigma(r Request, n int) float64 {
	return ReferenceLDPSigma(r.Eps, r.Delta, n)
}

func (siloLDP) paperSigma(r Request, kappa int) (float64, string, error) {
	return PaperLDPSigma(r.Eps, r.Delta, kappa), "", nil
}

func (siloLDP) exactSigma(r Request, kappa int) (float64, string, error) {
	if mutation.On("M8") && kappa > 1 {
		kappa--
	}
	s, err := ExactLDPSigma(r.Eps, r.Delta, kappa, r.Relation)
	return s, "", err
}

func (siloLDP) delivered(r Request, sigma float64, kappa int) (float64, bool, string, error) {
	mu, err := TreeMu(sigma, kappa, r.Relation)
	if err != nil {
		return 0, false, "", err
	}
	return gdpEps(mu, r.Delta), false, "", nil
}

// shuffleAmplified is ModelSDPAmp, shuffle DP by amplification: protocol
// P with a shuffler, whose guarantee is the better of the silo-level LDP
// one (shuffling is post-processing) and the amplification accountant
// ShuffleTree.
type shuffleAmplified struct{}

func (shuffleAmplified) private() bool { return true }

func (shuffleAmplified) terms(_ Request, levels int) int { return levels }

func (shuffleAmplified) referenceSigma(r Request, n int) float64 {
	return ReferenceSDPSigma(r.Eps, r.Delta, n, r.M, r.T)
}

func (shuffleAmplified) paperSigma(r Request, kappa int) (float64, string, error) {
	s, err := PaperSDPSigma(r.Eps, r.Delta, kappa, r.M, r.T)
	if err != nil {
		return 0, "", err
	}
	return s, "paper Theorem 5.3 sigma with its O(.) constant taken as 1", nil
}

func (shuffleAmplified) exactSigma(r Request, kappa int) (float64, string, error) {
	s, amp, note, err := ExactSDPSigma(r.Eps, r.Delta, kappa, r.M, r.B, r.Relation)
	if err != nil || amp {
		note = ""
	}
	return s, note, err
}

func (shuffleAmplified) delivered(r Request, sigma float64, kappa int) (float64, bool, string, error) {
	ldp, _, _, err := siloLDP{}.delivered(r, sigma, kappa)
	if err != nil {
		return 0, false, "", err
	}
	amp, err := ShuffleTree(sigma, kappa, r.M, r.B, r.Delta, r.Relation)
	if err != nil {
		return 0, false, "", err
	}
	if amp.Eps < ldp {
		note := ""
		if amp.Releases < 2*kappa {
			note = fmt.Sprintf("shuffle amplification applied to %d of %d releases: %s", amp.Releases, 2*kappa, amp.Reason)
		}
		return amp.Eps, true, note, nil
	}
	reason := amp.Reason
	if reason == "" {
		reason = fmt.Sprintf("amplified bound %.4g is no better than the silo-level LDP bound", amp.Eps)
	}
	return ldp, false, "shuffle amplification does not apply, delivered guarantee is the unamplified silo-level LDP one: " + reason, nil
}

// fedUCB is ModelFedUCB. Its paper's noise (protocol.md section 7) is
// N(0, 16 m (L^2+1)^2 log(2/delta)^2 / eps^2) per entry of the (d+1) x
// (d+1) matrix [x; y][x; y]^T, m = 1 + ceil(log2 n) tree levels over n
// rounds, L = 1; the published code has no FedUCB, so reference-code uses
// the paper's formula too, and exact the smallest sigma the tree
// accountant certifies. The guarantee of a noise level is that of the
// silo-level tree (siloLDP); note that FedUCB's data-dependent schedule
// is not covered by it (its runs are recorded as not certified).
type fedUCB struct{}

func (fedUCB) private() bool { return true }

func (fedUCB) terms(_ Request, levels int) int { return levels }

// FedUCBSigma is FedUCB's per-entry noise for n rounds:
// 4 sqrt(m) (L^2+1) log(2/delta) / eps with L = 1, m = 1 + ceil(log2 n).
func FedUCBSigma(eps, delta float64, n int) float64 {
	m := 1 + bits.Len(uint(max(n, 1)-1))
	return 4 * math.Sqrt(float64(m)) * 2 * math.Log(2/delta) / eps
}

func (fedUCB) referenceSigma(r Request, _ int) float64 {
	return FedUCBSigma(r.Eps, r.Delta, r.T)
}

func (fedUCB) paperSigma(r Request, _ int) (float64, string, error) {
	return FedUCBSigma(r.Eps, r.Delta, r.T), "FedUCB's noise (Dubey & Pentland 2020)", nil
}

func (fedUCB) exactSigma(r Request, kappa int) (float64, string, error) {
	return siloLDP{}.exactSigma(r, kappa)
}

func (fedUCB) delivered(r Request, sigma float64, kappa int) (float64, bool, string, error) {
	return siloLDP{}.delivered(r, sigma, kappa)
}

// userLDP is ModelUserLDP (and, with glm set, ModelUserLDPGLM): local DP
// for every user (LDP-LinUCB, Zheng et al. 2020; protocol.md section 8):
// each user's own reports get Gaussian noise before they leave her, once.
// The reports are her summand x x^T (packed) and x y; under the GLM
// variant (LDP-GLOC, the logistic link) x x^T, x z with |z| <= 1 and her
// gradient (g(x.theta) - y) x. The guarantee is the Gaussian mechanism's
// on one release under replacement of the user's data (local DP compares
// any two inputs): sensitivity sqrt(2 + 4) over x x^T and x y, sqrt(2 + 4
// + 4) with the gradient, whatever the relation asked. The paper and
// reference-code presets use the classic formula sigma = Delta sqrt(2
// ln(1.25/delta)) / eps; exact the smallest sigma that the Gaussian-DP
// accountant certifies. After T rounds each published entry holds T users'
// noise terms per silo.
type userLDP struct{ glm bool }

func (userLDP) private() bool { return true }

// sensitivity is the L2 replace-one sensitivity of all of a user's reports.
func (u userLDP) sensitivity() float64 {
	g, b, _ := Sensitivities(ReplaceOne)
	s := g*g + b*b
	if u.glm && !mutation.On("M7") {
		s += b * b // the gradient, norm <= 1 like x y
	}
	return math.Sqrt(s)
}

// UserLDPSigma is the classic Gaussian mechanism's sigma for one user's
// summand: sqrt(DeltaG^2 + Deltab^2) sqrt(2 ln(1.25/delta)) / eps under
// replacement.
func UserLDPSigma(eps, delta float64) float64 {
	return userLDP{}.sensitivity() * math.Sqrt(2*math.Log(1.25/delta)) / eps
}

func (u userLDP) classic(r Request) float64 {
	return u.sensitivity() * math.Sqrt(2*math.Log(1.25/r.Delta)) / r.Eps
}

func (u userLDP) referenceSigma(r Request, _ int) float64 { return u.classic(r) }

func (u userLDP) paperSigma(r Request, _ int) (float64, string, error) {
	return u.classic(r), "the classic Gaussian mechanism (Zheng et al. 2020), one release per user", nil
}

// exactSigma scales the exact sigma of sensitivity sqrt 6 (ExactLDPSigma,
// one release, replacement) to the reports' sensitivity: mu = Delta/sigma.
func (u userLDP) exactSigma(r Request, _ int) (float64, string, error) {
	s, err := ExactLDPSigma(r.Eps, r.Delta, 1, ReplaceOne)
	if err != nil || !u.glm {
		return s, "", err
	}
	s = up(s * u.sensitivity() / userLDP{}.sensitivity())
	for i := 0; i < 64; i++ {
		if m, _ := u.mu(s, 1, ReplaceOne); gdpDelta(m, r.Eps) <= r.Delta {
			return s, "", nil
		}
		s = up(s)
	}
	return 0, "", fmt.Errorf("exact user-LDP sigma: postcondition failed at sigma = %v", s)
}

func (u userLDP) delivered(r Request, sigma float64, _ int) (float64, bool, string, error) {
	m, err := u.mu(sigma, 1, ReplaceOne)
	if err != nil {
		return 0, false, "", err
	}
	return gdpEps(m, r.Delta), false, "", nil
}

func (userLDP) terms(r Request, _ int) int { return r.T }

// mu is the tree's mu of one release under replacement (sensitivity
// sqrt 6), scaled to the reports' sensitivity.
func (u userLDP) mu(sigma float64, _ int, _ string) (float64, error) {
	m, err := TreeMu(sigma, 1, ReplaceOne)
	if err != nil || !u.glm {
		return m, err
	}
	return up(m * u.sensitivity() / userLDP{}.sensitivity()), nil
}

// MuOf is the Gaussian-DP mu of per-entry noise sigma under the model:
// the tree's (TreeMu over kappa levels under the relation) unless the
// mechanism says otherwise (user-level LDP: one release, replacement).
func MuOf(model string, sigma float64, kappa int, relation string) (float64, error) {
	if m, ok := mechanisms[model].(interface {
		mu(sigma float64, kappa int, relation string) (float64, error)
	}); ok {
		return m.mu(sigma, kappa, relation)
	}
	return TreeMu(sigma, kappa, relation)
}

// centralTree is ModelCentral, the super agent's central joint DP (Shariff
// & Sheffet 2018): one tree mechanism over the rounds for all users, whose
// accounting is the silo-level tree's (siloLDP) with one noise source
// instead of M. The published code has no super agent: reference-code
// uses its LDP formula at the central tree's node count.
type centralTree struct{ siloLDP }

func (centralTree) sources(Request) int { return 1 }
