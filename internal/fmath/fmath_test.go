package fmath

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"golang.org/x/sys/cpu"
)

// args are the test arguments of each function: wide and narrow ranges,
// the subnormal and overflow edges and the special values. They are made
// without NormFloat64 and with every product converted, so that they are
// the same on every machine too.
func args(n int) (exp, log, powX, powY []float64) {
	r := rand.New(rand.NewPCG(34, 34))
	sym := func(scale float64) float64 { return (float64(r.Float64()*2) - 1) * scale } // in (-scale, scale)
	for i := 0; i < n; i++ {
		exp = append(exp, sym(750), sym(2), sym(1e-3))
		log = append(log, math.Float64frombits(r.Uint64()>>1), r.Float64()*4, 1+float64(sym(1e-6)))
		powX = append(powX, 10, r.Float64()*100, r.Float64())
		powY = append(powY, sym(10), sym(50), sym(3))
	}
	exp = append(exp, 0, math.Copysign(0, -1), 1, -1, 709.78, 709.79, -708.4, -745.1, -745.2, -1e10, 1e-300, math.Inf(1), math.Inf(-1), math.NaN())
	log = append(log, 0, 1, 2, math.E, 5e-324, math.MaxFloat64, math.Inf(1), -1, math.NaN())
	powX = append(powX, 0, math.Copysign(0, -1), -2, 2, math.Inf(1), math.Inf(-1), -1, 10)
	powY = append(powY, -1, 3, 0.5, -0.5, 2, -3, math.Inf(1), 0.25)
	return exp, log, powX, powY
}

// TestMatchesStd: on amd64 with FMA (the machines every pin was measured
// on) Exp, Log, Log10, Pow, Log1p, Expm1 and Erfc are bit for bit the standard library's, so
// using them changes no amd64 result.
func TestMatchesStd(t *testing.T) {
	if runtime.GOARCH != "amd64" || !(cpu.X86.HasAVX && cpu.X86.HasFMA) || stdFused {
		t.Skip("the standard library's own results differ here (see the package doc); TestGolden covers this machine")
	}
	n := 300000
	if testing.Short() {
		n = 30000
	}
	exp, log, powX, powY := args(n)
	l1p, em1 := args1p(n)
	same := func(name string, x, got, want float64) {
		t.Helper()
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("%s(%v) = %v, math's %v", name, x, got, want)
		}
	}
	for _, x := range exp {
		same("Exp", x, Exp(x), math.Exp(x))
	}
	for _, x := range log {
		if x > 0 && x < 0x1p-1022 {
			// amd64's assembly math.Log misreads subnormals (math.Log(6.06e-309)
			// = -708.85, not -709.70); Log is right there, as Go's own
			// algorithm on every other architecture is.
			continue
		}
		same("Log", x, Log(x), math.Log(x))
		same("Log10", x, Log10(x), math.Log10(x))
	}
	for i, x := range powX {
		same("Pow", x, Pow(x, powY[i]), math.Pow(x, powY[i]))
	}
	for _, x := range l1p {
		same("Log1p", x, Log1p(x), math.Log1p(x))
	}
	for _, x := range em1 {
		same("Expm1", x, Expm1(x), math.Expm1(x))
	}
	for _, x := range argsErfc(n) {
		same("Erfc", x, Erfc(x), math.Erfc(x))
	}
}

// argsErfc are Erfc's arguments, made like args'.
func argsErfc(n int) []float64 {
	r := rand.New(rand.NewPCG(34, 36))
	sym := func(scale float64) float64 { return (float64(r.Float64()*2) - 1) * scale }
	var a []float64
	for i := 0; i < n; i++ {
		a = append(a, sym(1), sym(1.3), sym(6), sym(30))
	}
	return append(a, 0, math.Copysign(0, -1), 1e-20, 0.25, 0.84375, 1.25, 1/0.35, 6, -6.5, 28, 30, math.Inf(1), math.Inf(-1), math.NaN())
}

// args1p are Log1p's and Expm1's arguments, made like args'.
func args1p(n int) (log1p, expm1 []float64) {
	r := rand.New(rand.NewPCG(34, 35))
	sym := func(scale float64) float64 { return (float64(r.Float64()*2) - 1) * scale }
	for i := 0; i < n; i++ {
		log1p = append(log1p, sym(1e-3), float64(r.Float64()*20)-1, sym(1e-9), math.Float64frombits(r.Uint64()>>2))
		expm1 = append(expm1, sym(1), sym(60), sym(1e-5), sym(0.5))
	}
	log1p = append(log1p, -1, -0.5, 0, math.Copysign(0, -1), 1e-20, 0x1p53, math.Inf(1), -2, math.NaN())
	expm1 = append(expm1, 0, math.Copysign(0, -1), 1e-20, 0.3465, 1.0397, 38.8, 709.78, 710, -40, math.Inf(1), math.Inf(-1), math.NaN())
	return log1p, expm1
}

// goldenHash is the sha256 of the bits of every result of TestGolden's
// arguments, computed on amd64 (where TestMatchesStd ties them to the
// standard library's).
const goldenHash = "e9fb5387746452edb6d17b886d7ac2e32eead9164b28a597601ba9f0984e79cf"

// TestGolden: the results are the same bits on every machine: the hash of
// all of them is pinned, so the test fails on any architecture, CPU or
// compiler setting (GOAMD64=v3, arm64 under qemu in scripts/crossarch.sh)
// that rounds one of them differently.
func TestGolden(t *testing.T) {
	exp, log, powX, powY := args(20000)
	h := sha256.New()
	put := func(v float64) { _ = binary.Write(h, binary.LittleEndian, math.Float64bits(v)) }
	for _, x := range exp {
		put(Exp(x))
	}
	for _, x := range log {
		put(Log(x))
		put(Log10(x))
	}
	for i, x := range powX {
		put(Pow(x, powY[i]))
	}
	l1p, em1 := args1p(20000)
	for _, x := range l1p {
		put(Log1p(x))
	}
	for _, x := range em1 {
		put(Expm1(x))
	}
	for _, x := range argsErfc(20000) {
		put(Erfc(x))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != goldenHash {
		t.Fatalf("results hash %s, pinned %s", got, goldenHash)
	}
}
