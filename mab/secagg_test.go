package mab

import (
	"math"
	"testing"

	"github.com/fedbandit/fedbandit/internal/rng"
	"gonum.org/v1/gonum/stat/distuv"
)

const alpha = 1e-6 // false-alarm rate of the statistical tests here

// Noiseless SecAgg: every user's message is (x_hat + eta) mod m with a
// given eta (here the extreme shares that make the noisy sum sit at
// either end of [-tau, n g + tau], negative sums included, so that the
// modular sum wraps), and the analyser must decode exactly the true noisy
// sum, for every batch size and precision tried.
//
// Mutation controls (run 2026-11-25): decoding with the threshold n g
// instead of n g + tau fails (sums in (n g, n g + tau] decode as
// negative); summing the messages without reducing them mod m passes,
// rightly: the release reduces the sum mod m, which gives the same value.
func TestSecAggExactSums(t *testing.T) {
	src := rng.New(rng.NewKey("mab-test", 1), "secagg")
	checked, wrapped := 0, 0
	for _, n := range []int64{1, 2, 3, 16, 1000} {
		for _, g := range []int64{1, 7, 1000} {
			for _, tau := range []int64{0, 5, 100000} {
				s := &secagg{kind: "", weaken: 1}
				s.start(1, int(n), 1)
				s.g, s.tau, s.m = g, tau, n*g+2*tau+1
				for trial := 0; trial < 20; trial++ {
					s.acc, s.xhat, s.eta = resetI(s.acc, 1), resetI(s.xhat, 1), resetI(s.eta, 1)
					// target noisy sum anywhere in [-tau, n g + tau], the ends included
					var target int64
					switch trial {
					case 0:
						target = -tau
					case 1:
						target = n*g + tau
					default:
						target = src.Int64N(n*g+2*tau+1) - tau
					}
					var xs int64
					for u := int64(0); u < n; u++ {
						xh := src.Int64N(g + 1)
						xs += xh
						eta := int64(0)
						if u == n-1 {
							eta = target - xs
						}
						s.submit(0, xh, eta)
					}
					before := s.stats.Underflows
					got := s.sum(0) * float64(g)
					if int64(math.Round(got)) != target {
						t.Fatalf("n=%d g=%d tau=%d: decoded %v, want %d", n, g, tau, got, target)
					}
					checked++
					if s.stats.Underflows > before {
						wrapped++
					}
				}
				if s.stats.DecodeErrors != 0 {
					t.Errorf("n=%d g=%d tau=%d: %d decode errors", n, g, tau, s.stats.DecodeErrors)
				}
			}
		}
	}
	if wrapped == 0 {
		t.Fatalf("no sum wrapped: the test did not exercise the underflow correction")
	}
	t.Logf("%d sums decoded exactly, %d of them wrapped", checked, wrapped)
}

// Randomised rounding is unbiased: E[x_hat] = x g.
func TestRoundingUnbiased(t *testing.T) {
	s, _ := newSecagg(noiseCentral, 1, 0.1, 1, false, rng.New(rng.NewKey("mab-test", 2), "enc"), nil)
	const n = 200000
	s.start(1, n, 1) // g = ceil(sqrt(n)) = 448
	x := 0.3337
	for range n {
		s.add(0, x)
	}
	want := x * float64(s.g)
	f := want - math.Floor(want)
	z := (float64(s.xhat[0])/n - want) / math.Sqrt(f*(1-f)/n)
	if zc := distuv.UnitNormal.Quantile(1 - alpha/2); math.Abs(z) > zc {
		t.Errorf("mean x_hat %v, want %v (z = %.2f)", float64(s.xhat[0])/n, want, z)
	}
}

// The aggregate mode (one draw of the batch's total noise) and the
// per-user mode (every share drawn) give the same law of the released sum:
// a two-sample chi-square on the decoded values, false-alarm rate 1e-6.
//
// Mutation controls (run 2026-11-25): drawing the aggregate Skellam with
// one share's variance instead of n shares' fails (chi-square 7483 >
// 422); so does the aggregate discrete Laplace at twice the scale (1309 >
// 210).
func TestModesAgree(t *testing.T) {
	cases := []struct {
		alg  string
		eps  float64
		n    int
		reps int
	}{
		{"dist-rdp-se", 1, 64, 6000},
		{"dist-dp-se", 1, 64, 6000},
	}
	for _, c := range cases {
		a, _ := Lookup(c.alg)
		var out [2]map[int64]int
		for mode := range 2 {
			full := map[string]float64{"conf": 0.1, "crs": 1, "growth": 4, "S": 10, "per_user": float64(mode)}
			p, err := newProtocol(a, c.eps, full, rng.NewKey("mab-modes", uint64(mode)))
			if err != nil {
				t.Fatal(err)
			}
			out[mode] = map[int64]int{}
			for range c.reps {
				p.start(1, c.n, 1)
				for u := range c.n {
					p.add(0, float64(u%5)/4)
				}
				g := p.(*secagg).g
				out[mode][int64(math.Round(p.sum(0)*float64(g)))]++
			}
		}
		twoSample(t, c.alg, out[0], out[1])
	}
}

// twoSample is the chi-square test of homogeneity of two equal-sized
// samples, on bins pooled to at least 10 observations in both together.
func twoSample(t *testing.T, name string, a, b map[int64]int) {
	t.Helper()
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, m := range []map[int64]int{a, b} {
		for v := range m {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	var stat float64
	bins := 0
	var ca, cb int
	flush := func() {
		d := float64(ca - cb)
		stat += d * d / float64(ca+cb)
		bins++
		ca, cb = 0, 0
	}
	for v := lo; v <= hi; v++ {
		ca += a[v]
		cb += b[v]
		if ca+cb >= 10 {
			flush()
		}
	}
	if ca+cb > 0 {
		flush()
	}
	crit := distuv.ChiSquared{K: float64(bins - 1)}.Quantile(1 - alpha)
	if stat > crit {
		t.Errorf("%s: two-sample chi-square %.1f > %.1f (%d bins)", name, stat, crit, bins)
	} else {
		t.Logf("%s: two-sample chi-square %.1f <= %.1f (%d bins)", name, stat, crit, bins)
	}
}
