//go:build linux

package runner

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU returns the CPU time the calling OS thread has used (the
// caller locks its goroutine to the thread), to the nanosecond
// (CLOCK_THREAD_CPUTIME_ID): the pilots' measure, which other processes
// sharing the cores do not inflate as they do wall time.
func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
