package accountant

import "fmt"

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
