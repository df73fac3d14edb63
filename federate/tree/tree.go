// Package tree implements the binary tree of partial sums ("p-sums") through
// which a silo releases its batch statistics in Private-FedLinUCB (Zhou &
// Chowdhury, ICLR 2024, Algorithm 2; privacy.md section 3.2).
//
// Batches are numbered k = 1, 2, ..., K. Node (l, a) covers batches
// [a*2^l+1, (a+1)*2^l] and is released at batch (a+1)*2^l, so the node
// released at batch k has level = the number of trailing zeros of k. Its
// value is the sum of the silo's NON-noisy batch data over the batches it
// covers plus fresh Gaussian noise, drawn exactly once when the node is
// released and cached afterwards. The prefix sum over batches [1..k] is the
// sum of popcount(k) released nodes, one per set bit of k.
//
// The structural functions (Level, PrefixNodes, NodesContaining, Kappa) are
// pure; Tree holds one silo's state for one stream (Gram or bias); Server
// sums the M silos' nodes of each level and publishes prefix sums.
package tree

import (
	"fmt"
	"math/bits"

	"github.com/fedbandit/fedbandit/internal/mutation"
)

// Node identifies a tree node: it covers batches [Index*2^Level+1,
// (Index+1)*2^Level].
type Node struct {
	Level int
	Index int
}

// First returns the first batch the node covers.
func (n Node) First() int { return n.Index<<n.Level + 1 }

// Last returns the last batch the node covers, which is also the batch at
// which the node is released.
func (n Node) Last() int { return (n.Index + 1) << n.Level }

// Level returns the level of the node released at batch k >= 1: the number
// of trailing zeros of k.
func Level(k int) int {
	if k < 1 {
		panic(fmt.Sprintf("tree.Level: batch %d < 1", k))
	}
	return bits.TrailingZeros(uint(k))
}

// ReleasedAt returns the node released at batch k >= 1.
func ReleasedAt(k int) Node {
	l := Level(k)
	return Node{Level: l, Index: k>>l - 1}
}

// PrefixNodes returns the nodes whose sum is the prefix over batches
// [1..k], one per set bit of k, from the highest level down; together they
// are disjoint and cover [1..k] exactly. PrefixNodes(0) is empty.
func PrefixNodes(k int) []Node {
	nodes := make([]Node, 0, bits.OnesCount(uint(k)))
	covered := 0
	for l := bits.Len(uint(k)) - 1; l >= 0; l-- {
		if k&(1<<l) != 0 {
			nodes = append(nodes, Node{Level: l, Index: covered >> l})
			covered += 1 << l
		}
	}
	return nodes
}

// NodesContaining returns how many nodes of the full binary tree over K
// batches contain batch j (1 <= j <= K): the number of levels l with
// ceil(j/2^l)*2^l <= K (privacy.md 3.2). It bounds the number of nodes
// Algorithm 2 actually releases containing j (a level-l node is released
// only at a batch with exactly l trailing zeros), and is at most Kappa(K),
// with equality at j = 1.
func NodesContaining(j, K int) int {
	n := 0
	for l := 0; ; l++ {
		end := ((j + 1<<l - 1) >> l) << l // ceil(j/2^l)*2^l
		if end > K {
			return n
		}
		n++
	}
}

// Kappa returns 1+floor(log2 K), the number of nodes containing batch 1 of
// a tree over K >= 1 batches (and the maximum over all batches).
func Kappa(K int) int {
	if K < 1 {
		panic(fmt.Sprintf("tree.Kappa: K = %d < 1", K))
	}
	return bits.Len(uint(K))
}

// Noise draws the privacy noise of one node. Fill is called exactly once
// per released node, with the batch k at which it is released and the
// node's level, and must write the noise into dst (len(dst) is the
// stream's dimension). Implementations can record calls to prove that each
// node's noise is drawn exactly once.
type Noise interface {
	Fill(dst []float64, k, level int)
}

// Tree is one silo's p-sum tree for one stream. Values are flat vectors of
// a fixed dimension (a packed symmetric matrix for the Gram stream).
type Tree struct {
	dim   int
	k     int         // batches added so far
	alpha [][]float64 // alpha[l]: non-noisy sum of the latest node of level l
	node  [][]float64 // node[l]: noisy value of the latest released node of level l
	noise Noise       // nil means no noise (non-private)
}

// New returns an empty tree of vectors of dimension dim whose nodes get
// noise from noise (nil: no noise).
func New(dim int, noise Noise) *Tree {
	if dim < 1 {
		panic(fmt.Sprintf("tree.New: dimension %d < 1", dim))
	}
	return &Tree{dim: dim, noise: noise}
}

// Dim returns the dimension of the stream.
func (t *Tree) Dim() int { return t.dim }

// Batches returns the number of batches added so far.
func (t *Tree) Batches() int { return t.k }

// Add ingests the next batch datum gamma (batch k = Batches()+1): it forms
// the non-noisy p-sum alpha_l = sum_{j<l} alpha_j + gamma with l =
// Level(k), draws the node's noise once, caches the noisy node and returns
// its level and value. The returned slice is owned by the tree and stays
// valid (and unchanged) until the next node of the same level is released.
func (t *Tree) Add(gamma []float64) (level int, node []float64) {
	if len(gamma) != t.dim {
		panic(fmt.Sprintf("tree.Add: datum of length %d, want %d", len(gamma), t.dim))
	}
	t.k++
	l := Level(t.k)
	for len(t.alpha) <= l {
		t.alpha = append(t.alpha, make([]float64, t.dim))
		t.node = append(t.node, make([]float64, t.dim))
	}
	a := t.alpha[l]
	copy(a, gamma)
	for j := 0; j < l; j++ {
		for e, v := range t.alpha[j] {
			a[e] += v
		}
	}
	nd := t.node[l]
	if t.noise == nil || mutation.On("M3") && l == 1 {
		copy(nd, a)
		return l, nd
	}
	t.noise.Fill(nd, t.k, l)
	for e, v := range a {
		nd[e] += v
	}
	return l, nd
}

// Node returns the cached noisy value of the latest released node of level
// l (nil if none was released yet). It never draws noise.
func (t *Tree) Node(l int) []float64 {
	if l < 0 || l >= len(t.node) || t.k>>l == 0 {
		return nil
	}
	return t.node[l]
}

// Prefix writes into dst the noisy prefix sum over batches [1..k], k =
// Batches(): the sum of the cached nodes of the set bits of k (paper
// Algorithm 4, where each silo publishes its own prefix). It draws no
// noise.
func (t *Tree) Prefix(dst []float64) {
	prefixOf(dst, t.k, t.node)
}

// prefixOf sums nodes[l] over the set bits l of k into dst, from the
// highest level down (a fixed order, for reproducibility).
func prefixOf(dst []float64, k int, nodes [][]float64) {
	clear(dst)
	for l := bits.Len(uint(k)) - 1; l >= 0; l-- {
		if k&(1<<l) == 0 {
			continue
		}
		for e, v := range nodes[l] {
			dst[e] += v
		}
	}
}

// Server aggregates the silos' nodes for one stream (paper Algorithm 2):
// at batch k it adds the M noisy nodes of level Level(k), stores that sum
// and publishes the prefix sum over the set bits of k. It adds no noise of
// its own.
type Server struct {
	dim   int
	k     int
	nodes [][]float64 // nodes[l]: sum over silos of the latest level-l nodes
}

// NewServer returns a server for a stream of dimension dim.
func NewServer(dim int) *Server {
	if dim < 1 {
		panic(fmt.Sprintf("tree.NewServer: dimension %d < 1", dim))
	}
	return &Server{dim: dim}
}

// Begin starts batch k = (previous batch)+1 and returns its level; the
// level's stored sum is reset to zero, ready for Receive.
func (s *Server) Begin() int {
	s.k++
	l := Level(s.k)
	for len(s.nodes) <= l {
		s.nodes = append(s.nodes, make([]float64, s.dim))
	}
	clear(s.nodes[l])
	return l
}

// Receive adds one silo's node of the current batch's level.
func (s *Server) Receive(node []float64) {
	if len(node) != s.dim {
		panic(fmt.Sprintf("tree.Server.Receive: node of length %d, want %d", len(node), s.dim))
	}
	acc := s.nodes[Level(s.k)]
	for e, v := range node {
		acc[e] += v
	}
}

// Publish writes the prefix sum over batches [1..k] of the current batch k
// into dst.
func (s *Server) Publish(dst []float64) {
	prefixOf(dst, s.k, s.nodes)
}
