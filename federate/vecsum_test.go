package federate

import (
	"context"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/fedbandit/fedbandit/federate/accountant"
	"github.com/fedbandit/fedbandit/internal/rng"
)

// vecUser is one data point of a P_Vec test: d = 1, Gram entry x^2 and
// bias entry x y.
type vecUser struct{ x, y float64 }

// vecUsers are 16 users (g = max(2 sqrt 16, 1, 4) = 8) whose encodings
// g (v + 1) have fractional parts near 0 and 1, and negative entries.
var vecUsers = func() []vecUser {
	var us []vecUser
	for i := 0; i < 16; i++ {
		x := -1 + 2*float64(i)/15 // -1 .. 1
		y := []float64{0, 1, 0.0001, 0.9999, 0.5, 0.12345}[i%6]
		us = append(us, vecUser{x, y})
	}
	return us
}()

// vecNode runs one P_Vec node of vecUsers through the streaming protocol
// (vecSum, as a run uses it) with the trial's own streams and returns the
// decoded Gram and bias entries.
func vecNode(r accountant.Request, sigma float64, trial int) (gram, bias float64, node accountant.VecSumNode) {
	return vecNodeWith(r, sigma, trial, false)
}

// vecNodeWith is vecNode with the noise bits from the exact sampler
// (noise "discrete") or gonum's.
func vecNodeWith(r accountant.Request, sigma float64, trial int, exact bool) (gram, bias float64, node accountant.VecSumNode) {
	key := rng.NewKey("vecsum-test", uint64(trial))
	v := newVecSum(r, sigma, 1, 1, rng.Source(key, "noise"))
	v.exact = exact
	src := bitSource{r: rng.Source(key, "rounding")}
	for _, u := range vecUsers {
		v.encode([]float64{u.x}, u.y, &src)
	}
	w, b := make([]float64, 1), make([]float64, 1)
	up := make([]bool, r.M)
	all(up, true)
	v.publish(up, make([]*batchStats, r.M), w, b, func(int, string, []float64) {})
	return w[0], b[0], v.nodes[0]
}

// vecRequest is a one-node P_Vec request: n = B M = 16 users, d = 1.
func vecRequest(preset string) accountant.Request {
	return accountant.Request{Preset: preset, Model: accountant.ModelSDPVec, Eps: 1, Delta: 0.1, M: 4, T: 4, B: 4, D: 1}
}

// vecMoments are E[z] and Var(z) of privacy.md 3.6 for one stream:
// E = sum v - p (B - Draws) n / g (the reference code's decoding bias) and
// Var = (1/g)^2 [sum f (1-f) + n Draws p (1-p)], f = frac(g (v+1)).
func vecMoments(vals []float64, nd accountant.VecSumNode) (mean, variance float64) {
	p := accountant.VecSumP
	var sf float64
	for _, v := range vals {
		a := nd.G * (v + 1)
		f := a - math.Floor(a)
		mean += v
		sf += f * (1 - f)
	}
	n := float64(nd.N)
	mean -= p * (nd.B - float64(nd.Draws)) * n / nd.G
	variance = (sf + n*float64(nd.Draws)*p*(1-p)) / (nd.G * nd.G)
	return mean, variance
}

// TestVecSumMoments is privacy.md T11's moment check on the streaming
// protocol: over 10^4 trials of one node (16 users, negative entries,
// fractional parts near 0 and 1) the decoded entries have the mean and
// variance of privacy.md 3.6, under exact (integer b) and reference-code
// (floor(b) drawn, real b decoded: a small bias, included in E), the
// noise bits from gonum's sampler and (exact preset) from the exact one
// of noise "discrete". z-tests at |z| < 4.5 (false-alarm rate about 7e-6
// each); the variance within 5 standard errors.
func TestVecSumMoments(t *testing.T) {
	const trials = 10000
	for _, c := range []struct {
		preset string
		exact  bool
	}{{accountant.PresetExact, false}, {accountant.PresetReferenceCode, false}, {accountant.PresetExact, true}} {
		preset := c.preset
		if c.exact {
			preset += " (exact sampler)"
		}
		r := vecRequest(c.preset)
		sigma := 0.7
		var nd accountant.VecSumNode
		gs, bs := make([]float64, trials), make([]float64, trials)
		for k := range gs {
			gs[k], bs[k], nd = vecNodeWith(r, sigma, k, c.exact)
		}
		if nd.N != 16 || nd.G != 8 {
			t.Fatalf("node %+v, want n 16, g 8", nd)
		}
		var gv, bv []float64
		for _, u := range vecUsers {
			gv = append(gv, u.x*u.x)
			bv = append(bv, u.x*u.y)
		}
		for _, c := range []struct {
			name string
			z    []float64
			vals []float64
		}{{"gram", gs, gv}, {"bias", bs, bv}} {
			wantM, wantV := vecMoments(c.vals, nd)
			m, v := stat.MeanVariance(c.z, nil)
			z := (m - wantM) / math.Sqrt(wantV/trials)
			sev := wantV * math.Sqrt(2.0/(trials-1))
			t.Logf("%s %s: mean %.5g (want %.5g, z %.2f), variance %.5g (want %.5g, %.2f SE); b %.4g, draws %d", preset, c.name, m, wantM, z, v, wantV, (v-wantV)/sev, nd.B, nd.Draws)
			if math.Abs(z) > 4.5 {
				t.Errorf("%s %s: mean %v, want %v (z = %.2f)", preset, c.name, m, wantM, z)
			}
			if math.Abs(v-wantV) > 5*sev {
				t.Errorf("%s %s: variance %v, want %v", preset, c.name, v, wantV)
			}
		}
	}
}

// messageLevel is P_Vec simulated message by message: every user sends,
// per entry, her encoding floor(g w) + Bernoulli(frac(g w)) and Draws
// noise bits Bernoulli(p); the shuffler adds everything; the analyser
// decodes. mutate changes one step (the mutation controls).
func messageLevel(vals []float64, nd accountant.VecSumNode, r *rand.Rand, mutate string) float64 {
	p := accountant.VecSumP
	draws := nd.Draws
	switch mutate {
	case "b+1":
		draws++
	case "p swapped":
		p = 1 - p
	}
	var sum float64
	for _, v := range vals {
		w := v + 1
		if mutate == "no +L shift" {
			w = v
		}
		a := nd.G * w
		fl := math.Floor(a)
		if mutate == "truncation" {
			fl = math.Trunc(a)
		}
		sum += fl
		if r.Float64() < a-fl {
			sum++
		}
		for j := int64(0); j < draws; j++ {
			if r.Float64() < p {
				sum++
			}
		}
	}
	n := float64(nd.N)
	shift := accountant.VecSumP * nd.B * n
	if mutate == "no p b n shift" {
		shift = 0
	}
	return (sum-shift)/nd.G - n
}

// TestVecSumMessageLevel is privacy.md T11's distribution check: the
// streaming simulation (one Binomial(n Draws, p) for all noise bits,
// encodings summed as users arrive) and a message-level simulation of
// P_Vec agree in distribution (two-sample Kolmogorov-Smirnov, 4000
// samples each, alpha 1e-4: the statistic must stay below 0.0489; the
// test is conservative for discrete data); every mutation of the
// message-level protocol (b off by one, p swapped, decoding without the
// p b n shift, a missing +L shift) is caught, with negative entries in
// the data (a truncation mutation: int() instead of floor on the
// negative encodings of unclamped data, with the +L shift missing).
func TestVecSumMessageLevel(t *testing.T) {
	const n = 4000
	r := vecRequest(accountant.PresetExact)
	sigma := 0.7
	var bias []float64
	var nd accountant.VecSumNode
	stream := make([]float64, n)
	for k := range stream {
		_, stream[k], nd = vecNode(r, sigma, 100000+k)
	}
	for _, u := range vecUsers {
		bias = append(bias, u.x*u.y)
	}
	sort.Float64s(stream)
	crit := math.Sqrt(-math.Log(1e-4/2)/2) * math.Sqrt(2.0/n)
	for _, mut := range []string{"", "b+1", "p swapped", "no p b n shift", "no +L shift", "truncation"} {
		rr := rng.New(rng.NewKey("vecsum-message-level", 1), mut)
		ml := make([]float64, n)
		for k := range ml {
			vals := bias
			if mut == "truncation" {
				vals = make([]float64, len(bias))
				for i, v := range bias {
					vals[i] = v - 1 // unclamped: w < 0 for half the users
				}
				// Both sides see the same shifted data; only the
				// message-level encoder truncates (and lacks +L).
				ml[k] = messageLevel(vals, nd, rr, "truncation")
				continue
			}
			ml[k] = messageLevel(vals, nd, rr, mut)
		}
		ref := stream
		if mut == "truncation" {
			// Reference: the correct encoding of the shifted data
			// without the +L shift is the stream shifted by -n, whose
			// floor differs from truncation on negative encodings.
			ref = make([]float64, n)
			rc := rng.New(rng.NewKey("vecsum-message-level", 2))
			for k := range ref {
				vals := make([]float64, len(bias))
				for i, v := range bias {
					vals[i] = v - 1
				}
				ref[k] = messageLevel(vals, nd, rc, "no +L shift")
			}
			sort.Float64s(ref)
		}
		sort.Float64s(ml)
		ks := stat.KolmogorovSmirnov(ref, nil, ml, nil)
		t.Logf("%-15q KS statistic %.4f (critical %.4f)", mut, ks, crit)
		if mut == "" && ks > crit {
			t.Errorf("streaming and message-level P_Vec differ: KS %.4f > %.4f", ks, crit)
		}
		if mut != "" && ks <= crit {
			t.Errorf("mutation %q not caught: KS %.4f <= %.4f", mut, ks, crit)
		}
	}
}

// TestVecSumRun: sdp-vec through the registry. The nodes of level l hold
// 2^l B M users with P_Vec's parameters; the protocol's state does not
// grow with the users (O(kappa d^2)); a run under exact is certified at
// its target with the lazy learner and recorded not certified under
// reference-code (unclamped, eager); runs are reproducible; the
// messages sent at a synchronisation are one per user and entry.
func TestVecSumRun(t *testing.T) {
	s := Spec{Algorithm: AlgSDPVec, Eps: 1, Delta: 0.1, M: 8, T: 200, B: 5, Seed: 3, Lazy: true,
		Synthetic: SyntheticSpec{D: 4, K: 10, NoiseVar: 0.25}}
	s = s.WithDefaults()
	if s.Relation != accountant.ReplaceOne || s.Protocol != ProtocolP {
		t.Errorf("defaults: relation %q protocol %q", s.Relation, s.Protocol)
	}
	cal, err := calibration(s)
	if err != nil {
		t.Fatal(err)
	}
	perSync := map[int]int{}
	var sm *sim
	sm, err = newSim(s, cal, hooks{sent: func(k, i int, stream string, msg []float64) { perSync[k] += len(msg) }})
	if err != nil {
		t.Fatal(err)
	}
	v := sm.protocol.(*vecSum)
	for l, nd := range v.nodes {
		if nd.N != (1<<l)*5*8 || nd.G != math.Max(2*math.Sqrt(float64(nd.N)), 4) {
			t.Errorf("level %d: node %+v", l, nd)
		}
	}
	state := len(v.sum) * len(v.sum[0])
	for tt := 1; tt <= s.T; tt++ {
		sm.round(tt)
	}
	if len(v.sum)*len(v.sum[0]) != state || len(v.sum[0]) != 10+4 {
		t.Errorf("protocol state grew: %d entries per level", len(v.sum[0]))
	}
	// Synchronisation 4 releases the level-2 node: 4 B users per silo,
	// each sending 10 + 4 entries.
	if got, want := perSync[4], 8*4*5*14; got != want {
		t.Errorf("sync 4 sent %d scalars, want %d", got, want)
	}
	res, err := Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Run(context.Background(), s)
	last, last2 := res.Curve[len(res.Curve)-1], again.Curve[len(again.Curve)-1]
	if last != last2 {
		t.Error("sdp-vec run not reproducible")
	}
	if res.Calibration.DeliveredEps > 1 || res.Calibration.DeliveredEps <= 0 {
		t.Errorf("exact sdp-vec delivered eps %v, want <= 1", res.Calibration.DeliveredEps)
	}
	ref := s
	ref.Preset, ref.Lazy, ref.NoClip = accountant.PresetReferenceCode, false, true
	rr, err := Run(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsInf(rr.Calibration.DeliveredEps, 1) || !strings.HasPrefix(rr.Calibration.Note, "NOT CERTIFIED") {
		t.Errorf("reference-code sdp-vec: delivered %v, note %q", rr.Calibration.DeliveredEps, rr.Calibration.Note)
	}
	bad := s
	bad.T = 203
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "multiple of B") {
		t.Errorf("T not a multiple of B: %v", err)
	}
	bad = s
	bad.Relation = accountant.AddRemove
	if err := bad.Validate(); err == nil {
		t.Error("add-remove accepted for sdp-vec")
	}
}

// TestVecSumExactSampler: the exact sampler vecSum uses under noise
// "discrete" is dpnoise.BinomialQuarter, which is Binomial(n, 1/4): it is
// P_Vec's only while VecSumP is 1/4.
func TestVecSumExactSampler(t *testing.T) {
	if accountant.VecSumP != 0.25 {
		t.Fatalf("VecSumP = %v: the exact sampler draws Binomial(n, 1/4)", accountant.VecSumP)
	}
}
