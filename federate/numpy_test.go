package federate

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/fedbandit/fedbandit/internal/numpyrand"
	"github.com/fedbandit/fedbandit/internal/vec"
)

// publishedGolden is testdata/published_instance.json, written by
// testdata/published_instance.py with Debian's python3-numpy from the
// published code's synth_env (floats as hex, exact).
type publishedGolden struct {
	NumPy  string `json:"numpy"`
	Stream struct {
		Randn        []string `json:"randn"`
		RandomSample []string `json:"random_sample"`
	} `json:"stream_seed2"`
	Cases []struct {
		Name     string   `json:"name"`
		T        int      `json:"T"`
		M        int      `json:"M"`
		K        int      `json:"K"`
		D        int      `json:"d"`
		Theta    []string `json:"theta"`
		Contexts []struct {
			T    int `json:"t"`
			I    int `json:"i"`
			Rows []struct {
				X  []string `json:"x"`
				Mu string   `json:"mu"`
			} `json:"rows"`
		} `json:"contexts"`
	} `json:"cases"`
}

func readPublishedGolden(t *testing.T) *publishedGolden {
	t.Helper()
	b, err := os.ReadFile("testdata/published_instance.json")
	if err != nil {
		t.Fatal(err)
	}
	var g publishedGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

func hexFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("golden value %q: %v", s, err)
	}
	return v
}

// sameFloat compares bits (a NaN never appears here).
func sameFloat(a, b float64) bool { return a == b }

// TestNumpyStream: np.random.seed(2); randn(1001); random_sample(10),
// bit for bit.
func TestNumpyStream(t *testing.T) {
	g := readPublishedGolden(t)
	r := numpyrand.New(2)
	for i, s := range g.Stream.Randn {
		if got, want := r.Gauss(), hexFloat(t, s); !sameFloat(got, want) {
			t.Fatalf("randn[%d] = %v, numpy %v", i, got, want)
		}
	}
	for i, s := range g.Stream.RandomSample {
		if got, want := r.Double(), hexFloat(t, s); !sameFloat(got, want) {
			t.Fatalf("random_sample[%d] = %v, numpy %v", i, got, want)
		}
	}
}

// TestPublishedInstance: the published code's synthetic instance, theta*
// and contexts (the learner's view and mean of every random action), bit
// for bit against numpy: the small case everywhere, and the paper's
// instance (M = 100, K = 100, d = 10, T = 10,000, seed 2) at its first and
// last silo-rounds and its theta*, which follows 9e8 normals.
func TestPublishedInstance(t *testing.T) {
	g := readPublishedGolden(t)
	for _, c := range g.Cases {
		if c.Name == "paper" && testing.Short() {
			t.Log("paper-size case skipped under -short")
			continue
		}
		theta := make([]float64, c.D)
		for j, s := range c.Theta {
			theta[j] = hexFloat(t, s)
		}
		want := map[[2]int]int{}
		for n, ctx := range c.Contexts {
			want[[2]int{ctx.T, ctx.I}] = n
		}
		nFixed := c.D
		nRand := c.K - nFixed
		cs := &numpyContexts{r: numpyrand.New(2), k: c.K, skip: nFixed, z: make([]float64, c.D-1)}
		x := make([]float64, vec.PanelLen(nRand, c.D))
		mu := make([]float64, vec.PanelLen(nRand, 1))
		nb := (nRand + vec.Lanes - 1) / vec.Lanes
		checked := 0
		for tt := 0; tt < c.T; tt++ {
			for i := 0; i < c.M; i++ {
				n, ok := want[[2]int{tt, i}]
				if !ok {
					// Not compared: just advance the stream.
					for k := c.K * (c.D - 1); k > 0; k-- {
						cs.r.Gauss()
					}
					continue
				}
				cs.fill(x, mu, nb, theta)
				for a, row := range c.Contexts[n].Rows {
					base := a/vec.Lanes*vec.Lanes*c.D + a%vec.Lanes
					for j, s := range row.X {
						if got, w := x[base+j*vec.Lanes], hexFloat(t, s); !sameFloat(got, w) {
							t.Fatalf("%s t=%d silo %d action %d coordinate %d: %v, numpy %v", c.Name, tt, i, nFixed+a, j, got, w)
						}
					}
					if got, w := mu[a], hexFloat(t, row.Mu); !sameFloat(got, w) {
						t.Fatalf("%s t=%d silo %d action %d: mean %v, numpy %v", c.Name, tt, i, nFixed+a, got, w)
					}
				}
				checked++
			}
		}
		if checked != len(c.Contexts) {
			t.Fatalf("%s: compared %d silo-rounds of %d", c.Name, checked, len(c.Contexts))
		}
		// theta* follows the contexts in the same stream: publishedTheta
		// (its own pass, cached) must match numpy's, and so must the
		// stream drawn on from here.
		if c.Name == "small" {
			got := publishedTheta(2, c.T, c.M, c.K, c.D)
			for j := range theta {
				if !sameFloat(got[j], theta[j]) {
					t.Fatalf("%s: publishedTheta[%d] = %v, numpy %v", c.Name, j, got[j], theta[j])
				}
			}
		}
		raw := make([]float64, c.D-1)
		for j := range raw {
			raw[j] = cs.r.Gauss()
		}
		scale := 0.5 / numpyrand.RowNorm(raw)
		for j, v := range raw {
			if got := v * scale; !sameFloat(got, theta[j]) {
				t.Fatalf("%s: theta[%d] = %v, numpy %v", c.Name, j, got, theta[j])
			}
		}
	}
}

// TestGivenTheta: a run given theta* explicitly is the run whose instance
// seed draws that theta*, bit for bit; a different theta* changes it.
func TestGivenTheta(t *testing.T) {
	s := smallSpec(AlgLDP)
	want := resultBits(mustRun(t, s))
	s.Synthetic.Theta = SyntheticTheta(s.Synthetic.D, s.Synthetic.Seed)
	if got := resultBits(mustRun(t, s)); !slices.Equal(got, want) {
		t.Error("theta given explicitly: a different run")
	}
	s.Synthetic.Theta[0] += 0.01
	if got := resultBits(mustRun(t, s)); slices.Equal(got, want) {
		t.Error("another theta*: the same run")
	}
}

// TestPublishedInstanceRun: a run on the published instance plays the
// published theta* and contexts (its random actions' means are the golden
// ones), and is deterministic.
func TestPublishedInstanceRun(t *testing.T) {
	g := readPublishedGolden(t)
	c := g.Cases[0] // small: T = 3, M = 2, K = 12, d = 5
	s := Spec{Algorithm: AlgFedLinUCB, M: c.M, T: c.T, B: 1, Seed: 1,
		Synthetic: SyntheticSpec{D: c.D, K: c.K, NoiseVar: 0.25, Seed: 2, FixedBasis: true, SharedContexts: true, ContextGen: ContextsNumPy}}
	sm := newTestSim(t, s, hooks{})
	in := sm.inst.(*synthetic)
	for j, h := range c.Theta {
		if in.theta[j] != hexFloat(t, h) {
			t.Fatalf("theta[%d] = %v, numpy %v", j, in.theta[j], hexFloat(t, h))
		}
	}
	for n, ctx := range c.Contexts {
		set := in.next(ctx.I)
		if n != ctx.T*c.M+ctx.I {
			t.Fatalf("golden contexts out of order")
		}
		for a, row := range ctx.Rows {
			if got, want := set.mu[c.D+a], hexFloat(t, row.Mu); got != want {
				t.Fatalf("t=%d silo %d action %d: mean %v, numpy %v", ctx.T, ctx.I, c.D+a, got, want)
			}
		}
	}
	if a, b := resultBits(mustRun(t, s)), resultBits(mustRun(t, s)); !slices.Equal(a, b) {
		t.Error("two runs differ")
	}
}

func mustRun(t *testing.T, s Spec) *Result {
	t.Helper()
	r, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestKnownThetas: every pinned theta* (knownThetas) is, bit for bit, the
// walk over its instance's stream (walkTheta) and numpy's theta* of that
// instance (the golden file's case of its T, M, K, d; all seed 2), and
// publishedTheta returns it.
//
// Mutation-checked: changing the last bit of a pinned coordinate fails
// both comparisons.
func TestKnownThetas(t *testing.T) {
	g := readPublishedGolden(t)
	if len(knownThetas) == 0 {
		t.Fatal("no pinned theta*")
	}
	for key, bits := range knownThetas {
		seed, T, M, K, D := key[0], key[1], key[2], key[3], key[4]
		walked := walkTheta(uint32(seed), T, M, K, D)
		if len(walked) != len(bits) {
			t.Fatalf("%v: %d coordinates pinned, the walk gives %d", key, len(bits), len(walked))
		}
		for j, b := range bits {
			if math.Float64bits(walked[j]) != b {
				t.Errorf("%v: theta[%d] pinned %#x, the walk gives %#x", key, j, b, math.Float64bits(walked[j]))
			}
		}
		found := false
		for _, c := range g.Cases {
			if seed != 2 || c.T != T || c.M != M || c.K != K || c.D != D {
				continue
			}
			found = true
			for j, h := range c.Theta {
				if math.Float64bits(hexFloat(t, h)) != bits[j] {
					t.Errorf("%v: theta[%d] pinned %#x, numpy %s", key, j, bits[j], h)
				}
			}
		}
		if !found {
			t.Errorf("%v: no numpy case of this instance in the golden file", key)
		}
		got := publishedTheta(uint32(seed), T, M, K, D)
		for j, b := range bits {
			if math.Float64bits(got[j]) != b {
				t.Errorf("%v: publishedTheta[%d] = %v", key, j, got[j])
			}
		}
	}
}
