package federate

import "github.com/fedbandit/fedbandit/internal/vec"

// Candidate actions are stored in "panels", the panel layout of package
// vec (blocks of vec.Lanes actions, coordinate-major inside a block), so
// that the UCB kernel works on a block's actions at once with SIMD lanes.
// Unused lanes of a panel's last block hold zeros (vec.ToPanel); their
// scores are computed and ignored.

// panel is n consecutive candidate actions of dimension d in panel layout.
type panel struct {
	x []float64 // vec.PanelLen(n, d) values
	n int       // number of actions
}

// blocks returns the number of blocks of the panel.
func (p panel) blocks() int { return (p.n + vec.Lanes - 1) / vec.Lanes }

// row writes action a's coordinates into dst (len d).
func (p panel) row(dst []float64, a int) { vec.PanelRow(dst, p.x, a) }

// actionSet is one silo-round's candidate actions: the panels in order
// (actions are numbered consecutively through them) and the mean reward
// of each action.
type actionSet struct {
	panels []panel
	mu     []float64 // mu[a], at least n entries
	n      int       // total number of actions
}

// row writes action a's coordinates into dst (len d).
func (s *actionSet) row(dst []float64, a int) {
	for _, p := range s.panels {
		if a < p.n {
			p.row(dst, a)
			return
		}
		a -= p.n
	}
	panic("federate: action index out of range")
}

// argmaxUCB returns the first action of s maximising
// x.theta + beta sqrt(x^T A x) (A in width form p), using scores (at least
// n + 4*len(s.panels) values) as scratch. The scores are the kernel
// table's UCBScores (vec.Kernels states the operations and their order):
// the kernel that dominates a run, K d(d+1)/2 multiply-adds per
// silo-round.
func argmaxUCB(s *actionSet, d int, theta, p []float64, beta float64, scores []float64) int {
	off := 0
	for _, pn := range s.panels {
		// A panel's padding lanes spill into the next panel's first
		// scores, which that panel then overwrites.
		kern.UCBScores(scores[off:], pn.x, pn.blocks(), d, p, theta, beta)
		off += pn.n
	}
	return kern.ArgmaxFirst(scores[:s.n])
}
