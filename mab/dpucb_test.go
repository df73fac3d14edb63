package mab

import (
	"context"
	"math"
	"math/bits"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/dpnoise"
	"github.com/fedbandit/fedbandit/internal/fmath"
	"github.com/fedbandit/fedbandit/internal/rng"
)

// refDPUCB plays DP-UCB written out on its own: every reward's grid
// value kept, every dyadic node's noise drawn when its last reward
// arrives (one draw per pull, on the run's noise stream) and stored by
// the pull that completed it, and an arm's noisy sum after n pulls taken
// as its exact grid sum plus the noise of the nodes ending at (n >> j)
// << j for every digit j of n (Chan, Shi & Song's decomposition of [1,
// n]). It returns the cumulative pseudo-regret at every round.
func refDPUCB(s Spec, c float64) []float64 {
	means, _ := s.Instance.MeanValues()
	key := rng.Derive(rng.NewKey("mab-run", s.Seed), "instance", s.Instance.Seed)
	rewards, enc, src := rng.New(key, "rewards"), rng.New(key, "encode"), rng.Source(key, "noise")
	const g = 1 << 20
	epsNum := math.Floor(s.Eps * (1 << 20))
	eps := epsNum / (1 << 20)
	L := bits.Len(uint(s.T))
	best := 0
	for a := range means {
		if means[a] > means[best] {
			best = a
		}
	}
	k := len(means)
	n := make([]int64, k)
	exact := make([]int64, k)
	noise := make([]map[int64]int64, k) // per arm: the noise of the node completed at pull m
	for a := range noise {
		noise[a] = map[int64]int64{}
	}
	var p float64
	var out []float64
	for t := 1; t <= s.T; t++ {
		arm := -1
		for a := range k {
			if n[a] == 0 {
				arm = a
				break
			}
		}
		if arm < 0 {
			ln := fmath.Log(float64(t - 1))
			top := math.Inf(-1)
			for a := range k {
				var noisy int64 = exact[a]
				for j := 0; j < 63; j++ {
					if n[a]>>j&1 == 1 {
						noisy += noise[a][(n[a]>>j)<<j]
					}
				}
				na := float64(n[a])
				width := float64(2*(float64(L)/eps)) * (float64(float64(bits.OnesCount64(uint64(n[a])))*fmath.Log(4.0/3)) + math.Ln2 + float64(4*ln))
				if i := float64(noisy)/g/na + float64(c*math.Sqrt(float64(2*ln)/na)) + width/na; i > top {
					arm, top = a, i
				}
			}
		}
		x := bernoulliReward(rewards, means[arm])
		if arm != best {
			bernoulliReward(rewards, means[best])
			p += means[best] - means[arm]
		}
		xh := int64(x * g) // Bernoulli rewards are on the grid: the rounding draws, and adds nothing
		if enc.Float64() < 0 {
			xh++
		}
		exact[arm] += xh
		n[arm]++
		noise[arm][n[arm]] = dpnoise.DiscreteLaplace(src, uint64(L)<<40, uint64(epsNum))
		out = append(out, p)
	}
	return out
}

// TestDPUCBMatchesReference: the dp-ucb entry's curve equals the plain
// DP-UCB above on the same streams at every checkpoint (K = 2 and 3 arms,
// c = 1 and 0.5, eps = 1 and 8), and counts one update and one reward per
// round. Mutation controls (tried 2026-12-02): a completed node holding
// only its last reward (the lower nodes it covers not folded in), and the
// noise width's k ln(4/3) dropped, each fail it.
func TestDPUCBMatchesReference(t *testing.T) {
	three := Instance{Means: []float64{0.3, 0.7, 0.5}, Reward: RewardBernoulli, Seed: 4, MeansFrom: MeansChaCha8}
	for _, tc := range []struct {
		in     Instance
		c, eps float64
	}{{twoArms(2), 1, 1}, {twoArms(3), 0.5, 8}, {three, 1, 8}} {
		s := Spec{Algorithm: "dp-ucb", Eps: tc.eps, T: 3000, Seed: 7, Params: map[string]float64{"c": tc.c}, Instance: tc.in}
		p, _, err := New(s)
		if err != nil {
			t.Fatal(err)
		}
		res, err := core.Drive(context.Background(), p, s.T, 100)
		if err != nil {
			t.Fatal(err)
		}
		want := refDPUCB(s, tc.c)
		for _, cp := range res.Curve {
			if cp.Pseudo != want[cp.Round-1] || cp.Syncs != cp.Round {
				t.Fatalf("%+v, round %d: %+v, reference pseudo %v", tc, cp.Round, cp, want[cp.Round-1])
			}
		}
		if res.Scalars != int64(s.T) {
			t.Errorf("%+v: scalars %d", tc, res.Scalars)
		}
	}
}

// TestDPUCBNoiseScale: a node's noise, read through the run the family
// builds (New), has the discrete Laplace law of scale L 2^20 / eps' in
// grid units (L = bits.Len(T) levels): the mean of |X| over 4000 runs'
// first node (one reward of 0 on arm 0) and their fourth-pull node (a
// single node of level 2 after four rewards of 0) is within 4.417
// standard errors of E|X| = 2p / ((1+p)(1-p)), p = exp(-eps'/(L 2^20)):
// a false alarm has probability 1e-5 per mean (two-sided normal
// approximation, 4000 draws of a law with all moments). Mutation control
// (tried 2026-12-02): the node noise not multiplied by L (mutation N27)
// fails it with z about -60.
func TestDPUCBNoiseScale(t *testing.T) {
	const runs, T, eps = 4000, 1000, 1.0
	L := float64(bits.Len(uint(T)))
	b := L * (1 << 20) / eps
	q := -math.Expm1(-1 / b) // 1 - p
	p := 1 - q
	mean := 2 * p / ((1 + p) * q)
	sd := math.Sqrt(2*p/(q*q) - mean*mean)
	for _, pulls := range []int{1, 4} {
		var sum float64
		for seed := range uint64(runs) {
			pr, _, err := New(Spec{Algorithm: "dp-ucb", Eps: eps, T: T, Seed: seed, Instance: twoArms(1)})
			if err != nil {
				t.Fatal(err)
			}
			u := pr.(*policyRun).policy.(*dpUCB)
			for i := range pulls {
				u.Observe(i+1, 0, 0)
			}
			sum += math.Abs(float64(u.arms[0].sum()))
		}
		got := sum / runs
		if z := (got - mean) / (sd / math.Sqrt(runs)); math.Abs(z) > 4.417 {
			t.Errorf("after %d pulls: mean |noise| %.4g, want %.4g (z = %.1f)", pulls, got, mean, z)
		}
	}
}

// TestDPUCBClaim: a dp-ucb run records central trust, its mechanism and
// sampler tokens, eps as the target and eps rounded down to 2^-20 as
// delivered, certified through the core rule, with the tree's L in the
// note; an eps the grid cannot represent, and a T whose grid sums could
// overflow, are errors naming the key.
func TestDPUCBClaim(t *testing.T) {
	const eps = 0.3
	_, claim, err := New(Spec{Algorithm: "dp-ucb", Eps: eps, T: 1000, Instance: twoArms(1)})
	if err != nil {
		t.Fatal(err)
	}
	down := math.Floor(eps*(1<<20)) / (1 << 20)
	if claim.Trust != core.TrustCentral || claim.Mechanism != "laplace-tree-central" || claim.Sampler != core.SamplerDiscreteLaplace ||
		claim.TargetEps != eps || claim.DeliveredEps != down || !claim.Certified || claim.Relation != Relation ||
		!strings.Contains(claim.Note, "L = 10 levels") || !strings.Contains(claim.RelationNote, "one leaf of the tree") || !strings.Contains(claim.Note, "sampler: exact discrete Laplace") {
		t.Errorf("claim %+v", claim)
	}
	if err := claim.Check(); err != nil {
		t.Error(err)
	}
	for _, s := range []Spec{
		{Algorithm: "dp-ucb", Eps: 1e-7, T: 1000, Instance: twoArms(1)},
		{Algorithm: "dp-ucb", Eps: 1, T: 1 << 43, Instance: twoArms(1)},
	} {
		if _, _, err := New(s); err == nil || !(strings.Contains(err.Error(), "eps = ") || strings.Contains(err.Error(), "T = ")) {
			t.Errorf("eps %v T %d: %v", s.Eps, s.T, err)
		}
	}
}

// TestDPUCBRegret: DP-UCB learns: the mean pseudo-regret of 10 seeds on
// two Bernoulli arms with gap 0.2 at eps = 1, T = 100000, is below a
// tenth of always pulling the worse arm (2000), and falls as eps grows
// (eps = 0.1 costs more than eps = 1, which costs more than eps = 10). Mutation control
// (tried 2026-12-02): the noise width subtracted instead of added gives
// a mean regret of about 2000 and fails it.
func TestDPUCBRegret(t *testing.T) {
	const T, seeds, gap = 100000, 10, 0.2
	regret := func(eps float64) float64 {
		var mean float64
		for seed := range uint64(seeds) {
			p, _, err := New(Spec{Algorithm: "dp-ucb", Eps: eps, T: T, Seed: seed, Instance: twoArms(seed)})
			if err != nil {
				t.Fatal(err)
			}
			res, err := core.Drive(context.Background(), p, T, T)
			if err != nil {
				t.Fatal(err)
			}
			mean += res.Pseudo / seeds
		}
		return mean
	}
	at1, at01, at10 := regret(1), regret(0.1), regret(10)
	if !(at1 > 0 && at1 < gap*T/10) || !(at01 > at1 && at1 > at10) {
		t.Errorf("mean pseudo-regret: eps 1 %.1f (want below %v), eps 0.1 %.1f, eps 10 %.1f", at1, gap*T/10, at01, at10)
	}
	t.Logf("mean pseudo-regret: eps 0.1 %.1f, 1 %.1f, 10 %.1f", at01, at1, at10)
}

// TestAuditDPUCB: `run audit`'s path for DP-UCB (mab.Audit through the
// runs New builds): the sum of the L = 4 released nodes holding one
// user's reward (T = 8), 0 against 1, over 2 x 20000 runs, passes at the
// claim (its lower bound below eps'), and the noise divided by L (what
// mutation N27 does) is a VIOLATION (false-alarm rate 1e-6 each).
// Mutation control (tried 2026-12-02): under N27 the honest audit fails.
func TestAuditDPUCB(t *testing.T) {
	if testing.Short() {
		t.Skip("audit: 2 x 20000 runs per case")
	}
	for _, div := range []uint64{1, 4} {
		res, err := Audit(AuditSpec{Algorithm: "dp-ucb", Eps: 1, N: 8, Trials: 20000, Seed: 1, Alpha: 1e-6, NoiseDivisor: div})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("noise / %d: lower eps %.3f (%s), claimed %.3f, ceiling %.3f: %s", div, res.LowerEps, res.Release, res.Claimed, res.Ceiling, res.Verdict)
		if want := map[uint64]string{1: VerdictPass, 4: VerdictViolation}[div]; res.Verdict != want || res.Claimed != 1 || !res.Certified {
			t.Errorf("noise / %d: %s (lower %.3f, claimed %.3f), want %s", div, res.Verdict, res.LowerEps, res.Claimed, want)
		}
	}
}
