package accountant

import "math"

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
