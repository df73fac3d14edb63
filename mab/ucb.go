package mab

import (
	"math"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/fmath"
)

// paramC is UCB1's exploration scale.
var paramC = core.Param{Key: "c", Doc: "UCB1's exploration scale c: the index is mean + c sqrt(2 ln n / n_a) (Auer et al. 2002: c = 1)", Default: 1, Min: 0, Max: 1e6}

// newUCB1 is UCB1 (Auer, Cesa-Bianchi & Fischer 2002, Figure 1): every arm
// once, then the first arm of largest index mean_a + c sqrt(2 ln n / n_a),
// where n is the number of pulls so far and n_a arm a's.
func newUCB1(s PolicySetup) (Policy, error) {
	return &ucb1{c: s.Params["c"], n: make([]int64, s.Arms), sum: make([]float64, s.Arms)}, nil
}

// ucb1 is UCB1's state: the pulls and reward sums per arm. Every pull is
// one user's reward sent to the server and one update of the statistics.
type ucb1 struct {
	c     float64
	n     []int64
	sum   []float64
	pulls int64
}

// Choose returns an arm not pulled yet, else the first arm of largest
// index.
func (u *ucb1) Choose(t int) int {
	for a, n := range u.n {
		if n == 0 {
			return a
		}
	}
	ln2 := float64(2 * fmath.Log(float64(u.pulls)))
	best, top := 0, math.Inf(-1)
	for a, n := range u.n {
		na := float64(n)
		if i := u.sum[a]/na + float64(u.c*math.Sqrt(ln2/na)); i > top {
			best, top = a, i
		}
	}
	return best
}

// Observe adds the pull's reward to its arm's statistics.
func (u *ucb1) Observe(t, arm int, x float64) {
	u.n[arm]++
	u.sum[arm] += x
	u.pulls++
}

// Counters reports one update and one scalar per pull.
func (u *ucb1) Counters() (int, int64) { return int(u.pulls), u.pulls }
