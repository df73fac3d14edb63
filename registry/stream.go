package registry

import (
	"context"
	"time"
)

// Stream is the capability of a family whose runs read an input stream
// that runs of the same key can share (the linear family's shared
// synthetic contexts): the runner draws it once for a unit of runs that
// execute together, and its cost model counts it once. An algorithm
// without the capability has a nil Stream.
type Stream struct {
	// Key is the stream a compiled run reads, "" if it shares none.
	Key func(RunSpec) string
	// Class is what the stream's speed depends on (runs of one class
	// draw theirs equally fast, per silo-round).
	Class func(RunSpec) string
	// Model is the cost model's CPU seconds of drawing a run's stream once
	// and of preparing it (once per process).
	Model func(RunSpec) (stream, prep float64)
	// Pilot is the run that times a class sharing its stream: the
	// family's pilot of about work units, with a horizon of its own, so
	// that its preparation is not cached in this process already.
	Pilot func(spec RunSpec, work float64) RunSpec
	// Open opens the stream a group's first run reads (preparing it).
	Open func(RunSpec) (Feed, error)
	// WindowBytes is the memory of an open stream.
	WindowBytes int64
}

// Feed is an open stream that drives a group of runs on the calling
// goroutine: each runs[k] is called with a context that carries the stream
// (a run reads it through the family's NewRun). It returns the clock's
// time spent drawing the stream and in each run.
type Feed interface {
	Drive(ctx context.Context, runs []func(context.Context), clock func() time.Duration) (stream time.Duration, each []time.Duration)
}
