package accountant

import (
	"fmt"
	"math"
	"slices"
	"strings"
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

// MuFor is MuOf for the run r describes: under NoiseDiscrete the
// Gaussian-DP mu sqrt(2 rho) of the discrete mechanism's zCDP rho
// (DiscreteRho, the rounding-inflated sensitivities), the mu of a Gaussian
// with the same rho, which an audit can estimate; otherwise MuOf.
func MuFor(r Request, sigma float64, kappa int) (float64, error) {
	if r.Noise == NoiseDiscrete {
		rho, err := DiscreteRho(r, sigma, kappa)
		if err != nil {
			return 0, err
		}
		return up(math.Sqrt(2 * rho)), nil
	}
	return MuOf(r.Model, sigma, kappa, r.Relation)
}
