// Package runner turns a TOML sweep file into seeded, concurrent,
// resumable runs of the federated bandit simulator and their Arrow
// outputs.
//
// LoadConfig reads and validates a sweep file (unknown keys and invalid
// values are *KeyError values naming the key, e.g. "grid.eps[1]").
// NewPlan expands it deterministically, whatever the family: every
// combination of instance, algorithm, grid value and seed becomes a Run
// holding its algorithm's compiled registry.RunSpec, whose ID (its family's,
// registry.Algorithm.ID) is the SHA-256 of its full specification, its
// instance's content hash and the simulator's semantics version; runs are
// sorted by ID, so that the order is stable and a shard i/n is simply
// runs[j] for j mod n == i. Each instance is loaded once per plan (once per
// M when partitioned per M) and shared read-only by its runs.
// Plan.Estimate gives each family's cost model (registry.Cost: work in the
// family's unit) and a peak-memory estimate; Plan.MeasureRates times a
// pilot of each cost class, bounded in time and memory. The runner has no
// branch on a family: everything a family decides goes through its
// registry entries.
//
// Sweep.Execute runs the plan with a pool of workers (conc), publishes
// each finished run atomically as DIR/runs/<id>.arrow (outputs.WriteRun),
// keeps DIR/manifest.json, and collects DIR/runs.arrow and
// DIR/curves.arrow at the end. Rerunning skips done runs and retries
// failed ones; a sweep killed at any moment ends, once rerun, with exactly
// the files of an uninterrupted sweep, whatever the number of workers. A
// run that errors, panics or produces non-finite regret is recorded as
// failed with its message; the others continue and Execute returns an
// error wrapping ErrRunsFailed. Cancelling the context (Ctrl-C) stops
// cleanly with ErrInterrupted.
package runner
