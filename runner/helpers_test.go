package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/federate/accountant"
	"github.com/fedbandit/fedbandit/internal/rng"
	"github.com/fedbandit/fedbandit/ltr"
	"github.com/fedbandit/fedbandit/registry"
)

// tinyTOML is a 12-run synthetic sweep (FedLinUCB once per seed, LDP at two
// eps, SDP-amp at one) used with the fake simulator.
const tinyTOML = `
name = "tiny"
seeds = 3

[[instance]]
name = "syn"
kind = "synthetic"
d = 4
k = 10
noise_var = 0.25
seed = 7

[[algorithm]]
name = "fedlinucb"

[[algorithm]]
name = "ldp"

[[algorithm]]
name = "sdp-amp"
eps = [0.5]

[grid]
eps = [1, 5]
delta = [0.1]
M = [5]
B = [10]
T = [100]
`

// tinyRuns is the number of distinct runs of tinyTOML.
const tinyRuns = 3 * (1 + 2 + 1)

func mustPlan(t testing.TB, toml string) *Plan {
	t.Helper()
	c, err := ParseConfig([]byte(toml), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(c, registry.Env{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeSim is a deterministic stand-in for federate.Run: a curve that is a
// pure function of the spec (through the rng package), a fixed wall time,
// and optional failures for chosen seeds.
type fakeSim struct {
	failSeed  uint64 // returns an error for this run seed (0: none)
	panicSeed uint64 // panics for this run seed
	nanSeed   uint64 // returns a NaN regret for this run seed
	blockSeed uint64 // blocks until the context is cancelled for this run seed
	delay     time.Duration
}

// run fakes a run of the linear family (its compiled federate.Spec).
func (f fakeSim) run(ctx context.Context, rs registry.RunSpec) (*core.Result, error) {
	s, ok := registry.NativeLinear(rs)
	if !ok {
		return nil, fmt.Errorf("fake: %s is not a linear run", rs.Algorithm)
	}
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-ctx.Done():
			return nil, fmt.Errorf("fake: %w", ctx.Err())
		}
	}
	switch s.Seed {
	case f.blockSeed:
		<-ctx.Done()
		return nil, fmt.Errorf("fake: cancelled: %w", ctx.Err())
	case f.failSeed:
		return nil, fmt.Errorf("fake failure for seed %d", s.Seed)
	case f.panicSeed:
		panic(fmt.Sprintf("fake panic for seed %d", s.Seed))
	}
	key, _ := registry.LinearRunID(s, "fake")
	var k rng.Key
	copy(k[:], key)
	r := rng.New(k, "fake")
	res := &federate.Result{
		Calibration: accountant.Calibration{Sigma: s.Eps * 2, Lambda: float64(s.M), Kappa: 3, DeliveredEps: s.Eps, DeliveredDelta: s.Delta},
		BetaT:       1.5,
	}
	res.Syncs, res.Scalars, res.WallSeconds = s.T/s.B, int64(s.M*s.T), 0.25
	var p, q float64
	for t := 1; t <= s.T; t++ {
		p += r.Float64()
		q += r.Float64() - 0.2
		if t%s.Every == 0 || t == s.T {
			res.Curve = append(res.Curve, core.Checkpoint{Round: t, Pseudo: p, Realised: q, Syncs: t / s.B})
		}
	}
	if s.Seed == f.nanSeed {
		res.Curve[1].Pseudo = math.NaN()
	}
	for i := 0; i < s.M; i++ {
		res.SiloPseudo = append(res.SiloPseudo, p/float64(s.M))
		res.SiloRealised = append(res.SiloRealised, q/float64(s.M))
	}
	out := res.Result
	out.Detail = res
	out.Privacy = fakeClaim(s)
	return &out, nil
}

// fakeClaim is the privacy claim of a fake run: a private algorithm's
// target and its delivered guarantee are the spec's (eps, delta), as the
// calibration above says, certified, so that every row the fake writes
// satisfies the schema's rules (a private row records its target).
func fakeClaim(s federate.Spec) core.Privacy {
	alg, err := federate.LookupAlgorithm(s.Algorithm)
	if err != nil || !alg.Private() {
		return core.Privacy{Trust: core.TrustNone}
	}
	return core.Privacy{Trust: alg.Trust, Mechanism: alg.Mechanism, Sampler: core.SamplerGaussian, Relation: s.Relation,
		TargetEps: s.Eps, TargetDelta: s.Delta, DeliveredEps: s.Eps, DeliveredDelta: s.Delta, Certified: true,
		Note: "fake simulator: the claim restates the target"}
}

// dirHashes maps every regular file under dir (relative path) to its
// SHA-256, skipping the lock file.
func dirHashes(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == ".lock" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		s := sha256.Sum256(b)
		out[rel] = hex.EncodeToString(s[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffHashes(a, b map[string]string) string {
	var keys []string
	seen := map[string]bool{}
	for k := range a {
		keys, seen[k] = append(keys, k), true
	}
	for k := range b {
		if !seen[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var d []string
	for _, k := range keys {
		if a[k] != b[k] {
			d = append(d, fmt.Sprintf("%s: %.8s vs %.8s", k, a[k], b[k]))
		}
	}
	return strings.Join(d, "\n")
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// sweepInto runs plan into dir with the fake simulator.
func sweepInto(t testing.TB, plan *Plan, dir string, workers int, sim fakeSim, hook func(int, string) error) (*Report, error) {
	t.Helper()
	s := &Sweep{Plan: plan, Out: dir, Workers: workers, Simulate: sim.run, Log: quietLog(), LogEvery: time.Hour, AfterPublish: hook}
	return s.Execute(context.Background())
}

// BuildLTRFunc builds a learning-to-rank instance (registry.Env.BuildLTR).
type BuildLTRFunc func(ltr.Options) (*federate.LTRData, error)

// native is the compiled federate spec of a linear run.
func native(r *Run) federate.Spec {
	s, _ := registry.NativeLinear(r.Spec)
	return s
}

// linearRun is a run of the linear family's compiled spec s on in.
func linearRun(s federate.Spec, in *Instance) *Run {
	rs := registry.RunSpec{Algorithm: s.Algorithm, Seed: s.Seed, M: s.M, T: s.T, B: s.B, Every: s.Every,
		Eps: s.Eps, Delta: s.Delta, Params: s.Params, Native: s}
	if in.loaded == nil {
		in.loaded = &registry.Loaded{Dim: in.Dim, Actions: in.Actions, Hash: in.Hash}
	}
	rs.Loaded = in.loaded
	return &Run{Spec: rs, Instance: in}
}

// siloRound is a run's figure in rates (seconds per unit of work) per
// silo-round of the run.
func siloRound(rates map[string]float64, r *Run) float64 {
	c := r.Cost()
	return rates[c.Class] * c.Work / (float64(r.Silos()) * float64(r.Rounds()))
}
