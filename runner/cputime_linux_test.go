//go:build linux

package runner

import (
	"runtime"
	"testing"
)

// TestThreadCPU: on Linux the pilots read the thread's CPU time, which
// grows while the thread computes. Mutation control: threadCPU's error
// test negated (the pilots falling back to wall time) fails.
func TestThreadCPU(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, ok := threadCPU()
	if !ok {
		t.Fatal("CLOCK_THREAD_CPUTIME_ID not read")
	}
	x := 1.0
	for i := 0; i < 1_000_000; i++ {
		x = x*1.0000001 + 1e-9
	}
	c1, ok := threadCPU()
	if !ok || !(c1 > c0) || x == 0 {
		t.Errorf("thread CPU time %v then %v (%v)", c0, c1, ok)
	}
}
