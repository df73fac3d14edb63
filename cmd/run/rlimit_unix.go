//go:build unix

package main

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// addressSpaceHeadroom is what the address-space limit (ulimit -v,
// RLIMIT_AS) leaves this process: the soft limit minus its virtual size
// (VmSize of /proc/self/status). ok is false without a limit, or where
// either cannot be read.
func addressSpaceHeadroom() (int64, bool) {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_AS, &rl); err != nil || rl.Cur == unix.RLIM_INFINITY || rl.Cur > 1<<62 {
		return 0, false
	}
	size, ok := vmSize("/proc/self/status")
	if !ok {
		return 0, false
	}
	return max(0, int64(rl.Cur)-size), true
}

// vmSize reads the VmSize line (kB) of a /proc/PID/status file.
func vmSize(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmSize:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err == nil && kb >= 0
		}
	}
	return 0, false
}
