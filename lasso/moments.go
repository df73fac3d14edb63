package lasso

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Source is a design matrix with its targets, grouped by query. The lasso
// reads it once, in parallel: Fill must be safe for concurrent use.
type Source interface {
	// Dim is the number of features d.
	Dim() int
	// Len is the number of queries.
	Len() int
	// Rows is the number of documents of query q.
	Rows(q int) int
	// Fill writes query q's rows into dst (Rows(q) rows of Dim()+1 values:
	// the d features, then the target).
	Fill(q int, dst []float64)
}

// Moments are the sufficient statistics of rows z = [x, y] (d features and
// the target): count, mean, centered co-moment matrix
// C = sum (z - mean)(z - mean)^T, and per-column minimum and maximum.
// Everything the lasso, its cross-validation and its diagnostics need is a
// function of Moments, so the data is read exactly once.
type Moments struct {
	// N is the number of rows.
	N int
	// P is the number of columns, d + 1.
	P int
	// Mean holds the P column means.
	Mean []float64
	// C is the P x P centered co-moment matrix, row-major, symmetric.
	C []float64
	// Min and Max hold per-column extremes (used to detect constant
	// columns exactly).
	Min, Max []float64
}

// NewMoments returns empty moments for p columns.
func NewMoments(p int) *Moments {
	m := &Moments{P: p, Mean: make([]float64, p), C: make([]float64, p*p), Min: make([]float64, p), Max: make([]float64, p)}
	for i := range m.Min {
		m.Min[i] = math.Inf(1)
		m.Max[i] = math.Inf(-1)
	}
	return m
}

// Clone returns a deep copy.
func (m *Moments) Clone() *Moments {
	c := &Moments{N: m.N, P: m.P}
	c.Mean = append([]float64(nil), m.Mean...)
	c.C = append([]float64(nil), m.C...)
	c.Min = append([]float64(nil), m.Min...)
	c.Max = append([]float64(nil), m.Max...)
	return c
}

// Merge adds the rows summarised by o into m (Chan, Golub and LeVeque's
// pairwise update), which is exact in exact arithmetic and numerically stable.
func (m *Moments) Merge(o *Moments) {
	if o.N == 0 {
		return
	}
	if m.N == 0 {
		*m = *o.Clone()
		return
	}
	p := m.P
	na, nb := float64(m.N), float64(o.N)
	n := na + nb
	delta := make([]float64, p)
	for i := range delta {
		delta[i] = o.Mean[i] - m.Mean[i]
	}
	f := na * nb / n
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			// The explicit conversion rounds the product, so that no
			// compiler fuses it into the sums: the same bits on every
			// platform.
			m.C[i*p+j] += o.C[i*p+j] + float64(f*delta[i]*delta[j])
		}
	}
	for i := range m.Mean {
		m.Mean[i] += delta[i] * nb / n
		m.Min[i] = math.Min(m.Min[i], o.Min[i])
		m.Max[i] = math.Max(m.Max[i], o.Max[i])
	}
	m.N += o.N
}

// addBlock sets m to the moments of the rows of z (rows x p, row-major),
// using the scratch space s: a pass for the means and extremes, then blocks
// of gramBlock rows are centered, packed and multiplied (see gram.go).
func (m *Moments) addBlock(z []float64, rows int, s *gramScratch) {
	p := m.P
	m.N = rows
	sum, lo, hi := m.Mean[:p], m.Min[:p], m.Max[:p]
	clear(sum)
	columnStats(z[:rows*p], p, sum, lo, hi)
	for i := range sum {
		m.Mean[i] = sum[i] / float64(rows)
		if lo[i] == hi[i] {
			m.Mean[i] = lo[i] // a constant column has exactly its value as mean
		}
	}
	s.reset(p)
	for r0 := 0; r0 < rows; r0 += gramBlock {
		n := min(gramBlock, rows-r0)
		s.pack(z[r0*p:(r0+n)*p], p, m.Mean)
		s.update(p, n)
	}
	pp := paddedCols(p)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			m.C[i*p+j] = s.c[i*pp+j]
			m.C[j*p+i] = s.c[i*pp+j]
		}
	}
}

// columnStats adds the columns of z (row-major, p columns) to sum and
// lowers lo and raises hi to their extremes, row by row in order. It reads
// four rows per step so that the running values stay in registers.
func columnStats(z []float64, p int, sum, lo, hi []float64) {
	sum, lo, hi = sum[:p], lo[:p], hi[:p]
	rows := len(z) / p
	r := 0
	for ; r+4 <= rows; r += 4 {
		z0, z1, z2, z3 := z[r*p:(r+1)*p], z[(r+1)*p:(r+2)*p], z[(r+2)*p:(r+3)*p], z[(r+3)*p:(r+4)*p]
		for i, v0 := range z0 {
			v1, v2, v3 := z1[i], z2[i], z3[i]
			sum[i] = sum[i] + v0 + v1 + v2 + v3
			lo[i] = lower(lower(lower(lower(lo[i], v0), v1), v2), v3)
			hi[i] = higher(higher(higher(higher(hi[i], v0), v1), v2), v3)
		}
	}
	for ; r < rows; r++ {
		for i, v := range z[r*p : (r+1)*p] {
			sum[i] += v
			lo[i] = lower(lo[i], v)
			hi[i] = higher(hi[i], v)
		}
	}
}

// lower returns v if v < x, else x (so a NaN v never replaces x).
func lower(x, v float64) float64 {
	if v < x {
		return v
	}
	return x
}

// higher returns v if v > x, else x.
func higher(x, v float64) float64 {
	if v > x {
		return v
	}
	return x
}

// chunkRows is the target number of rows per work unit of ComputeMoments.
// Chunks are made of whole consecutive queries and depend only on the data,
// never on the number of workers, so results are bit-identical for any
// worker count.
const chunkRows = 8192

// ComputeMoments reads src once, in parallel on workers goroutines (<= 0:
// GOMAXPROCS), and returns the moments of the rows of each group: query q
// belongs to group group[q] (0 <= group[q] < groups); group == nil puts every
// query in group 0. Partial results are merged in a fixed order, so the
// result does not depend on workers or scheduling.
func ComputeMoments(ctx context.Context, src Source, group []int, groups int, workers int) ([]*Moments, error) {
	nq := src.Len()
	if group != nil && len(group) != nq {
		return nil, fmt.Errorf("lasso: %d group labels for %d queries", len(group), nq)
	}
	if groups < 1 {
		groups = 1
	}
	p := src.Dim() + 1
	// Chunks of whole queries.
	type chunk struct{ lo, hi, rows int }
	var chunks []chunk
	for q := 0; q < nq; {
		c := chunk{lo: q}
		for q < nq && (c.rows == 0 || c.rows+src.Rows(q) <= chunkRows) {
			c.rows += src.Rows(q)
			q++
		}
		c.hi = q
		chunks = append(chunks, c)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	results := make([][]*Moments, len(chunks))
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr error
	var errOnce sync.Once
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf, gbuf []float64
			var scratch gramScratch
			for {
				ci := int(next.Add(1)) - 1
				if ci >= len(chunks) {
					return
				}
				if err := ctx.Err(); err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
				c := chunks[ci]
				need := c.rows * p
				if cap(buf) < need {
					buf = make([]float64, need)
				}
				buf = buf[:need]
				off := 0
				for q := c.lo; q < c.hi; q++ {
					n := src.Rows(q) * p
					src.Fill(q, buf[off:off+n])
					off += n
				}
				out := make([]*Moments, groups)
				for g := 0; g < groups; g++ {
					// Gather the rows of group g in this chunk.
					rows := 0
					var z []float64
					if group == nil {
						z, rows = buf, c.rows
					} else {
						if cap(gbuf) < need {
							gbuf = make([]float64, need)
						}
						z = gbuf[:need]
						off := 0
						for q := c.lo; q < c.hi; q++ {
							n := src.Rows(q) * p
							if group[q] == g {
								copy(z[rows*p:], buf[off:off+n])
								rows += src.Rows(q)
							}
							off += n
						}
					}
					if rows == 0 {
						continue
					}
					m := NewMoments(p)
					m.addBlock(z, rows, &scratch)
					out[g] = m
				}
				results[ci] = out
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, fmt.Errorf("lasso: reading data: %w", firstErr)
	}
	total := make([]*Moments, groups)
	for g := range total {
		total[g] = NewMoments(p)
	}
	for _, out := range results {
		for g, m := range out {
			if m != nil {
				total[g].Merge(m)
			}
		}
	}
	return total, nil
}

// MergeAll returns the moments of the union of ms (in order), skipping
// index skip (use -1 to keep all).
func MergeAll(ms []*Moments, skip int) *Moments {
	t := NewMoments(ms[0].P)
	for i, m := range ms {
		if i != skip {
			t.Merge(m)
		}
	}
	return t
}
