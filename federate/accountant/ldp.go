package accountant

import "github.com/fedbandit/fedbandit/internal/mutation"

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

// centralTree is ModelCentral, the super agent's central joint DP (Shariff
// & Sheffet 2018): one tree mechanism over the rounds for all users, whose
// accounting is the silo-level tree's (siloLDP) with one noise source
// instead of M. The published code has no super agent: reference-code
// uses its LDP formula at the central tree's node count.
type centralTree struct{ siloLDP }

func (centralTree) sources(Request) int { return 1 }
