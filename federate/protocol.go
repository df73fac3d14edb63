package federate

import (
	"fmt"
	"math/rand/v2"

	"github.com/fedbandit/fedbandit/federate/tree"
	"github.com/fedbandit/fedbandit/internal/mutation"
)

// A protocol carries the silos' batch statistics to the server at a
// synchronisation and publishes the synchronised sums.
type protocol interface {
	// publish sends the batch statistics of every silo i with up[i]
	// through the protocol, announcing each silo->server message to send
	// (which counts it), and writes the published sums W_syn (packed) and
	// U_syn into wsyn and usyn. Only the exact sum takes a subset of the
	// silos: the tree protocols step every silo's tree (or the level's
	// node of all M) together, and their schedules synchronise every silo
	// (everySilo).
	publish(up []bool, batches []*batchStats, wsyn, usyn []float64, send sender)
}

// everySilo is the tree protocols' invariant: every silo takes part in
// each synchronisation (a schedule that picks a subset is paired with the
// exact sum only).
func everySilo(up []bool) {
	for i, u := range up {
		if !u {
			panic(fmt.Sprintf("federate: silo %d left out of a synchronisation of a protocol that steps every silo together", i))
		}
	}
}

// sender accounts for one message of silo i on a stream ("gram" or
// "bias").
type sender func(i int, stream string, msg []float64)

// exactSum is non-private FedLinUCB's communication: silos send their
// exact batch statistics and the server adds them to the running sums.
type exactSum struct{}

func (exactSum) publish(up []bool, batches []*batchStats, wsyn, usyn []float64, send sender) {
	for i, b := range batches {
		if !up[i] {
			continue
		}
		send(i, "gram", b.w)
		send(i, "bias", b.u)
		addTo(wsyn, b.w)
		addTo(usyn, b.u)
	}
}

// siloTrees holds each silo's p-sum trees (tree mechanism) of the two
// streams.
type siloTrees struct {
	gram, bias []*tree.Tree
}

// newSiloTrees makes the trees of m silos for dimension d, with Gram
// noise entries of standard deviation sigma under the Gram-noise
// convention and bias entries sigma, drawn from nf(i, stream, std).
func newSiloTrees(m, d int, sigma float64, gramNoise string, nf noiseFactory) (siloTrees, error) {
	gstd, err := tree.GramStd(d, sigma, gramNoise)
	if err != nil {
		return siloTrees{}, err
	}
	bstd := make([]float64, d)
	for j := range bstd {
		bstd[j] = sigma
		if mutation.On("M11") {
			bstd[j] = sigma / 2
		}
	}
	st := siloTrees{gram: make([]*tree.Tree, m), bias: make([]*tree.Tree, m)}
	np := tree.PackedLen(d)
	for i := range st.gram {
		st.gram[i] = tree.New(np, nf(i, "gram", gstd))
		st.bias[i] = tree.New(d, nf(i, "bias", bstd))
		switch {
		case mutation.On("M12"): // the bias tree draws from the Gram's stream
			st.bias[i] = tree.New(d, nf(i, "gram", bstd))
		case mutation.On("M15"):
			st.gram[i] = tree.New(np, nil)
		}
	}
	return st, nil
}

// treeProtocol is a protocol over each silo's trees (P, P_alt): the
// audit and the tests read the released nodes through it.
type treeProtocol interface{ trees() siloTrees }

// trees returns the silos' trees.
func (st siloTrees) trees() siloTrees { return st }

// treeNodes is protocol P (paper Algorithm 2): each silo adds its batch
// to its trees and sends the new noisy p-sum node; the server adds the M
// nodes of the level and publishes the prefix sum. With a shuffler (SDP by
// amplification) the server receives the messages in a random order: it
// sees the multiset, not the senders.
type treeNodes struct {
	siloTrees
	gramSrv, biasSrv *tree.Server
	gnodes, bnodes   [][]float64
	order            []int
	shuffle          *rand.Rand // nil: no shuffler
}

func newTreeNodes(st siloTrees, d int, shuffle *rand.Rand) *treeNodes {
	m := len(st.gram)
	return &treeNodes{
		siloTrees: st,
		gramSrv:   tree.NewServer(tree.PackedLen(d)), biasSrv: tree.NewServer(d),
		gnodes: make([][]float64, m), bnodes: make([][]float64, m), order: make([]int, m),
		shuffle: shuffle,
	}
}

func (p *treeNodes) publish(up []bool, batches []*batchStats, wsyn, usyn []float64, send sender) {
	everySilo(up)
	p.gramSrv.Begin()
	p.biasSrv.Begin()
	for i, b := range batches {
		_, p.gnodes[i] = p.gram[i].Add(b.w)
		_, p.bnodes[i] = p.bias[i].Add(b.u)
		send(i, "gram", p.gnodes[i])
		send(i, "bias", p.bnodes[i])
		p.order[i] = i
	}
	if p.shuffle != nil {
		p.shuffle.Shuffle(len(p.order), func(a, b int) { p.order[a], p.order[b] = p.order[b], p.order[a] })
	}
	for _, i := range p.order {
		p.gramSrv.Receive(p.gnodes[i])
		p.biasSrv.Receive(p.bnodes[i])
	}
	p.gramSrv.Publish(wsyn)
	p.biasSrv.Publish(usyn)
}

// treePrefixes is protocol P_alt (paper Algorithm 4): each silo publishes
// its own noisy prefix sum and the server adds the M prefixes.
type treePrefixes struct {
	siloTrees
	gbuf, bbuf []float64
}

func newTreePrefixes(st siloTrees, d int) *treePrefixes {
	return &treePrefixes{siloTrees: st, gbuf: make([]float64, tree.PackedLen(d)), bbuf: make([]float64, d)}
}

func (p *treePrefixes) publish(up []bool, batches []*batchStats, wsyn, usyn []float64, send sender) {
	everySilo(up)
	clear(wsyn)
	clear(usyn)
	for i, b := range batches {
		p.gram[i].Add(b.w)
		p.bias[i].Add(b.u)
		p.gram[i].Prefix(p.gbuf)
		send(i, "gram", p.gbuf)
		addTo(wsyn, p.gbuf)
		p.bias[i].Prefix(p.bbuf)
		send(i, "bias", p.bbuf)
		addTo(usyn, p.bbuf)
	}
}
