package vec

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// unpackWidthForm writes the full symmetric matrix held in width form p
// into a (the inverse of widthForm).
func unpackWidthForm(a, p []float64, d int) {
	idx := 0
	for i := 0; i < d; i++ {
		a[i*d+i] = p[idx]
		idx++
		for j := i + 1; j < d; j++ {
			a[i*d+j], a[j*d+i] = p[idx]/2, p[idx]/2
			idx++
		}
	}
}

// TestRLSUpdate: after n recursive least-squares steps from V = lambda I,
// the width form holds (lambda I + sum x x^T)^-1 and theta equals that
// inverse times sum x y, both computed independently with gonum; for
// rlsUpdateGo and for Best's Learn (the fused assembly kernel where the
// CPU has it), whose Gram and bias must hold sum x x^T and
// sum x y.
func TestRLSUpdate(t *testing.T) {
	for _, kernel := range []string{"rlsUpdateGo", "learn"} {
		for _, d := range []int{1, 2, 5, 10, 57} {
			checkRLS(t, kernel, d)
		}
	}
}

// checkRLS is TestRLSUpdate for one kernel and dimension.
func checkRLS(t *testing.T, kernel string, d int) {
	r := rand.New(rand.NewPCG(uint64(d), 9))
	lambda := 0.5
	a := make([]float64, d*d)
	for i := 0; i < d; i++ {
		a[i*d+i] = 1 / lambda
	}
	p, theta, g := make([]float64, d*(d+1)/2), make([]float64, d), make([]float64, ScratchLen(d))
	w, u := make([]float64, d*(d+1)/2), make([]float64, d)
	WidthForm(p, a, d)
	v := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		v.SetSym(i, i, lambda)
	}
	b := mat.NewVecDense(d, nil)
	x := make([]float64, d)
	for n := 0; n < 3*d+5; n++ {
		for j := range x {
			x[j] = r.NormFloat64() / math.Sqrt(float64(d))
		}
		y := r.NormFloat64()
		xv := mat.NewVecDense(d, append([]float64(nil), x...))
		// The step returns the leverage x^T V^-1 x under the V before it.
		var vinv mat.Dense
		if err := vinv.Inverse(v); err != nil {
			t.Fatal(err)
		}
		wantQ := mat.Inner(xv, &vinv, xv)
		var q float64
		if kernel == "learn" {
			q = Best().Learn(w, u, p, theta, x, y, g)
		} else {
			q = rlsUpdateGo(p, theta, x, y, g)
		}
		if math.Abs(q-wantQ) > 1e-10*(1+wantQ) {
			t.Fatalf("%s d=%d step %d: returned x^T V^-1 x = %v, want %v", kernel, d, n, q, wantQ)
		}
		v.SymRankOne(v, 1, xv)
		b.AddScaledVec(b, y, xv)
	}
	var inv mat.Dense
	if err := inv.Inverse(v); err != nil {
		t.Fatal(err)
	}
	var want mat.VecDense
	want.MulVec(&inv, b)
	unpackWidthForm(a, p, d)
	close := func(got, want float64) bool { return math.Abs(got-want) <= 1e-10*(1+math.Abs(want)) }
	for i := 0; i < d; i++ {
		if !close(theta[i], want.AtVec(i)) {
			t.Fatalf("%s d=%d: theta[%d] = %v, want %v", kernel, d, i, theta[i], want.AtVec(i))
		}
		for j := 0; j < d; j++ {
			if !close(a[i*d+j], inv.At(i, j)) {
				t.Fatalf("%s d=%d: V^-1[%d,%d] = %v, want %v", kernel, d, i, j, a[i*d+j], inv.At(i, j))
			}
		}
	}
	if kernel != "learn" {
		return
	}
	idx := 0
	for i := 0; i < d; i++ {
		if !close(u[i], b.AtVec(i)) {
			t.Fatalf("learn d=%d: u[%d] = %v, want %v", d, i, u[i], b.AtVec(i))
		}
		for j := i; j < d; j++ {
			want := v.At(i, j)
			if i == j {
				want -= lambda
			}
			if !close(w[idx], want) {
				t.Fatalf("learn d=%d: w[%d,%d] = %v, want %v", d, i, j, w[idx], want)
			}
			idx++
		}
	}
}
