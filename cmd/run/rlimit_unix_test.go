//go:build linux

package main

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestR3_K6AddressSpaceLimit (attack round 3, case K6): under `ulimit -v`
// the pre-flight compared its estimate with MemAvailable only, started a
// run of 3.0 GiB under a 2.9-GiB address-space limit, and the run died
// with "fatal error: out of memory". The soft RLIMIT_AS is lowered here
// (and restored) to 64 MiB above this process's virtual size: the
// available memory is then at most 64 MiB, named as the address-space
// limit, and a 1-GiB estimate is refused.
func TestR3_K6AddressSpaceLimit(t *testing.T) {
	if _, _, ok := availableMemory(); !ok {
		t.Skip("no /proc/meminfo here: the pre-flight checks nothing")
	}
	size, ok := vmSize("/proc/self/status")
	if !ok {
		t.Skip("no VmSize in /proc/self/status")
	}
	var saved unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_AS, &saved); err != nil {
		t.Fatal(err)
	}
	// Lower only the soft limit: it can be raised back to the hard one.
	lowered := saved
	lowered.Cur = uint64(size) + 64<<20
	if saved.Cur != unix.RLIM_INFINITY && saved.Cur < lowered.Cur {
		t.Skipf("the limit is already %d bytes", saved.Cur)
	}
	if err := unix.Setrlimit(unix.RLIMIT_AS, &lowered); err != nil {
		t.Skipf("cannot lower RLIMIT_AS: %v", err)
	}
	avail, source, ok := availableMemory()
	err := memoryFlag{}.check("run sweep", 1<<30)
	if err := unix.Setrlimit(unix.RLIMIT_AS, &saved); err != nil {
		t.Fatalf("restore RLIMIT_AS: %v", err)
	}
	if !ok || avail > 64<<20 || !strings.Contains(source, "RLIMIT_AS") {
		t.Errorf("under a limit 64 MiB above the virtual size: available %d (%s, %v)", avail, source, ok)
	}
	wantErr(t, "a 1-GiB estimate", err, "estimated peak memory", "ulimit -v")
	// Without the limit, the headroom is not the address space's.
	if _, source, _ := availableMemory(); saved.Cur == unix.RLIM_INFINITY && strings.Contains(source, "RLIMIT_AS") {
		t.Errorf("no limit, but the source is %q", source)
	}
}
