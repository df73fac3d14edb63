package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/registry"
)

// scriptClock is a fake CPU-time clock for the pilots (Plan.cpu): its
// i-th reading is the sum of its first i+1 ticks (1 ns each once they run
// out), so a test that knows the order of the readings sets every timed
// interval.
type scriptClock struct {
	mu    sync.Mutex
	t     time.Duration
	ticks []time.Duration
	reads int
}

func (c *scriptClock) read() (time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	step := time.Nanosecond
	if c.reads < len(c.ticks) {
		step = c.ticks[c.reads]
	}
	c.reads++
	c.t += step
	return c.t, true
}

const ms = time.Millisecond

// oneClassTOML is 2 runs (seeds) of one cost class: d = 4, K = 10, M = 5,
// T = 100, B = 10; its pilot is the whole run (100 rounds).
const oneClassTOML = `
name = "one"
seeds = 2

[[instance]]
name = "syn"
kind = "synthetic"
d = 4
k = 10
noise_var = 0.25
seed = 7

[[algorithm]]
name = "fedlinucb"

[grid]
eps = [1]
delta = [0.1]
M = [5]
B = [10]
T = [100]
`

// TestPilotBestOfTwo: a class is timed twice on the pilot's thread clock
// (two readings a pilot) and keeps the faster, whichever comes first,
// divided by the pilot's M T (5 x 100 silo-rounds); the figure is cached
// and read back. Mutation controls: MeasureRates' `try == 0 || d < best`
// with either test negated, `best / (M * T)` with either operator
// changed, pilotClock's `c1 - c0` as `+` fail; `d < best` as `d <= best`
// is equivalent (it assigns best the value it has).
func TestPilotBestOfTwo(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "rates.json")
	for _, c := range []struct {
		name  string
		ticks []time.Duration
		best  time.Duration
	}{
		{"first faster", []time.Duration{time.Second, 2 * ms, time.Second, 3 * ms}, 2 * ms},
		{"second faster", []time.Duration{time.Second, 7 * ms, time.Second, 5 * ms}, 5 * ms},
	} {
		plan := mustPlan(t, oneClassTOML)
		clk := &scriptClock{ticks: c.ticks}
		plan.cpu = clk.read
		pilots := 0
		sim := func(ctx context.Context, rs registry.RunSpec) (*core.Result, error) {
			s := native(&Run{Spec: rs})
			pilots++
			if s.T != 100 || s.M != 5 {
				t.Errorf("pilot M = %d T = %d, want 5 and 100", s.M, s.T)
			}
			return fakeSim{}.run(ctx, rs)
		}
		rt, err := plan.MeasureRates(context.Background(), nil, cache, true, sim)
		if err != nil {
			t.Fatal(err)
		}
		want := c.best.Seconds() / 500
		if got := siloRound(rt.PerUnit, &plan.Runs[0]); got != want || pilots != 2 || clk.reads != 4 || rt.Measured != 1 {
			t.Errorf("%s: %v s per silo-round from %d pilots and %d readings (measured %d), want %v from 2 and 4",
				c.name, got, pilots, clk.reads, rt.Measured, want)
		}
		rt, err = mustPlan(t, oneClassTOML).MeasureRates(context.Background(), nil, cache, false, sim)
		if err != nil || rt.Cached != 1 || rt.Measured != 0 || !near(siloRound(rt.PerUnit, &plan.Runs[0]), want) {
			t.Errorf("%s: cached: %v, %+v", c.name, err, rt)
		}
	}
}

// TestPilotWallFallback: where the thread's CPU time is not reported,
// a pilot is timed by the wall clock. Mutation control: the wall
// fallback's t0 dropped fails.
func TestPilotWallFallback(t *testing.T) {
	plan := mustPlan(t, oneClassTOML)
	plan.cpu = func() (time.Duration, bool) { return 0, false }
	var mu sync.Mutex
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	reads := 0
	plan.now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		reads++
		return t0.Add(time.Duration(reads*reads) * ms) // 1, 4, 9, 16, 25, 36 ms
	}
	rt, err := plan.MeasureRates(context.Background(), nil, "", false, fakeSim{}.run)
	if err != nil {
		t.Fatal(err)
	}
	// Readings: 1 the start; pilots at 4 -> 9 (5 ms) and 16 -> 25 (9 ms);
	// 36 the end.
	if got, want := siloRound(rt.PerUnit, &plan.Runs[0]), 0.005/500; got != want || rt.Pilot != 35*ms {
		t.Errorf("%v s per silo-round over %v, want %v over 35ms", got, rt.Pilot, want)
	}
}

// TestPilotShared pins the pilot of a class sharing its stream (estTOML:
// the pilot is 90 rounds of M = 2, 180 silo-rounds, a T of its own):
// the preparation (2 readings around the feed's construction), then two
// passes (a reading to check the clock, 2 around the window's advance, 2
// around the run), keeping the pass of the least total, the first on a
// tie. Mutation controls: measureShared's pass loop `try < 2` (both
// mutants) and `try++`, `try > 0` negated, `try == 0 || st+rn <
// sp.stream+sp.sim` with any operator changed (the tie kills `<=`), and
// the divisions by M T changed fail. `try > 0` as `>=` is equivalent
// (pass 0 then builds its own feed instead of the one whose construction
// was timed: the same stream, only an untimed construction more).
func TestPilotShared(t *testing.T) {
	for _, c := range []struct {
		name                  string
		ticks                 []time.Duration
		prep, stream, simTime time.Duration
	}{
		{"first faster", []time.Duration{time.Second, 3 * ms, time.Second, time.Second, 2 * ms, time.Second, 4 * ms,
			time.Second, time.Second, 3 * ms, time.Second, 5 * ms}, 3 * ms, 2 * ms, 4 * ms},
		{"tie", []time.Duration{time.Second, 3 * ms, time.Second, time.Second, 2 * ms, time.Second, 4 * ms,
			time.Second, time.Second, 3 * ms, time.Second, 3 * ms}, 3 * ms, 2 * ms, 4 * ms},
		{"second faster", []time.Duration{time.Second, 1 * ms, time.Second, time.Second, 2 * ms, time.Second, 4 * ms,
			time.Second, time.Second, 4 * ms, time.Second, 1 * ms}, 1 * ms, 4 * ms, 1 * ms},
	} {
		plan := mustPlan(t, estTOML)
		clk := &scriptClock{ticks: c.ticks}
		plan.cpu = clk.read
		var specs []federate.Spec
		sim := func(ctx context.Context, rs registry.RunSpec) (*core.Result, error) {
			s := native(&Run{Spec: rs})
			specs = append(specs, s)
			return fakeSim{}.run(ctx, rs)
		}
		rt, err := plan.MeasureRates(context.Background(), nil, "", false, sim)
		if err != nil {
			t.Fatal(err)
		}
		if len(specs) != 2 || specs[0].T != 90 || specs[0].Every != 90 || specs[0].B != 10 || clk.reads != 12 {
			t.Fatalf("%s: %d pilot passes, %d readings", c.name, len(specs), clk.reads)
		}
		r := &plan.Runs[0]
		sc := StreamClass(r)
		for _, v := range []struct {
			what      string
			got, want float64
		}{
			{"run", siloRound(rt.PerUnit, r), (c.stream + c.simTime).Seconds() / 180},
			{"simulation", siloRound(rt.SimPerUnit, r), c.simTime.Seconds() / 180},
			{"stream", rt.StreamPerSiloRound[sc], c.stream.Seconds() / 180},
			{"preparation", rt.PrepPerSiloRound[sc], c.prep.Seconds() / 180},
		} {
			if !near(v.got, v.want) {
				t.Errorf("%s: %s %v s per silo-round, want %v", c.name, v.what, v.got, v.want)
			}
		}
	}
}

// TestPilotSharedCache: the four figures of a shared class go to the
// cache and come back from it, counted as measured then cached. Mutation
// controls: the shared branch's `rt.Cached++` and `rt.Measured++` as `--`
// and `sp.sim + sp.stream` as `-` fail.
func TestPilotSharedCache(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "rates.json")
	plan := mustPlan(t, estTOML)
	plan.cpu = (&scriptClock{ticks: []time.Duration{time.Second, 3 * ms, time.Second, time.Second, 2 * ms, time.Second, 4 * ms,
		time.Second, time.Second, 3 * ms, time.Second, 5 * ms}}).read
	rt, err := plan.MeasureRates(context.Background(), nil, cache, false, fakeSim{}.run)
	if err != nil || rt.Measured != 1 || rt.Cached != 0 {
		t.Fatalf("%v: measured %d, cached %d", err, rt.Measured, rt.Cached)
	}
	again, err := mustPlan(t, estTOML).MeasureRates(context.Background(), nil, cache, false, func(context.Context, registry.RunSpec) (*core.Result, error) {
		return nil, errors.New("timed again")
	})
	if err != nil || again.Measured != 0 || again.Cached != 1 {
		t.Fatalf("%v: measured %d, cached %d", err, again.Measured, again.Cached)
	}
	r := &plan.Runs[0]
	if want := (2*ms + 4*ms).Seconds() / 180; !near(siloRound(rt.PerUnit, r), want) || siloRound(again.PerUnit, r) != siloRound(rt.PerUnit, r) ||
		siloRound(again.SimPerUnit, r) != siloRound(rt.SimPerUnit, r) {
		t.Errorf("run %v then %v, simulation %v then %v; want %v", siloRound(rt.PerUnit, r), siloRound(again.PerUnit, r),
			siloRound(rt.SimPerUnit, r), siloRound(again.SimPerUnit, r), want)
	}
}

// TestPilotErrors: a failing pilot stops the measure with an error
// naming its group, for each kind of class. Mutation controls: the error
// tests of MeasureRates' shared and generic branches, of measureShared's
// preparation and pass, and of the family pilot's run negated
// fail.
func TestPilotErrors(t *testing.T) {
	fail := func(context.Context, registry.RunSpec) (*core.Result, error) { return nil, errors.New("pilot broke") }
	if _, err := mustPlan(t, estTOML).MeasureRates(context.Background(), nil, "", false, fail); err == nil || !strings.Contains(err.Error(), "timing pilot of") || !strings.Contains(err.Error(), "pilot broke") {
		t.Errorf("shared class: %v", err)
	}
	// A shared spec the feed refuses.
	bad := mustPlan(t, estTOML)
	s := native(&bad.Runs[0])
	s.Synthetic.NoiseVar = -1
	bad.Runs[0].Spec.Native = s
	if _, err := bad.MeasureRates(context.Background(), nil, "", false, fakeSim{}.run); err == nil || !strings.Contains(err.Error(), "timing pilot of") {
		t.Errorf("invalid shared spec: %v", err)
	}
	// Runs of another family whose pilots fail: an instance of another
	// family's type, a table its kind refuses.
	for _, g := range []registry.RunSpec{{Algorithm: "se", Instance: "mab", T: 10, Loaded: &registry.Loaded{Value: "x"}}, {Algorithm: "se", Instance: "mab", T: 10, Table: map[string]any{"gap": -1.0}}} {
		p := &Plan{Runs: []Run{{ID: "x", Group: "g", Spec: g, Instance: &Instance{}}}}
		if _, err := p.MeasureRates(context.Background(), nil, "", false, nil); err == nil || !strings.Contains(err.Error(), "timing pilot of g") {
			t.Errorf("%s: %v", g.Algorithm, err)
		}
	}
}

// TestPilotOtherFamily: another family's class is timed on its own NewRun,
// over its family's pilot (here the whole 1000 rounds: bco's pilot at d
// = 4 is capped by T), twice, the faster kept, per unit of work, counted
// as measured.
func TestPilotOtherFamily(t *testing.T) {
	plan := mustPlan(t, genericBCO)
	clk := &scriptClock{ticks: []time.Duration{time.Second, 4 * ms, time.Second, 5 * ms}}
	plan.cpu = clk.read
	p := &Plan{Runs: plan.Runs[:1], cpu: clk.read}
	rt, err := p.MeasureRates(context.Background(), nil, "", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := plan.Runs[0].Spec
	if g.T != 1000 {
		t.Fatalf("T = %d", g.T)
	}
	want := 0.004 / (float64(max(g.M, 1)) * 1000)
	if got := siloRound(rt.PerUnit, &plan.Runs[0]); got != want || clk.reads != 4 || rt.Measured != 1 || rt.Cached != 0 {
		t.Errorf("%v s per silo-round after %d readings (measured %d, cached %d), want %v after 4 (1, 0)", got, clk.reads, rt.Measured, rt.Cached, want)
	}
}

// TestRateCacheFile: the cache keeps positive figures of its own version
// only, and lives under the user's cache directory (none without one).
// Mutation controls: DefaultRateCache's error test negated and
// readRateCache's `v > 0` as `>=` fail.
func TestRateCacheFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "rates.json")
	os.WriteFile(p, []byte(`{"version": 3, "seconds_per_unit": {"a": 1.5, "zero": 0, "neg": -1}}`), 0o644)
	got, err := readRateCache(p)
	if err != nil || len(got) != 1 || got["a"] != 1.5 {
		t.Errorf("read %v, %v; want only a = 1.5", got, err)
	}
	os.WriteFile(p, []byte(`{"version": 2, "seconds_per_silo_round": {"a": 1.5}}`), 0o644)
	if got, err := readRateCache(p); err != nil || len(got) != 0 {
		t.Errorf("version 2: %v, %v", got, err)
	}
	if _, err := readRateCache(dir); err == nil {
		t.Error("a directory read as a cache")
	}
	t.Setenv("XDG_CACHE_HOME", dir)
	if got, want := DefaultRateCache(), filepath.Join(dir, "fedbandit", "rates.json"); got != want {
		t.Errorf("DefaultRateCache %q, want %q", got, want)
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	if got := DefaultRateCache(); got != "" {
		t.Errorf("no cache directory: %q", got)
	}
}

// TestMachineKeyParts: the CPU is cpuinfo's model name (the revision
// is internal/buildinfo's, tested there). Mutation controls: the open
// error test and the `== "model name"` test negated fail.
func TestMachineKeyParts(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cpuinfo")
	os.WriteFile(p, []byte("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7763 64-Core Processor\nflags\t\t: fpu\n"), 0o644)
	if got := cpuModel(p); got != "AMD EPYC 7763 64-Core Processor" {
		t.Errorf("cpuModel %q", got)
	}
	if got := cpuModel(p + ".missing"); got != "" {
		t.Errorf("no cpuinfo: %q", got)
	}
}

// TestPilotSharedOwnT: a shared class's pilot runs a T of its own, one
// batch less than the pilot's (estTOML: 100 rounds, 90), or one more when
// the pilot is a single batch (T = B = 10: 20 rounds). Mutation controls:
// streamcost.go's `s.T > s.B` as `>=` (a pilot of 0 rounds) and as `<=`
// fail.
func TestPilotSharedOwnT(t *testing.T) {
	for _, c := range []struct {
		from, to string
		want     int
	}{{"T = [100]", "T = [100]", 90}, {"T = [100]", "T = [10]", 20}} {
		plan := mustPlan(t, strings.Replace(estTOML, c.from, c.to, 1))
		plan.cpu = (&scriptClock{}).read
		var got []int
		sim := func(ctx context.Context, rs registry.RunSpec) (*core.Result, error) {
			s := native(&Run{Spec: rs})
			got = append(got, s.T)
			return fakeSim{}.run(ctx, rs)
		}
		if _, err := plan.MeasureRates(context.Background(), nil, "", false, sim); err != nil || len(got) != 2 || got[0] != c.want || got[1] != c.want {
			t.Errorf("%s: pilot T %v (%v), want %d twice", c.to, got, err, c.want)
		}
	}
}

// k1TOML is attack round 3's K1: a bco sweep whose one run holds M = 1e5
// silos of d = 1e5 (about 223 GiB by the bco cost model).
const k1TOML = `
name = "bM"
seeds = 1
[[instance]]
name = "i"
kind = "bco"
loss = "absolute"
d = 100000
[[algorithm]]
name = "one-point"
[grid]
T = [10]
M = [100000]
B = [5]
`

// TestPilotMemoryBound (K1): a class whose one run's state exceeds
// PilotMaxBytes is not timed (its runs take the cost model's time): the
// pilot, which would allocate that state, never runs. Mutation control
// (run 2026-11-29): MeasureRates without the `cost.Bytes > PilotMaxBytes`
// test calls the pilot and fails.
func TestPilotMemoryBound(t *testing.T) {
	plan := mustPlan(t, k1TOML)
	if b := RunBytes(&plan.Runs[0]); b <= PilotMaxBytes {
		t.Fatalf("run state %d bytes, want more than the pilots' %d", b, PilotMaxBytes)
	}
	sim := func(context.Context, registry.RunSpec) (*core.Result, error) {
		t.Fatal("a pilot ran")
		return nil, nil
	}
	rt, err := plan.MeasureRates(context.Background(), nil, "", true, sim)
	if err != nil || rt.Measured != 0 || rt.Unmeasured != 1 {
		t.Fatalf("%v: measured %d, unmeasured %d", err, rt.Measured, rt.Unmeasured)
	}
	if sec, ok := rt.RunSeconds(&plan.Runs[0]); ok || sec != 0 {
		t.Errorf("an untimed class has a measured time %v", sec)
	}
	if e := plan.Estimate(nil, 1, rt, 0); !(e.CPUSeconds > 0) || e.PeakBytes < RunBytes(&plan.Runs[0]) {
		t.Errorf("estimate %+v", e)
	}
}
