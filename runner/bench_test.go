package runner

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// benchTOML is 16 runs of a small synthetic instance (about 0.1-0.2 s
// each on one core, so that the runner's fixed cost per run, a few ms of
// fsyncs, stays small as it is for real sweeps) for the throughput
// benchmark.
const benchTOML = `
name = "bench"
seeds = 8
[[instance]]
kind = "synthetic"
d = 10
k = 50
noise_var = 0.25
[[algorithm]]
name = "fedlinucb"
[[algorithm]]
name = "ldp"
[grid]
eps = [1]
delta = [0.1]
M = [20]
B = [25]
T = [10000]
`

// BenchmarkSweepThroughput runs the same 16-run sweep on the real
// simulator with 1 and 2 workers (fresh output directory each time,
// publishing and collecting included). Compare the runs/s metrics:
// the target is >= 1.8x with 2 workers on 2 idle cores.
//
//	go test ./runner -run '^$' -bench SweepThroughput -benchtime 3x
func BenchmarkSweepThroughput(b *testing.B) {
	plan := mustPlan(b, benchTOML)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s := &Sweep{Plan: plan, Out: b.TempDir(), Workers: w, Log: quietLog()}
				if _, err := s.Execute(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(plan.Runs)*b.N)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}

// BenchmarkSweepOverhead isolates the runner's own cost (pool, validation,
// Arrow encoding, atomic publish with fsync, manifest, collect) with a
// simulator that only waits 20 ms per run: with 2 workers the runs/s
// should double whatever the machine's load, since waiting uses no CPU.
//
//	go test ./runner -run '^$' -bench SweepOverhead -benchtime 3x
func BenchmarkSweepOverhead(b *testing.B) {
	plan := mustPlan(b, benchTOML)
	sim := fakeSim{delay: 20 * time.Millisecond}
	for _, w := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := sweepInto(b, plan, b.TempDir(), w, sim, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(plan.Runs)*b.N)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}
