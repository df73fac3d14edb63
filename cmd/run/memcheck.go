package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// memoryFlag is the memory pre-flight of the commands that start work
// (sweep, task, audit): they refuse, before starting, work whose estimated
// peak memory exceeds what this machine has available, instead of dying
// later with "fatal error: out of memory".
type memoryFlag struct {
	IgnoreMemoryCheck bool `help:"Start even if the estimated peak memory exceeds the memory available here (MemAvailable of /proc/meminfo, lowered to the cgroup's memory.max headroom and to the address-space limit of ulimit -v)."`
}

// check refuses need bytes (negative: the estimate overflowed) of what
// when more than the available memory, unless overridden. Where the
// available memory cannot be read (not Linux) it checks nothing.
func (f memoryFlag) check(what string, need int64) error {
	if f.IgnoreMemoryCheck {
		return nil
	}
	avail, source, ok := availableMemory()
	if !ok {
		return nil
	}
	if need >= 0 && need <= avail {
		return nil
	}
	needText := bytesText(need)
	if need < 0 {
		needText += " (the estimate overflows)"
	}
	return fmt.Errorf("%s: estimated peak memory %s exceeds the %s available here (%s): refusing to start. "+
		"Lower --workers or the grid's sizes (see `run plan`), run it on a larger machine or a cluster (run slurm), "+
		"or pass --ignore-memory-check to start anyway", what, needText, bytesText(avail), source)
}

// availableMemory is the memory this process can still use: MemAvailable
// of /proc/meminfo, lowered to memory.max - memory.current of its cgroup
// (v2) when that sets a limit, and to the address-space limit's headroom
// (RLIMIT_AS minus the virtual size) when one is set. ok is false when /proc/meminfo cannot be
// read.
func availableMemory() (avail int64, source string, ok bool) {
	avail, ok = memAvailable("/proc/meminfo")
	if !ok {
		return 0, "", false
	}
	source = "MemAvailable"
	if dir, ok := cgroupDir("/proc/self/cgroup"); ok {
		limit, okMax := readBytes(filepath.Join("/sys/fs/cgroup", dir, "memory.max"))
		cur, okCur := readBytes(filepath.Join("/sys/fs/cgroup", dir, "memory.current"))
		if okMax && okCur && limit-cur < avail {
			avail, source = max(0, limit-cur), "cgroup memory.max minus memory.current"
		}
	}
	// An address-space limit (ulimit -v) stops the process at its
	// virtual size, whatever the machine has (attack round 3, K6).
	if head, ok := addressSpaceHeadroom(); ok && head < avail {
		avail, source = head, "the address-space limit (ulimit -v, RLIMIT_AS) minus this process's virtual size"
	}
	return avail, source, true
}

// memAvailable reads the MemAvailable line (kB) of a meminfo file.
func memAvailable(path string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			return kb << 10, err == nil && kb >= 0
		}
	}
	return 0, false
}

// cgroupDir is the cgroup v2 path of this process ("0::/path").
func cgroupDir(path string) (string, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if dir, ok := strings.CutPrefix(line, "0::"); ok {
			return dir, true
		}
	}
	return "", false
}

// readBytes reads a cgroup file holding a byte count; "max" (no limit)
// and anything unreadable are not ok.
func readBytes(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}
