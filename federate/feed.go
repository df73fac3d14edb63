package federate

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"
)

// Runs of one synthetic instance with SharedContexts read the same
// context stream: every silo-round's random actions and their means depend
// only on the instance (generator, instance seed, M, T, K, d, fixed basis,
// theta*), not on the run. A ContextFeed draws that stream once for a group
// of such runs, a window of rounds at a time, and the runs read it instead
// of drawing their own: the group's driver (runner) produces a window,
// then resumes every run of the group until it needs a round beyond the
// window, and so on. The runs of a group therefore execute as one
// schedulable unit (the runner steps them as coroutines on one goroutine),
// never wait for each other on separate workers, and hold one window of
// contexts in memory between them. Each run's results are bit-identical
// to those of the run drawing its own stream.

// SharedContextsKey returns the identity of the context stream that the
// spec's run reads, and whether it is one that runs can share (a
// synthetic instance with SharedContexts): two specs with the same key
// read bit-identical contexts and means. The key is not stable across
// versions (it is for grouping runs in one process only).
func SharedContextsKey(spec Spec) (string, bool) {
	s := spec.WithDefaults()
	k, err := s.kind()
	if err != nil || k.sharedStream == nil {
		return "", false
	}
	return k.sharedStream(s)
}

// FeedWindowBytes is the memory a feed's window aims at: as many rounds
// as fit (at least one).
const FeedWindowBytes = 8 << 20

// ContextFeed is the shared context stream of a group of runs (see
// SharedContextsKey). It is not safe for concurrent use: one goroutine
// produces and runs the group's runs.
type ContextFeed struct {
	key    string
	m, t   int
	src    *synthetic  // the producer: the stream's own instance
	rounds int         // rounds per window
	start  int         // first round (0-based) of the window
	end    int         // one past its last round
	nb     int         // blocks of random actions per silo-round
	x, mu  [][]float64 // [(round-start)*M + silo]
}

// NewContextFeed returns the feed of the stream that spec's run reads;
// spec must be valid and its contexts shareable (SharedContextsKey). The
// window is empty until the first Advance.
func NewContextFeed(spec Spec) (*ContextFeed, error) {
	s := spec.WithDefaults()
	key, ok := SharedContextsKey(s)
	if !ok {
		return nil, errors.New("federate: a context feed needs a synthetic instance with shared contexts")
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("federate: context feed: %w", err)
	}
	src := newSynthetic(s, RunKey(s.Seed))
	f := &ContextFeed{key: key, m: s.M, t: s.T, src: src, nb: src.random.blocks()}
	per := (len(src.random.x) + 4*f.nb) * 8 * s.M
	f.rounds = max(1, min(s.T, FeedWindowBytes/max(per, 1)))
	if f.nb > 0 {
		f.x = make([][]float64, f.rounds*s.M)
		f.mu = make([][]float64, f.rounds*s.M)
		for j := range f.x {
			f.x[j] = make([]float64, len(src.random.x))
			f.mu[j] = make([]float64, 4*f.nb)
		}
	}
	return f, nil
}

// Advance replaces the window by the next rounds of the stream (the
// runs must all have read the current one). It reports false when the
// stream is exhausted (all T rounds produced).
func (f *ContextFeed) Advance() bool {
	if f.end >= f.t {
		return false
	}
	f.start = f.end
	f.end = min(f.start+f.rounds, f.t)
	if f.nb == 0 {
		return true
	}
	theta := f.src.theta
	for r := 0; r < f.end-f.start; r++ {
		for i := 0; i < f.m; i++ {
			j := r*f.m + i
			f.src.ctx[i].fill(f.x[j], f.mu[j], f.nb, theta)
		}
	}
	return true
}

// WindowBytes is the memory of the feed's window.
func (f *ContextFeed) WindowBytes() int64 {
	var n int64
	for j := range f.x {
		n += int64(len(f.x[j])+len(f.mu[j])) * 8
	}
	return n
}

// ErrFeedStopped is the panic value of a run whose driver stopped it
// while it waited for the next window (the group was cancelled).
var ErrFeedStopped = errors.New("federate: context feed stopped")

type feedKey struct{}

// feedReader is a run's place in a feed.
type feedReader struct {
	f     *ContextFeed
	wait  func() bool // yields to the driver; false if the run is stopped
	round int         // the round being read (0-based)
	silo  int         // the next silo expected
}

// WithContextFeed returns a context under which federate.Run reads its
// contexts from f instead of drawing them (the run's spec must have f's
// SharedContextsKey). When the run needs a round beyond f's window it
// calls wait, which must return once the driver has advanced the window,
// or return false to stop the run (it then panics with ErrFeedStopped).
func WithContextFeed(ctx context.Context, f *ContextFeed, wait func() bool) context.Context {
	return context.WithValue(ctx, feedKey{}, &feedReader{f: f, wait: wait})
}

// attachFeed makes the synthetic instance of a run read its contexts from
// the feed of ctx, if any.
func attachFeed(ctx context.Context, s Spec, inst instance) error {
	fr, _ := ctx.Value(feedKey{}).(*feedReader)
	if fr == nil {
		return nil
	}
	key, _ := SharedContextsKey(s)
	in, ok := inst.(*synthetic)
	if !ok || key != fr.f.key {
		return fmt.Errorf("context feed of %s given to a run reading %s", fr.f.key, key)
	}
	in.feed = fr
	return nil
}

// next returns silo i's random actions and their means in the current
// round, waiting for the window to reach it. Silos are read in order,
// every silo every round.
func (r *feedReader) next(i int) (x, mu []float64) {
	f := r.f
	if i != r.silo {
		panic(fmt.Sprintf("federate: context feed read silo %d, expected %d", i, r.silo))
	}
	for r.round >= f.end {
		if !r.wait() {
			panic(ErrFeedStopped)
		}
	}
	if r.round < f.start {
		panic(fmt.Sprintf("federate: context feed advanced to round %d past a run at round %d", f.start, r.round))
	}
	j := (r.round-f.start)*f.m + i
	if r.silo++; r.silo == f.m {
		r.silo = 0
		r.round++
	}
	return f.x[j], f.mu[j]
}

// GroupTimes are the times of a group's execution (DriveGroup): the
// stream's production, and each run's own execution (its resumptions,
// without the time it waited for the others).
type GroupTimes struct {
	Stream time.Duration
	Runs   []time.Duration
}

// DriveGroup executes the runs of a group on the calling goroutine,
// sharing f's stream: each runs[k] is called with a context carrying f
// (WithContextFeed; it should call federate.Run, or a function that does,
// with it) as a coroutine; DriveGroup advances the window, resumes every
// unfinished run until it needs a later round or returns, and repeats
// until all have returned. A run that returns early (an error) leaves the
// group; a run that never reads the feed simply finishes on its first
// resumption. If ctx is cancelled, the runs still waiting for a window
// are stopped (their wait returns false and they panic with
// ErrFeedStopped, which the run function should recover) and DriveGroup
// returns once they have.
func DriveGroup(ctx context.Context, f *ContextFeed, runs []func(ctx context.Context)) GroupTimes {
	start := time.Now()
	return DriveGroupClock(ctx, f, runs, func() time.Duration { return time.Since(start) })
}

// DriveGroupClock is DriveGroup with the times taken by clock (a
// monotonic clock, e.g. the CPU time of the calling thread: the runs and
// the stream execute on the calling goroutine, and resuming a run hands
// its thread to the run's coroutine).
func DriveGroupClock(ctx context.Context, f *ContextFeed, runs []func(ctx context.Context), clock func() time.Duration) GroupTimes {
	type cor struct {
		next func() (struct{}, bool)
		stop func()
		k    int
	}
	gt := GroupTimes{Runs: make([]time.Duration, len(runs))}
	live := make([]cor, 0, len(runs))
	for k, run := range runs {
		next, stop := iter.Pull(func(yield func(struct{}) bool) {
			run(WithContextFeed(ctx, f, func() bool { return yield(struct{}{}) }))
		})
		live = append(live, cor{next, stop, k})
	}
	for len(live) > 0 {
		t0 := clock()
		more := ctx.Err() == nil && f.Advance()
		gt.Stream += clock() - t0
		if !more {
			// Cancelled, or runs waiting beyond the stream's end (which
			// a run of f's spec never does).
			for _, c := range live {
				t0 := clock()
				c.stop()
				gt.Runs[c.k] += clock() - t0
			}
			break
		}
		kept := live[:0]
		for _, c := range live {
			t0 := clock()
			_, more := c.next()
			gt.Runs[c.k] += clock() - t0
			if more {
				kept = append(kept, c)
			}
		}
		live = kept
	}
	return gt
}
