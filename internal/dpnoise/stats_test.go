package dpnoise

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/fedbandit/fedbandit/internal/rng"
	"gonum.org/v1/gonum/stat/distuv"
)

// alpha is the false-alarm rate of every statistical test in this package:
// each fails with probability 1e-6 when the sampler is correct (the seeds
// are fixed, so a pass is reproducible; the rate bounds how unlucky a
// fixed seed can be).
const alpha = 1e-6

// zAlpha is the two-sided standard-normal critical value at alpha.
// pinnedDGauss are the first draws of DiscreteGaussian(1162) on the
// "dgauss-pin" test stream.
var pinnedDGauss = []int64{15, -27, 32, 26, 36, -19, -30, 6}

var zAlpha = distuv.UnitNormal.Quantile(1 - alpha/2) // 4.8916

func source(name string) rand.Source { return rng.Source(rng.NewKey("dpnoise-test", 1), name) }

// chiSquare tests counts (value -> count, n in all) against pmf: values
// are pooled into bins of expected count >= 5 (the tails into their
// neighbours) and the statistic is compared with the chi-square quantile
// at 1 - alpha. lo..hi must cover all but a negligible mass of pmf.
func chiSquare(t *testing.T, name string, counts map[int64]int, n int, pmf func(int64) float64, lo, hi int64) {
	t.Helper()
	var obs, exp []float64
	var o, e float64
	var outside int
	for v, c := range counts {
		if v < lo || v > hi {
			outside += c
		}
	}
	for v := lo; v <= hi; v++ {
		o += float64(counts[v])
		e += float64(n) * pmf(v)
		if e >= 5 {
			obs, exp = append(obs, o), append(exp, e)
			o, e = 0, 0
		}
	}
	if len(exp) == 0 {
		t.Fatalf("%s: no bin reached an expected count of 5", name)
	}
	// Fold the remainder (and any mass outside lo..hi) into the last bin.
	tail := 1.0
	for v := lo; v <= hi; v++ {
		tail -= pmf(v)
	}
	obs[len(obs)-1] += o + float64(outside)
	exp[len(exp)-1] += e + math.Max(tail, 0)*float64(n)
	var stat float64
	for i := range obs {
		d := obs[i] - exp[i]
		stat += d * d / exp[i]
	}
	df := float64(len(obs) - 1)
	if df < 1 {
		t.Fatalf("%s: only one bin", name)
	}
	crit := distuv.ChiSquared{K: df}.Quantile(1 - alpha)
	if stat > crit {
		t.Errorf("%s: chi-square %.1f > %.1f (df %v, false-alarm rate %g)", name, stat, crit, df, alpha)
	} else {
		t.Logf("%s: chi-square %.1f <= %.1f (df %v)", name, stat, crit, df)
	}
}

// meanVar checks the sample mean and variance of xs against the exact
// moments with z-tests at alpha (the variance through the fourth central
// moment m4).
func meanVar(t *testing.T, name string, xs []float64, mean, variance, m4 float64) {
	t.Helper()
	n := float64(len(xs))
	var s float64
	for _, x := range xs {
		s += x
	}
	mu := s / n
	var v float64
	for _, x := range xs {
		v += (x - mean) * (x - mean)
	}
	v /= n
	if z := (mu - mean) / math.Sqrt(variance/n); math.Abs(z) > zAlpha {
		t.Errorf("%s: mean %.6g, want %.6g (z = %.2f)", name, mu, mean, z)
	}
	if z := (v - variance) / math.Sqrt((m4-variance*variance)/n); math.Abs(z) > zAlpha {
		t.Errorf("%s: variance %.6g, want %.6g (z = %.2f)", name, v, variance, z)
	}
}

func sortedKeys(m map[int64]int) []int64 {
	k := make([]int64, 0, len(m))
	for v := range m {
		k = append(k, v)
	}
	sort.Slice(k, func(i, j int) bool { return k[i] < k[j] })
	return k
}
