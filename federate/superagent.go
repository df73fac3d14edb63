package federate

import "github.com/fedbandit/fedbandit/federate/tree"

// AlgSuperAgent is the super single agent under central joint DP
// (Shariff & Sheffet 2018; protocol.md section 8): one trusted learner
// sees every silo's users, updates its statistics after every round of M
// users through ONE tree mechanism over the T rounds, and chooses every
// action from the private statistics only (the lazy learner), so that
// each user's data moves the other users' actions only through the
// noisy sums (joint DP by the billboard lemma). It is the benchmark the
// shuffle variants should approach: one noise draw per node where the
// silo-level protocols have M. With M = 1 it is LDP-FedLinUCB with B = 1
// and the lazy learner (TestSuperAgentIsCentralLinUCB). Its registry entry
// is in algorithms.go.
const AlgSuperAgent = "super-agent"

// superAgentParts builds the super agent: the lazy learner, a
// synchronisation every round, and the central tree.
func superAgentParts(su runSetup) (parts, error) {
	st, err := newSiloTrees(1, su.d, su.cal.Sigma, su.spec.GramNoise, su.noise)
	if err != nil {
		return parts{}, err
	}
	c := &centralTree{treePrefixes: newTreePrefixes(st, su.d),
		sum: batchStats{w: make([]float64, tree.PackedLen(su.d)), u: make([]float64, su.d)}}
	c.one, c.oneUp = []*batchStats{&c.sum}, []bool{true}
	return parts{learner: newLazyLearner(su.d), schedule: everyB{b: 1}, protocol: c}, nil
}

// centralTree is the super agent's curator: the silos hand their users'
// exact statistics to it (counted as messages), and it releases the sum
// of all of them through one tree mechanism (noise of stream "silo" 0).
type centralTree struct {
	*treePrefixes
	sum   batchStats
	one   []*batchStats
	oneUp []bool // the curator's one tree takes part in every release
}

func (c *centralTree) publish(up []bool, batches []*batchStats, wsyn, usyn []float64, send sender) {
	everySilo(up)
	clear(c.sum.w)
	clear(c.sum.u)
	for i, b := range batches {
		send(i, "gram", b.w)
		send(i, "bias", b.u)
		addTo(c.sum.w, b.w)
		addTo(c.sum.u, b.u)
	}
	c.treePrefixes.publish(c.oneUp, c.one, wsyn, usyn, func(int, string, []float64) {})
}
