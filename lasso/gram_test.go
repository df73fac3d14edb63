package lasso

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// specialValues are mixed into test inputs: signed zeros, infinities, NaN,
// subnormals, extremes and values whose products round differently with
// and without a fused multiply-add.
var specialValues = []float64{
	0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
	5e-324, -2.5e-320, math.SmallestNonzeroFloat64 * 3, 1e-300, 1e300, -1e300, math.MaxFloat64,
	1 + 0x1p-52, 1 - 0x1p-53, -(1 + 0x1p-51), 3,
}

// testValues returns n values: standard normals of mixed scales and, if
// special, about one in ten from specialValues.
func testValues(r *rand.Rand, n int, special bool) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(7)-3))
		if special && r.IntN(10) == 0 {
			v[i] = specialValues[r.IntN(len(specialValues))]
		}
	}
	return v
}

// sameFloat reports whether a and b have the same bits or are both NaN
// (NaN payloads are not part of the contract).
func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// referenceMoments computes what addBlock must return, entry by entry, from
// the definition: the means and extremes by the sequential pass, and every
// co-moment as one fused multiply-add chain over the rows in order.
func referenceMoments(z []float64, rows, p int) *Moments {
	m := NewMoments(p)
	m.N = rows
	for r := 0; r < rows; r++ {
		for i := 0; i < p; i++ {
			v := z[r*p+i]
			m.Mean[i] += v
			if v < m.Min[i] {
				m.Min[i] = v
			}
			if v > m.Max[i] {
				m.Max[i] = v
			}
		}
	}
	for i := range m.Mean {
		m.Mean[i] /= float64(rows)
		if m.Min[i] == m.Max[i] {
			m.Mean[i] = m.Min[i]
		}
	}
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			var acc float64
			for r := 0; r < rows; r++ {
				acc = math.FMA(z[r*p+i]-m.Mean[i], z[r*p+j]-m.Mean[j], acc)
			}
			m.C[i*p+j], m.C[j*p+i] = acc, acc
		}
	}
	return m
}

// TestAddBlockMatchesDefinition checks addBlock bit for bit against
// referenceMoments for every column count from 1 to 70 and row counts
// around the tile, panel and block sizes, with each available kernel.
func TestAddBlockMatchesDefinition(t *testing.T) {
	rowCounts := []int{1, 2, 3, 4, 5, 7, 8, 9, 31, 100, gramBlock - 1, gramBlock, gramBlock + 1, 300, 2*gramBlock + 3}
	forEachKernel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(11, 12))
		var s gramScratch
		for p := 1; p <= 70; p++ {
			for _, rows := range rowCounts {
				if p > 20 && rows > gramBlock+1 && p%7 != 0 {
					continue // keep the test fast: large blocks for a few widths
				}
				special := r.IntN(4) == 0
				z := testValues(r, rows*p, special)
				if p > 1 {
					for row := 0; row < rows; row++ {
						z[row*p+p/2] = 0.1 // a constant column
					}
				}
				got := NewMoments(p)
				got.addBlock(z, rows, &s)
				want := referenceMoments(z, rows, p)
				if err := sameMoments(got, want); err != nil {
					t.Fatalf("p=%d rows=%d special=%v: %v", p, rows, special, err)
				}
			}
		}
	})
}

// sameMoments returns an error naming the first entry where a and b differ
// in bits (NaNs count as equal).
func sameMoments(a, b *Moments) error {
	if a.N != b.N || a.P != b.P {
		return fmt.Errorf("N, P = %d, %d vs %d, %d", a.N, a.P, b.N, b.P)
	}
	for _, f := range []struct {
		name string
		x, y []float64
	}{{"Mean", a.Mean, b.Mean}, {"Min", a.Min, b.Min}, {"Max", a.Max, b.Max}, {"C", a.C, b.C}} {
		for i := range f.x {
			if !sameFloat(f.x[i], f.y[i]) {
				return fmt.Errorf("%s[%d] = %v (%#x), want %v (%#x)", f.name, i, f.x[i], math.Float64bits(f.x[i]), f.y[i], math.Float64bits(f.y[i]))
			}
		}
	}
	return nil
}

// tileCase is a random gramTile input: a tile of c inside a larger matrix
// with row stride ldc, and packed rows a and b.
type tileCase struct {
	c       []float64
	ldc     int
	a, b    []float64
	rows    int
	special bool
}

// tileCases returns inputs for every row count from 1 to 300, with and
// without special values.
func tileCases() []tileCase {
	r := rand.New(rand.NewPCG(21, 22))
	var cases []tileCase
	for rows := 1; rows <= 300; rows++ {
		for _, special := range []bool{false, true} {
			ldc := panelWidth + r.IntN(70)
			cases = append(cases, tileCase{
				c:       testValues(r, (tileHeight-1)*ldc+panelWidth, special),
				ldc:     ldc,
				a:       testValues(r, rows*panelWidth, special),
				b:       testValues(r, rows*panelWidth, special),
				rows:    rows,
				special: special,
			})
		}
	}
	return cases
}

// runTile applies kernel to a copy of tc.c and returns it.
func runTile(tc tileCase, kernel func(c []float64, ldc int, a, b []float64, rows int)) []float64 {
	c := append([]float64(nil), tc.c...)
	kernel(c, tc.ldc, tc.a, tc.b, tc.rows)
	return c
}

// TestTileCasesDetectMutations is the mutation control of the bit-for-bit
// kernel tests: kernels that round products separately, reorder the rows or
// write outside the tile must differ from gramTileGo on tileCases.
func TestTileCasesDetectMutations(t *testing.T) {
	mutants := map[string]func(c []float64, ldc int, a, b []float64, rows int){
		"multiply then add": func(c []float64, ldc int, a, b []float64, rows int) {
			for r := 0; r < rows; r++ {
				for k := 0; k < tileHeight; k++ {
					for l := 0; l < panelWidth; l++ {
						c[k*ldc+l] += a[r*panelWidth+k] * b[r*panelWidth+l]
					}
				}
			}
		},
		"rows reversed": func(c []float64, ldc int, a, b []float64, rows int) {
			for r := rows - 1; r >= 0; r-- {
				gramTileGo(c, ldc, a[r*panelWidth:], b[r*panelWidth:], 1)
			}
		},
		"one row short": func(c []float64, ldc int, a, b []float64, rows int) {
			gramTileGo(c, ldc, a, b, rows-1)
		},
		"writes the padding": func(c []float64, ldc int, a, b []float64, rows int) {
			gramTileGo(c, ldc, a, b, rows)
			if ldc > panelWidth {
				c[panelWidth] = 0
			}
		},
	}
	for name, mutant := range mutants {
		caught := false
		for _, tc := range tileCases() {
			want, got := runTile(tc, gramTileGo), runTile(tc, mutant)
			for i := range want {
				if !sameFloat(got[i], want[i]) {
					caught = true
				}
			}
		}
		if !caught {
			t.Errorf("mutant %q is not detected by tileCases", name)
		}
	}
}

// TestPaddedCols: the Gram scratch is padded to the next multiple of
// panelWidth and no further (any larger padding gives the same moments but
// clears and carries up to panelWidth^2 times the memory).
func TestPaddedCols(t *testing.T) {
	for _, tc := range []struct{ p, want int }{
		{1, 8}, {7, 8}, {8, 8}, {9, 16}, {16, 16}, {47, 48}, {137, 144},
	} {
		if got := paddedCols(tc.p); got != tc.want {
			t.Errorf("paddedCols(%d) = %d, want %d", tc.p, got, tc.want)
		}
	}
}

// TestGramTileBounds: gramTile checks the bounds the assembly kernel
// relies on (the tile of c, and rows packed rows of a and b): one element
// short in any of them panics before the kernel runs, and exact lengths
// pass; zero rows touch nothing (nil a and b).
func TestGramTileBounds(t *testing.T) {
	forEachKernel(t, func(t *testing.T) {
		const ldc, rows = panelWidth + 3, 5
		nc := (tileHeight-1)*ldc + panelWidth
		na := (rows-1)*panelWidth + tileHeight
		nb := rows * panelWidth
		for _, tc := range []struct {
			name       string
			nc, na, nb int
			panics     bool
		}{
			{"exact", nc, na, nb, false},
			{"c short", nc - 1, na, nb, true},
			{"a short", nc, na - 1, nb, true},
			{"b short", nc, na, nb - 1, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				// Slices of larger arrays: a kernel reading past the
				// length stays in memory and would not fault.
				c := make([]float64, nc+64)[:tc.nc]
				a := make([]float64, na+64)[:tc.na]
				b := make([]float64, nb+64)[:tc.nb]
				panicked := func() (p bool) {
					defer func() { p = recover() != nil }()
					gramTile(c, ldc, a, b, rows)
					return false
				}()
				if panicked != tc.panics {
					t.Errorf("panicked %v, want %v", panicked, tc.panics)
				}
			})
		}
		c := []float64{1, 2, 3}
		gramTile(c, ldc, nil, nil, 0)
		if c[0] != 1 || c[1] != 2 || c[2] != 3 {
			t.Errorf("zero rows changed c: %v", c)
		}
	})
}
