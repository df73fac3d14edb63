package federate

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedbandit/fedbandit/internal/vec"
)

// zRandom bounds |z| in the uniform-random tests: a two-sided false-alarm
// rate of 1e-5 per check under the normal approximation (each sum has 10^4
// to 10^6 independent terms).
const zRandom = 4.417

// TestRandomMatchesExactExpectation: the uniform-random policy on the
// paper's synthetic instance (M = 100, K = 100, d = 10, T = 10,000, fixed
// basis, noise 0.25) has pseudo-regret whose exact expectation, given the
// instance's contexts, is the sum over silo-rounds of the mean gap over
// the K actions, and whose variance is the sum of the gaps' variances. The
// run's total must lie within zRandom standard deviations of it.
func TestRandomMatchesExactExpectation(t *testing.T) {
	if testing.Short() {
		t.Skip("a full paper-size run")
	}
	spec := Spec{
		Algorithm: AlgRandom, M: 100, T: 10000, B: 25, Seed: 3,
		Synthetic: SyntheticSpec{D: 10, K: 100, NoiseVar: 0.25, FixedBasis: true, Seed: 2},
	}
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	var got float64
	for _, p := range res.SiloPseudo {
		got += p
	}
	// The same contexts, drawn again from the same streams.
	s := spec.WithDefaults()
	inst := newSynthetic(s, RunKey(s.Seed))
	var mean, variance float64
	for r := 1; r <= s.T; r++ {
		for i := 0; i < s.M; i++ {
			set := inst.next(i)
			m, v := gapMoments(set.mu[:set.n])
			mean += m
			variance += v
		}
	}
	z := (got - mean) / math.Sqrt(variance)
	t.Logf("R(T)/T = %.3f, exact expectation %.3f (sd %.3f), z = %.2f; syncs %d", got/float64(s.T), mean/float64(s.T), math.Sqrt(variance)/float64(s.T), z, res.Syncs)
	if math.Abs(z) > zRandom {
		t.Errorf("uniform random: R(T) = %.1f, expected %.1f +- %.1f (z = %.2f)", got, mean, math.Sqrt(variance), z)
	}
	if avg := mean / float64(s.T); avg < 30 || avg > 45 {
		t.Errorf("expected R(T)/T = %.2f, outside the uniform-random level of the paper's instance (about 37)", avg)
	}
	if res.Syncs != 0 || res.Scalars != 0 {
		t.Errorf("a policy that does not learn synchronised %d times, sent %d scalars", res.Syncs, res.Scalars)
	}
}

// TestRandomOnLTR: on a learning-to-rank instance the expectation per
// silo-round is the mean, over the silo's queries, of the mean gap of the
// query's documents.
func TestRandomOnLTR(t *testing.T) {
	data := makeLTR(4, 6, 9, 3, 5, unitFeatures, func(r *rand.Rand, x []float64) float64 { return r.Float64() })
	spec := Spec{Instance: InstanceLTR, LTR: data, Algorithm: AlgRandom, M: 4, T: 5000, B: 10, Seed: 1}
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	for i, own := range data.Silos {
		// Per round: a uniform query, then a uniform document of it.
		var m1, m2 float64 // E[gap], E[gap^2]
		for _, q := range own {
			m, v := gapMoments(data.Queries[q].Mu)
			m1 += m / float64(len(own))
			m2 += (v + m*m) / float64(len(own))
		}
		n := float64(spec.T)
		z := (res.SiloPseudo[i] - n*m1) / math.Sqrt(n*(m2-m1*m1))
		if math.Abs(z) > zRandom {
			t.Errorf("silo %d: R(T) = %.2f, expected %.2f (z = %.2f)", i, res.SiloPseudo[i], n*m1, z)
		}
	}
}

// gapMoments returns the mean and variance over a uniform action of
// max(mu) - mu[a].
func gapMoments(mu []float64) (mean, variance float64) {
	top := mu[vec.Portable().ArgmaxFirst(mu)]
	var s, ss float64
	for _, m := range mu {
		g := top - m
		s += g
		ss += g * g
	}
	n := float64(len(mu))
	mean = s / n
	return mean, ss/n - mean*mean
}

// TestRandomValidation: the random policy has no learner to make lazy.
func TestRandomValidation(t *testing.T) {
	err := Spec{Algorithm: AlgRandom, Lazy: true, M: 2, T: 10, B: 5}.Validate()
	if err == nil {
		t.Error("random with Lazy accepted")
	}
}
