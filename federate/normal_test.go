package federate

import (
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/fedbandit/fedbandit/federate/rng"
)

// checkStdNormal runs a large-sample KS test (alpha = 1e-6: D <=
// 2.6905/sqrt(n)), two tail-frequency z-tests and the moment checks of
// checkGaussian on standard normal draws.
func checkStdNormal(x []float64) error {
	if err := checkGaussian(x, 1); err != nil {
		return err
	}
	n := float64(len(x))
	for _, c := range []float64{zigR, 4} {
		p := math.Erfc(c / math.Sqrt2) // P(|X| > c)
		var cnt float64
		for _, v := range x {
			if math.Abs(v) > c {
				cnt++
			}
		}
		if zz := (cnt - n*p) / math.Sqrt(n*p*(1-p)); math.Abs(zz) > z {
			return fmt.Errorf("P(|X| > %.4g) = %.3g, want %.3g (z = %.2f)", c, cnt/n, p, zz)
		}
	}
	y := append([]float64(nil), x...)
	sort.Float64s(y)
	var dmax float64
	for i, v := range y {
		c := 0.5 * math.Erfc(-v/math.Sqrt2)
		dmax = max(dmax, math.Abs(c-float64(i)/n), math.Abs(c-float64(i+1)/n))
	}
	if crit := 2.6905 / math.Sqrt(n); dmax > crit {
		return fmt.Errorf("KS distance %.5f > %.5f", dmax, crit)
	}
	return nil
}

// TestFastNormals checks the ContextsFast generator on 1e6 draws (4e5
// with -short) with fixed seeds; ChaCha8's NormFloat64 passes the same
// checks, and a generator truncating the tail fails them.
func TestFastNormals(t *testing.T) {
	n := 1000000
	if testing.Short() {
		n = 400000
	}
	x := make([]float64, n)
	newFastNormals(rng.Derive(rng.NewKey("test", 1), "normals")).fill(x)
	if err := checkStdNormal(x); err != nil {
		t.Fatalf("fast normals: %v", err)
	}
	chachaNormals{rng.New(rng.NewKey("test", 1), "normals")}.fill(x)
	if err := checkStdNormal(x); err != nil {
		t.Fatalf("chacha8 normals: %v", err)
	}
	// Mutation control: clamp the tail at zigR.
	newFastNormals(rng.Derive(rng.NewKey("test", 2), "normals")).fill(x)
	for i, v := range x {
		x[i] = math.Max(-zigR, math.Min(zigR, v))
	}
	if err := checkStdNormal(x); err == nil {
		t.Fatal("tail-truncated normals passed")
	}
}

// TestSyntheticInstance checks the synthetic instance against its
// definition: learner views have unit norm, raw contexts (z/||z||, 1) give
// means x.theta* in [0, 1], theta* = (0.5 u, 0.5) with ||u|| = 1, the
// fixed basis actions come first, and the mean of a random action's
// reward is 0.5 (E[u.v] = 0) for both generators.
func TestSyntheticInstance(t *testing.T) {
	for _, gen := range []string{ContextsFast, ContextsChaCha8} {
		s := Spec{Synthetic: SyntheticSpec{D: 6, K: 50, NoiseVar: 0.25, FixedBasis: true, Seed: 4, ContextGen: gen}, M: 2, T: 10, B: 1, Algorithm: AlgFedLinUCB}.WithDefaults()
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
		in := newSynthetic(s, RunKey(1))
		th := in.theta
		var tn float64
		for _, v := range th[:5] {
			tn += v * v
		}
		if math.Abs(tn-0.25) > 1e-12 || th[5] != 0.5 {
			t.Fatalf("theta* = %v", th)
		}
		var sum, cnt float64
		for round := 0; round < 2000; round++ {
			set := in.next(round % 2)
			x, mu := rowsOf(set, 6), set.mu
			for a := 0; a < 50; a++ {
				row := x[a*6 : (a+1)*6]
				if nrm := math.Sqrt(dot(row, row)); math.Abs(nrm-1) > 1e-12 {
					t.Fatalf("learner view norm %v", nrm)
				}
				if mu[a] < -1e-12 || mu[a] > 1+1e-12 {
					t.Fatalf("mean %v outside [0, 1]", mu[a])
				}
				if a < 6 {
					raw := make([]float64, 6)
					raw[a], raw[5] = 1, 1
					if math.Abs(mu[a]-dot(raw, th)) > 1e-15 {
						t.Fatalf("fixed action %d: mean %v, want %v", a, mu[a], dot(raw, th))
					}
					continue
				}
				// The raw context is row * sqrt2 (||raw||^2 = 2).
				raw := make([]float64, 6)
				for j := range raw {
					raw[j] = row[j] * math.Sqrt2
				}
				if math.Abs(mu[a]-dot(raw, th)) > 1e-12 {
					t.Fatalf("mean %v, raw x.theta %v", mu[a], dot(raw, th))
				}
				sum += mu[a]
				cnt++
			}
		}
		// u.v for u uniform on S^4 has variance 1/5: mean's sd 0.5*sqrt(0.2/cnt).
		if m := sum / cnt; math.Abs(m-0.5) > z*0.5*math.Sqrt(0.2/cnt) {
			t.Fatalf("%s: mean reward %v, want 0.5", gen, m)
		}
	}
}
