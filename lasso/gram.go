package lasso

import "math"

// The centered Gram matrix C = sum_r z_r z_r^T of a chunk's centered rows is
// the bulk of the lasso's one pass over the data. It is computed in blocks of
// gramBlock rows, each packed into panels of panelWidth columns and updated
// tile by tile with gramTile, an AVX2+FMA assembly kernel on amd64 machines
// that have both extensions and portable Go with math.FMA elsewhere.
//
// Every entry of C is one fused multiply-add chain over the chunk's
// centered rows z in order,
//
//	acc = 0; for r := range rows { acc = math.FMA(z[r][i], z[r][j], acc) }
//
// so the result depends neither on the kernel used, nor on the block size,
// nor on the machine: the assembly and the Go kernel are bit-identical.

const (
	// gramBlock is the number of rows packed and multiplied at a time: a
	// packed panel (gramBlock x panelWidth values, 16 KiB) stays in the L1
	// cache while the tiles of one column panel are updated.
	gramBlock = 256
	// panelWidth is the number of columns per packed panel, and the width
	// of a gramTile tile.
	panelWidth = 8
	// tileHeight is the number of rows of a gramTile tile.
	tileHeight = 4
)

// gramScratch is a worker's scratch space for (*Moments).addBlock.
type gramScratch struct {
	// packed holds a block of centered rows as panels of panelWidth
	// columns: column panelWidth*k+c of row r is
	// packed[(k*gramBlock+r)*panelWidth+c]; columns beyond P are zero.
	packed []float64
	// c is the Gram matrix padded to a multiple of panelWidth columns
	// (row-major, stride paddedCols(P)).
	c []float64
}

// paddedCols returns p rounded up to a multiple of panelWidth.
func paddedCols(p int) int {
	return (p + panelWidth - 1) / panelWidth * panelWidth
}

// reset sizes s for p columns and zeroes the padded Gram matrix.
func (s *gramScratch) reset(p int) {
	pp := paddedCols(p)
	if cap(s.packed) < pp*gramBlock {
		s.packed = make([]float64, pp*gramBlock)
	}
	s.packed = s.packed[:pp*gramBlock]
	if cap(s.c) < pp*pp {
		s.c = make([]float64, pp*pp)
	}
	s.c = s.c[:pp*pp]
	clear(s.c)
}

// pack writes rows (row-major, p columns) minus mean into s.packed.
func (s *gramScratch) pack(rows []float64, p int, mean []float64) {
	full := p / panelWidth * panelWidth // columns in full panels
	for r := 0; r < len(rows)/p; r++ {
		row := rows[r*p : (r+1)*p]
		for lo := 0; lo < full; lo += panelWidth {
			src := (*[panelWidth]float64)(row[lo:])
			mu := (*[panelWidth]float64)(mean[lo:])
			dst := (*[panelWidth]float64)(s.packed[lo*gramBlock+r*panelWidth:])
			for c := range dst {
				dst[c] = src[c] - mu[c]
			}
		}
		if full < p {
			dst := (*[panelWidth]float64)(s.packed[full*gramBlock+r*panelWidth:])
			mu := mean[full:p]
			for c, v := range row[full:] {
				dst[c] = v - mu[c]
			}
			clear(dst[p-full:])
		}
	}
}

// update adds the products of the n packed rows to the upper triangle of
// s.c: every tile of tileHeight x panelWidth entries that holds an entry on
// or above the diagonal (the few entries below it in diagonal tiles are
// computed too, and ignored).
func (s *gramScratch) update(p, n int) {
	pp := paddedCols(p)
	for j0 := 0; j0 < p; j0 += panelWidth {
		b := s.packed[j0*gramBlock:]
		for i0 := 0; i0 < min(j0+panelWidth, p); i0 += tileHeight {
			a := s.packed[i0/panelWidth*panelWidth*gramBlock+i0%panelWidth:]
			gramTile(s.c[i0*pp+j0:], pp, a, b, n)
		}
	}
}

// gramTile adds to the tileHeight x panelWidth tile at c (row stride ldc)
// the products of rows packed rows: for k < tileHeight, l < panelWidth, in
// the order r = 0, 1, ..., rows-1,
//
//	c[k*ldc+l] = math.FMA(a[r*panelWidth+k], b[r*panelWidth+l], c[k*ldc+l])
//
// It checks the bounds the kernels rely on.
func gramTile(c []float64, ldc int, a, b []float64, rows int) {
	if rows <= 0 {
		return
	}
	_ = c[(tileHeight-1)*ldc+panelWidth-1]
	_ = a[(rows-1)*panelWidth+tileHeight-1]
	_ = b[(rows-1)*panelWidth+panelWidth-1]
	gramTileKernel(c, ldc, a, b, rows)
}

// gramTileKernel is gramTile without the bounds checks: gramTileGo, or
// its AVX2 twin where the CPU has it (gram_amd64.go); both give the same
// bits. Tests swap it to compare the two.
var gramTileKernel = gramTileGo

// gramTileGo is the portable gramTile kernel and the specification of the
// assembly one: the same tile, the same fused multiply-adds in the same
// order (products are commutative, so the operand order does not matter).
func gramTileGo(c []float64, ldc int, a, b []float64, rows int) {
	var acc [tileHeight][panelWidth]float64
	for k := range acc {
		copy(acc[k][:], c[k*ldc:k*ldc+panelWidth])
	}
	for r := 0; r < rows; r++ {
		ar := a[r*panelWidth : r*panelWidth+tileHeight]
		br := b[r*panelWidth : r*panelWidth+panelWidth]
		for k := range acc {
			for l := range acc[k] {
				acc[k][l] = math.FMA(ar[k], br[l], acc[k][l])
			}
		}
	}
	for k := range acc {
		copy(c[k*ldc:k*ldc+panelWidth], acc[k][:])
	}
}
