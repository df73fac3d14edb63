package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// k1TOML is attack round 3's K1 (w/bM.toml): one bco run of M = 1e5
// silos at d = 1e5, hundreds of GiB of state.
const k1TOML = `name = "bM"
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

// TestK1PreflightBeforeAnyAllocation (attack round 3, K1): without --rate,
// `run sweep` of a sweep that cannot fit in memory is refused by the
// memory pre-flight from the cost model before any pilot allocates a run's
// state, and `run plan` prints its estimate without timing a class whose
// one run exceeds the pilots' bound. Both run under an address-space
// limit of 8 GiB above the test's own, as the attack did (ulimit -v), so
// that a regression dies with "out of memory" in this test instead of
// allocating the machine's memory; the heap grows by less than 256 MiB.
// Mutation control (run 2026-11-29): MeasureRates without its memory bound
// (PilotMaxBytes) makes the test binary die with "fatal error: out of
// memory" in bco.newProblem, the pilot allocating the run's state.
func TestK1PreflightBeforeAnyAllocation(t *testing.T) {
	if _, _, ok := availableMemory(); !ok {
		t.Skip("no /proc/meminfo here: the pre-flight checks nothing")
	}
	var saved syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &saved); err != nil {
		t.Skip(err)
	}
	var vm int64
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			var kb int64
			if n, _ := fmt.Sscanf(line, "VmSize: %d kB", &kb); n == 1 {
				vm = kb << 10
			}
		}
	}
	if vm == 0 {
		t.Skip("no VmSize in /proc/self/status")
	}
	limit := saved
	limit.Cur = uint64(vm) + 8<<30
	if limit.Cur > saved.Max {
		t.Skip("the hard address-space limit is below the test's bound")
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &limit); err != nil {
		t.Skip(err)
	}
	defer syscall.Setrlimit(syscall.RLIMIT_AS, &saved)

	dir := t.TempDir()
	sweep := writeFile(t, filepath.Join(dir, "bM.toml"), k1TOML)
	out := filepath.Join(dir, "r_bM")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := runCLI(t, "sweep", sweep, "--out", out, "--no-plot", "--remeasure")
	wantErr(t, "run sweep", err, "estimated peak memory", "GiB", "refusing to start")
	if _, serr := os.Stat(out); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("run sweep wrote %s before refusing", out)
	}
	plan, err := runCLI(t, "plan", sweep, "--remeasure")
	if err != nil || !strings.Contains(plan, "not timed") || !strings.Contains(plan, "coordinate operations") {
		t.Errorf("run plan: %v\n%s", err, plan)
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 256<<20 {
		t.Errorf("refusing and planning allocated %d MiB", grew>>20)
	}
	t.Logf("refused and planned in %v", time.Since(start))
}

// u2TOML is a mab sweep over T (attack round 3, U2 and U13): the
// published script's noise (reference_code = 1) is not certified.
const u2TOML = `name = "mab over T"
seeds = 2
[[instance]]
name = "easy"
kind = "mab"
gap = 0.5
arms = 4
[[algorithm]]
name = "se"
[[algorithm]]
name = "dist-dp-se"
reference_code = 1
[grid]
eps = [1]
T = [100, 1000]
`

// TestU2U13TablesOfOtherFamilies (attack round 3, U2, U13): `run table`
// without --at shows each configuration at its own last round (a sweep
// over T has several), and the table's and the summary's footers speak
// of the mab family's regret and reasons, not of silos, clamps or eager
// learners. Mutation controls (run 2026-11-29): the table's last round
// taken from the first configuration (the old series[0]) shows "-" for T =
// 1000 and fails; the linear footer fails.
func TestU2U13TablesOfOtherFamilies(t *testing.T) {
	dir := t.TempDir()
	sweep := writeFile(t, filepath.Join(dir, "mab.toml"), u2TOML)
	out := filepath.Join(dir, "r")
	sum, err := runCLI(t, "sweep", sweep, "--out", out, "--no-plot", "--rate", "1e9")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := runCLI(t, "table", out)
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(tab, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(line, "SE") && !strings.HasPrefix(line, "Dist-DP-SE") {
			continue
		}
		rows++
		wantT := "100"
		if strings.Contains(line, "T=1000") {
			wantT = "1000"
		}
		if !strings.Contains(line, "  "+wantT+"  ") || strings.Contains(line, " - ") {
			t.Errorf("row not at its own last round %s: %q", wantT, line)
		}
	}
	if rows != 4 {
		t.Errorf("%d rows, want 4:\n%s", rows, tab)
	}
	for what, text := range map[string]string{"summary": sum, "table": tab} {
		if strings.Contains(text, "silos") || strings.Contains(text, "clamped") || strings.Contains(text, "eager") {
			t.Errorf("%s speaks of the linear family:\n%s", what, text)
		}
		if !strings.Contains(text, "of the users, one a round") {
			t.Errorf("%s does not say whose regret:\n%s", what, text)
		}
	}
	if !strings.Contains(sum, "NOT CERTIFIED: the guarantee does not cover these runs (the published script's noise (reference_code = 1)") {
		t.Errorf("summary's reason:\n%s", sum)
	}
}
