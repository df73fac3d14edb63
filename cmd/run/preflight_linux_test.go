//go:build linux

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
