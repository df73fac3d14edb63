// Package runner turns a TOML sweep file into seeded, concurrent,
// resumable runs of the federated bandit simulator and their Arrow
// outputs.
//
// LoadConfig reads and validates a sweep file (unknown keys and invalid
// values are *KeyError values naming the key, e.g. "grid.eps[1]").
// NewPlan expands it deterministically: every combination of instance,
// algorithm, grid value and seed becomes a Run whose ID is the SHA-256 of
// its full specification, its instance's content hash and the results
// format version; runs are sorted by ID, so that the order is stable and a
// shard i/n is simply runs[j] for j mod n == i. Each distinct learning-to-
// rank instance is built once and shared read-only by its runs.
// Plan.Estimate gives the cost model (sum of M T K d^2 multiply-adds) and a
// peak-memory estimate.
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
