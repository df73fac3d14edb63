package tree

import (
	"fmt"
	"math/bits"
	"testing"
)

// floorLog2 computes floor(log2 k) by repeated halving, independently of
// math/bits.
func floorLog2(k int) int {
	n := -1
	for ; k > 0; k /= 2 {
		n++
	}
	return n
}

func TestLevelAndReleasedAtTable(t *testing.T) {
	tests := []struct {
		k, level int
		node     Node
	}{
		{1, 0, Node{0, 0}},
		{2, 1, Node{1, 0}},
		{3, 0, Node{0, 2}},
		{4, 2, Node{2, 0}},
		{6, 1, Node{1, 2}},
		{8, 3, Node{3, 0}},
		{12, 2, Node{2, 2}},
		{1024, 10, Node{10, 0}},
	}
	for _, tc := range tests {
		if got := Level(tc.k); got != tc.level {
			t.Errorf("Level(%d) = %d, want %d", tc.k, got, tc.level)
		}
		if got := ReleasedAt(tc.k); got != tc.node {
			t.Errorf("ReleasedAt(%d) = %+v, want %+v", tc.k, got, tc.node)
		}
	}
}

func TestKappaTable(t *testing.T) {
	// privacy.md T2: K=1024 gives 11 (not 1+ln K = 7.93), K=1000 gives 10,
	// K=1 gives 1; the paper's instance has K = 10000/25 = 400 -> 9.
	for _, tc := range []struct{ k, want int }{{1, 1}, {2, 2}, {3, 2}, {4, 3}, {400, 9}, {1000, 10}, {1023, 10}, {1024, 11}} {
		if got := Kappa(tc.k); got != tc.want {
			t.Errorf("Kappa(%d) = %d, want %d", tc.k, got, tc.want)
		}
	}
}

// checkPrefix verifies the structural claims about the prefix of k.
func checkPrefix(k int) error {
	nodes := PrefixNodes(k)
	if len(nodes) != bits.OnesCount(uint(k)) {
		return fmt.Errorf("k=%d: %d nodes, want popcount %d", k, len(nodes), bits.OnesCount(uint(k)))
	}
	if len(nodes) > floorLog2(k)+1 {
		return fmt.Errorf("k=%d: %d nodes > floor(log2 k)+1", k, len(nodes))
	}
	next := 1
	for _, n := range nodes {
		if n.First() != next {
			return fmt.Errorf("k=%d: node %+v starts at %d, want %d (gap or overlap)", k, n, n.First(), next)
		}
		if ReleasedAt(n.Last()) != n {
			return fmt.Errorf("k=%d: node %+v is not the node released at its last batch %d", k, n, n.Last())
		}
		next = n.Last() + 1
	}
	if next != k+1 {
		return fmt.Errorf("k=%d: nodes cover [1..%d], want [1..%d]", k, next-1, k)
	}
	return nil
}

// TestT5PrefixExhaustive is privacy.md T5 on the structural functions: for
// every k <= 2^16, the prefix uses popcount(k) <= floor(log2 k)+1 released
// nodes, disjoint and covering [1..k] exactly.
func TestT5PrefixExhaustive(t *testing.T) {
	if n := PrefixNodes(0); len(n) != 0 {
		t.Fatalf("PrefixNodes(0) = %v, want empty", n)
	}
	for k := 1; k <= 1<<16; k++ {
		if err := checkPrefix(k); err != nil {
			t.Fatal(err)
		}
	}
}

// nodesContainingBrute enumerates all nodes (l, a) of a tree over K batches
// and counts those covering batch j.
func nodesContainingBrute(j, K int) int {
	n := 0
	for l := 0; 1<<l <= K; l++ {
		for a := 0; (a+1)<<l <= K; a++ {
			nd := Node{l, a}
			if nd.First() <= j && j <= nd.Last() {
				n++
			}
		}
	}
	return n
}

// TestT5NodesContaining: for every K <= 2^16 batch 1 lies in exactly
// kappa = 1+floor(log2 K) nodes; for every batch j of every K <= 300 (and
// a spread of j for larger K) the count matches brute-force enumeration and
// never exceeds kappa.
func TestT5NodesContaining(t *testing.T) {
	for K := 1; K <= 1<<16; K++ {
		kap := floorLog2(K) + 1
		if Kappa(K) != kap {
			t.Fatalf("Kappa(%d) = %d, want %d", K, Kappa(K), kap)
		}
		if got := NodesContaining(1, K); got != kap {
			t.Fatalf("NodesContaining(1, %d) = %d, want kappa %d", K, got, kap)
		}
	}
	for K := 1; K <= 300; K++ {
		for j := 1; j <= K; j++ {
			got, want := NodesContaining(j, K), nodesContainingBrute(j, K)
			if got != want {
				t.Fatalf("NodesContaining(%d, %d) = %d, brute force %d", j, K, got, want)
			}
			if got > Kappa(K) {
				t.Fatalf("NodesContaining(%d, %d) = %d > kappa %d", j, K, got, Kappa(K))
			}
		}
	}
	for _, K := range []int{1000, 1023, 1024, 4097, 65535, 1 << 16} {
		for j := 1; j <= K; j += 1 + j/7 {
			if got := NodesContaining(j, K); got > Kappa(K) {
				t.Fatalf("NodesContaining(%d, %d) = %d > kappa %d", j, K, got, Kappa(K))
			}
		}
	}
}

// releaser is what checkRelease tests: a silo-side tree.
type releaser interface {
	Add(gamma []float64) (int, []float64)
	Prefix(dst []float64)
	Node(l int) []float64
}

// markNoise adds exactly 1 to the marker coordinate (the last one) of every
// node it noises, so a node's marker counts the noise draws it contains.
type markNoise struct{}

func (markNoise) Fill(dst []float64, k, level int) {
	clear(dst)
	dst[len(dst)-1] = 1
}

// checkRelease drives a tree over K batches whose datum at batch k is the
// indicator of k (dimension K+1, the last coordinate a noise marker) and
// checks that every released node (i) has the level of its batch, (ii) is
// the NON-noisy sum of exactly the batches it covers, (iii) contains
// exactly one noise draw, (iv) is cached (later reads return it unchanged),
// and that every prefix covers [1..k] with popcount(k) noise draws.
func checkRelease(K int, tr releaser, rec *Recorder) error {
	dim := K + 1
	released := map[Node][]float64{}
	for k := 1; k <= K; k++ {
		gamma := make([]float64, dim)
		gamma[k-1] = 1
		l, node := tr.Add(gamma)
		if l != Level(k) {
			return fmt.Errorf("batch %d: released level %d, want %d", k, l, Level(k))
		}
		nd := ReleasedAt(k)
		for b := 1; b <= K; b++ {
			want := 0.0
			if nd.First() <= b && b <= nd.Last() {
				want = 1
			}
			if node[b-1] != want {
				return fmt.Errorf("batch %d: node %+v has batch %d weight %v, want %v", k, nd, b, node[b-1], want)
			}
		}
		if node[K] != 1 {
			return fmt.Errorf("batch %d: node %+v contains %v noise draws, want exactly 1", k, nd, node[K])
		}
		released[nd] = append([]float64(nil), node...)
		// Cached: every earlier node still readable at its level is unchanged.
		for lv := 0; lv <= bits.Len(uint(k)); lv++ {
			got := tr.Node(lv)
			if k>>lv == 0 {
				if got != nil {
					return fmt.Errorf("batch %d: Node(%d) = non-nil before any level-%d release", k, lv, lv)
				}
				continue
			}
			// The latest level-lv release is at the largest b <= k with
			// exactly lv trailing zeros: b = 2^lv mod 2^(lv+1).
			b := k - (k-1<<lv)%(1<<(lv+1))
			latest := ReleasedAt(b)
			want := released[latest]
			if want == nil || latest.Level != lv {
				return fmt.Errorf("batch %d: test bug: no level-%d release found", k, lv)
			}
			for e := range want {
				if got[e] != want[e] {
					return fmt.Errorf("batch %d: cached node %+v changed", k, latest)
				}
			}
		}
		pre := make([]float64, dim)
		tr.Prefix(pre)
		for b := 1; b <= K; b++ {
			want := 0.0
			if b <= k {
				want = 1
			}
			if pre[b-1] != want {
				return fmt.Errorf("prefix %d: batch %d weight %v, want %v", k, b, pre[b-1], want)
			}
		}
		if int(pre[K]) != bits.OnesCount(uint(k)) {
			return fmt.Errorf("prefix %d: %v noise draws, want popcount %d", k, pre[K], bits.OnesCount(uint(k)))
		}
	}
	// A datum enters at most kappa released nodes, exactly kappa for
	// batch 1 (privacy.md 3.2).
	for j := 1; j <= K; j++ {
		in := 0
		for nd := range released {
			if nd.First() <= j && j <= nd.Last() {
				in++
			}
		}
		if in > Kappa(K) || (j == 1 && in != Kappa(K)) || in > NodesContaining(j, K) {
			return fmt.Errorf("batch %d lies in %d released nodes (kappa %d, full-tree count %d)", j, in, Kappa(K), NodesContaining(j, K))
		}
	}
	if len(rec.Draws) != K {
		return fmt.Errorf("%d noise draws for %d released nodes", len(rec.Draws), K)
	}
	for i, dr := range rec.Draws {
		if dr.K != i+1 || dr.Level != Level(i+1) {
			return fmt.Errorf("draw %d was for (batch %d, level %d), want (%d, %d)", i, dr.K, dr.Level, i+1, Level(i+1))
		}
	}
	return nil
}

// TestT5TreeRelease checks the real tree for every K <= 300 and a few
// larger K: each node built from non-noisy sums, noise drawn exactly once
// per node (counted by the Recorder), cached reads.
func TestT5TreeRelease(t *testing.T) {
	ks := []int{512, 777, 1024}
	for K := 1; K <= 300; K++ {
		ks = append(ks, K)
	}
	for _, K := range ks {
		rec := &Recorder{Inner: markNoise{}}
		if err := checkRelease(K, New(K+1, rec), rec); err != nil {
			t.Fatalf("K=%d: %v", K, err)
		}
	}
}

// noisyChildren is a mutant that builds each node from its children's
// NOISY values (the classic re-noising bug).
type noisyChildren struct{ *Tree }

func (m noisyChildren) Add(gamma []float64) (int, []float64) {
	m.k++
	l := Level(m.k)
	for len(m.node) <= l {
		m.alpha = append(m.alpha, make([]float64, m.dim))
		m.node = append(m.node, make([]float64, m.dim))
	}
	nd := m.node[l]
	m.noise.Fill(nd, m.k, l)
	for e := range nd {
		nd[e] += gamma[e]
		for j := 0; j < l; j++ {
			nd[e] += m.node[j][e]
		}
	}
	return l, nd
}

// renoisePrefix is a mutant that draws fresh noise whenever a prefix is
// read instead of using the cached nodes.
type renoisePrefix struct{ *Tree }

func (m renoisePrefix) Prefix(dst []float64) {
	m.Tree.Prefix(dst)
	extra := make([]float64, len(dst))
	m.noise.Fill(extra, m.k, 0)
	for e := range dst {
		dst[e] += extra[e]
	}
}

// offByOne is a mutant whose node levels are off by one.
type offByOne struct{ *Tree }

func (m offByOne) Add(gamma []float64) (int, []float64) {
	l, nd := m.Tree.Add(gamma)
	return l + 1, nd
}

func TestT5MutationsAreCaught(t *testing.T) {
	mutants := map[string]func(*Recorder) releaser{
		"noisy children": func(r *Recorder) releaser { return noisyChildren{New(17, r)} },
		"renoise prefix": func(r *Recorder) releaser { return renoisePrefix{New(17, r)} },
		"off-by-one":     func(r *Recorder) releaser { return offByOne{New(17, r)} },
	}
	for name, mk := range mutants {
		rec := &Recorder{Inner: markNoise{}}
		if err := checkRelease(16, mk(rec), rec); err == nil {
			t.Errorf("mutant %q passed checkRelease", name)
		} else {
			t.Logf("mutant %q caught: %v", name, err)
		}
	}
}

// TestServerMatchesSiloPrefixes: with integer data and integer noise the
// server's published prefix (Algorithm 2) equals exactly the sum of the
// silos' own prefixes (Algorithm 4).
func TestServerMatchesSiloPrefixes(t *testing.T) {
	const m, dim, K = 5, 3, 37
	trees := make([]*Tree, m)
	for i := range trees {
		i := i
		trees[i] = New(dim, noiseFunc(func(dst []float64, k, level int) {
			for e := range dst {
				dst[e] = float64((i+1)*1000 + k*10 + e)
			}
		}))
	}
	srv := NewServer(dim)
	pub, alt, tmp := make([]float64, dim), make([]float64, dim), make([]float64, dim)
	for k := 1; k <= K; k++ {
		if l := srv.Begin(); l != Level(k) {
			t.Fatalf("batch %d: server level %d, want %d", k, l, Level(k))
		}
		clear(alt)
		for i, tr := range trees {
			gamma := []float64{float64(i + k), float64(i * k), 1}
			_, node := tr.Add(gamma)
			srv.Receive(node)
			tr.Prefix(tmp)
			for e := range alt {
				alt[e] += tmp[e]
			}
		}
		srv.Publish(pub)
		for e := range pub {
			if pub[e] != alt[e] {
				t.Fatalf("batch %d entry %d: server prefix %v, sum of silo prefixes %v", k, e, pub[e], alt[e])
			}
		}
	}
}

type noiseFunc func(dst []float64, k, level int)

func (f noiseFunc) Fill(dst []float64, k, level int) { f(dst, k, level) }

func TestGramStd(t *testing.T) {
	std, err := GramStd(3, 2, Symmetrised)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{2, 2 / 1.4142135623730951, 2 / 1.4142135623730951, 2, 2 / 1.4142135623730951, 2}
	for e := range want {
		if d := std[e] - want[e]; d > 1e-15 || d < -1e-15 {
			t.Fatalf("Symmetrised std = %v, want %v", std, want)
		}
	}
	std, err = GramStd(3, 2, UpperIID)
	if err != nil {
		t.Fatal(err)
	}
	for e, v := range std {
		if v != 2 {
			t.Fatalf("UpperIID std[%d] = %v, want 2", e, v)
		}
	}
	if _, err := GramStd(3, 2, "bogus"); err == nil {
		t.Fatal("GramStd accepted an unknown convention")
	}
}

func TestPanicsOnMisuse(t *testing.T) {
	tr := New(2, nil)
	tr.Add([]float64{1, 2})
	if tr.Dim() != 2 || tr.Batches() != 1 {
		t.Fatalf("Dim %d, Batches %d", tr.Dim(), tr.Batches())
	}
	for name, f := range map[string]func(){
		"Level(0)":         func() { Level(0) },
		"Kappa(0)":         func() { Kappa(0) },
		"New(0)":           func() { New(0, nil) },
		"NewServer(0)":     func() { NewServer(0) },
		"Add wrong length": func() { tr.Add([]float64{1}) },
		"Receive wrong length": func() {
			s := NewServer(2)
			s.Begin()
			s.Receive([]float64{1})
		},
		"Gaussian wrong length": func() { (&Gaussian{Std: []float64{1}}).Fill(make([]float64, 2), 1, 0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			f()
		}()
	}
}
