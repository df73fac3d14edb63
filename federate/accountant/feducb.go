package accountant

import (
	"math"
	"math/bits"

	"github.com/fedbandit/fedbandit/internal/fmath"
)

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
	return float64(4*math.Sqrt(float64(m))) * 2 * fmath.Log(2/delta) / eps
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
