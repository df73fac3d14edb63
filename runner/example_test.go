package runner_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
	"github.com/fedbandit/fedbandit/runner"
)

// A sweep of FedLinUCB and LDP at two eps on a small synthetic instance,
// two seeds each, executed and collected.
func Example() {
	cfg, err := runner.ParseConfig([]byte(`
name = "example"
seeds = 2

[[instance]]
kind = "synthetic"
d = 4
k = 10
noise_var = 0.25

[[algorithm]]
name = "fedlinucb"

[[algorithm]]
name = "ldp"

[grid]
eps = [1, 5]
delta = [0.1]
M = [5]
B = [10]
T = [50]
`), ".")
	if err != nil {
		fmt.Println(err)
		return
	}
	plan, err := runner.NewPlan(cfg, registry.Env{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("runs:", len(plan.Runs))

	dir, _ := os.MkdirTemp("", "sweep")
	defer os.RemoveAll(dir)
	s := &runner.Sweep{Plan: plan, Out: dir, Workers: 2, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	rep, err := s.Execute(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("done:", rep.Done, "collected rows:", rep.Collected.CurveRows)

	// Rerunning finds everything done.
	rep, _ = s.Execute(context.Background())
	fmt.Println("skipped on rerun:", rep.Skipped)

	runs, _ := outputs.ReadRuns(rep.Collected.RunsPath)
	perAlg := map[string]int{}
	for _, r := range runs {
		perAlg[r.Algorithm]++
	}
	fmt.Println("runs per algorithm:", perAlg)
	// Output:
	// runs: 6
	// done: 6 collected rows: 30
	// skipped on rerun: 6
	// runs per algorithm: map[fedlinucb:2 ldp:4]
}

// Config errors name the offending key.
func ExampleParseConfig_error() {
	_, err := runner.ParseConfig([]byte(`
seeds = 1
[[instance]]
kind = "synthetic"
[[algorithm]]
name = "ldp"
[grid]
eps = [1, -2]
delta = [0.1]
M = [2]
B = [5]
T = [10]
`), ".")
	fmt.Println(err)
	// Output:
	// grid.eps[1]: eps = -2, want a finite value > 0
}
