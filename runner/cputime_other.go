//go:build !linux

package runner

import "time"

// threadCPU is not available here: the pilots fall back to wall time.
func threadCPU() (time.Duration, bool) { return 0, false }
