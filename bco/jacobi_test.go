package bco

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"testing"
)

// jacobiCases are Gram matrices X^T X of random X (full rank, and rank
// deficient as collinear document features make them), d x d.
func jacobiCases() [][]float64 {
	r := rand.New(rand.NewPCG(34, 35))
	var out [][]float64
	for _, c := range []struct{ d, n int }{{2, 5}, {8, 40}, {20, 12}, {47, 200}} {
		x := make([]float64, c.n*c.d)
		for i := range x {
			x[i] = float64(2*r.Float64()) - 1 // no math calls: the same bits everywhere
		}
		a := make([]float64, c.d*c.d)
		for i := range c.d {
			for j := range c.d {
				var s float64
				for k := range c.n {
					s += float64(x[k*c.d+i] * x[k*c.d+j])
				}
				a[i*c.d+j] = s
			}
		}
		out = append(out, a)
	}
	return out
}

// TestSymEigenDecomposes: A q_j = l_j q_j and Q^T Q = I to rounding.
func TestSymEigenDecomposes(t *testing.T) {
	for _, a := range jacobiCases() {
		d := int(math.Sqrt(float64(len(a))))
		l, q, ok := symEigen(a, d)
		if !ok {
			t.Fatalf("d = %d: no convergence", d)
		}
		var lmax float64
		for _, v := range l {
			lmax = math.Max(lmax, math.Abs(v))
		}
		for j := range d {
			for i := range d {
				var aq, qq float64
				for k := range d {
					aq += a[i*d+k] * q[k*d+j]
				}
				if e := math.Abs(aq - l[j]*q[i*d+j]); e > 1e-12*lmax {
					t.Fatalf("d = %d: (A q - l q)[%d][%d] = %g", d, i, j, e)
				}
				for k := range d {
					qq += q[k*d+i] * q[k*d+j]
				}
				if want := float64(b2i(i == j)); math.Abs(qq-want) > 1e-13 {
					t.Fatalf("d = %d: (Q^T Q)[%d][%d] = %v", d, i, j, qq)
				}
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestSymEigenGolden pins the bits of symEigen's eigenvalues and vectors
// on jacobiCases: run as arm64 code (scripts/crossarch.sh step 4) and
// built with GOAMD64=v3, it fails if any product of the rotations is
// fused into a multiply-add there (the hindsight of bco-ltr, and so its
// curves, would then depend on the machine).
func TestSymEigenGolden(t *testing.T) {
	h := sha256.New()
	for _, a := range jacobiCases() {
		d := int(math.Sqrt(float64(len(a))))
		l, q, _ := symEigen(a, d)
		for _, v := range append(l, q...) {
			h.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(v)))
		}
	}
	const want = "47809e80239c9d066cad8c131a7369ba4e6af5cbd14137cdfc9e07812d360473"
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("symEigen's bits hash to %s, pinned %s", got, want)
	}
}
