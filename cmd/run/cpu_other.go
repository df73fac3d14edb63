//go:build !unix

package main

// cpuSeconds is not measured on this platform: 0 (the report then shows
// no CPU time).
func cpuSeconds() float64 { return 0 }
