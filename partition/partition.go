// Package partition splits a dataset's queries across M silos.
//
// Every strategy gives each silo exactly floor(Q/M) queries, as the
// reference code does; the Q mod M queries left over are unused and listed
// in Partition.Unused. Strategies:
//
//	contiguous    the reference: silo i gets queries [i*s, (i+1)*s) in file
//	              order (s = floor(Q/M)); the last Q mod M queries are unused.
//	random        a seeded uniformly random permutation of the queries, then
//	              contiguous blocks of it; IID silos.
//	by-size       non-IID: queries sorted by number of documents (ascending,
//	              ties in file order), then contiguous blocks: silo 0 gets the
//	              smallest queries (fewest actions), silo M-1 the largest.
//	              The Q mod M largest queries are unused.
//	by-relevance  non-IID: queries sorted by relevance mass (mean label of
//	              their documents, ascending, ties in file order), then
//	              contiguous blocks: silo 0 sees the least relevant result
//	              lists, silo M-1 the most relevant.
//
// Within a silo, queries are listed in increasing file order.
package partition

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/fedbandit/fedbandit/internal/rng"
)

// Strategy names.
const (
	Contiguous  = "contiguous"
	Random      = "random"
	BySize      = "by-size"
	ByRelevance = "by-relevance"
)

// Strategies lists the strategy names.
var Strategies = []string{Contiguous, Random, BySize, ByRelevance}

// Query summarises one query for the non-IID strategies.
type Query struct {
	// Docs is the number of documents.
	Docs int
	// Relevance is the relevance mass used by by-relevance: the mean label
	// of the query's documents.
	Relevance float64
}

// Partition assigns queries (by index in dataset order) to silos.
type Partition struct {
	Strategy string `json:"strategy"`
	// Silos is M.
	Silos int `json:"silos"`
	// Seed is the seed of the random strategy (0 and unused otherwise).
	Seed uint64 `json:"seed"`
	// Queries is Q, the number of queries of the dataset.
	Queries int `json:"queries"`
	// Assign[i] lists the 0-based query indices of silo i, increasing.
	Assign [][]int `json:"assign"`
	// Unused lists the queries in no silo (Q mod M of them), increasing.
	Unused []int `json:"unused"`
}

// Seeded reports whether a strategy uses its seed.
func Seeded(strategy string) bool { return strategy == Random }

// Split partitions queries (in dataset order) into m silos of
// floor(len(queries)/m) queries each, by strategy. seed is used by the
// random strategy only (stream rng.New(rng.NewKey("partition", seed),
// "random")).
func Split(strategy string, queries []Query, m int, seed uint64) (*Partition, error) {
	q := len(queries)
	if m < 1 {
		return nil, fmt.Errorf("partition: %d silos: need at least 1", m)
	}
	if m > q {
		return nil, fmt.Errorf("partition: %d silos but the dataset has only %d queries (every silo needs at least one)", m, q)
	}
	order := make([]int, q)
	for i := range order {
		order[i] = i
	}
	switch strategy {
	case Contiguous:
	case Random:
		r := rng.New(rng.NewKey("partition", seed), "random")
		r.Shuffle(q, func(i, j int) { order[i], order[j] = order[j], order[i] })
	case BySize:
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(queries[a].Docs, queries[b].Docs) })
	case ByRelevance:
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(queries[a].Relevance, queries[b].Relevance) })
	default:
		return nil, fmt.Errorf("partition: unknown strategy %q (known: %s)", strategy, strings.Join(Strategies, ", "))
	}
	if !Seeded(strategy) {
		seed = 0
	}
	size := q / m
	p := &Partition{Strategy: strategy, Silos: m, Seed: seed, Queries: q, Assign: make([][]int, m)}
	for i := 0; i < m; i++ {
		p.Assign[i] = slices.Clone(order[i*size : (i+1)*size])
		slices.Sort(p.Assign[i])
	}
	p.Unused = slices.Clone(order[m*size:])
	slices.Sort(p.Unused)
	if p.Unused == nil {
		p.Unused = []int{}
	}
	return p, nil
}

// Equal reports whether two partitions assign the same queries to the same
// silos.
func (p *Partition) Equal(o *Partition) bool {
	if p.Strategy != o.Strategy || p.Silos != o.Silos || p.Seed != o.Seed || p.Queries != o.Queries || len(p.Assign) != len(o.Assign) {
		return false
	}
	for i := range p.Assign {
		if !slices.Equal(p.Assign[i], o.Assign[i]) {
			return false
		}
	}
	return slices.Equal(p.Unused, o.Unused)
}
