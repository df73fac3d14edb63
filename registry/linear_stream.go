package registry

import (
	"context"
	"fmt"
	"time"

	"github.com/fedbandit/fedbandit/federate"
)

// The linear family's shared context streams (federate.ContextFeed): runs
// of one synthetic instance with shared_contexts read the same contexts,
// which a group of them draws once.

// linearStream is the linear family's Stream capability.
var linearStream = &Stream{
	Key: func(rs RunSpec) string {
		s, ok := NativeLinear(rs)
		if !ok {
			return ""
		}
		key, _ := federate.SharedContextsKey(s)
		return key
	},
	Class: func(rs RunSpec) string {
		s, _ := NativeLinear(rs)
		y := s.WithDefaults().Synthetic
		return fmt.Sprintf("stream gen=%s d=%d K=%d M=%d fixed=%t", y.ContextGen, y.D, y.K, s.M, y.FixedBasis)
	},
	Model: linearStreamModel,
	Pilot: func(rs RunSpec, work float64) RunSpec {
		p := linearPilot(rs, work)
		s, _ := NativeLinear(p)
		// A T of its own (still a multiple of B), so that the
		// preparation is not cached already.
		if s.T > s.B {
			s.T -= s.B
		} else {
			s.T += s.B
		}
		s.Every = s.T
		p.T, p.Every, p.Native = s.T, s.Every, s
		return p
	},
	Open: func(rs RunSpec) (Feed, error) {
		s, _ := NativeLinear(rs)
		f, err := federate.NewContextFeed(s)
		if err != nil {
			return nil, err
		}
		return linearFeed{f}, nil
	},
	WindowBytes: federate.FeedWindowBytes,
}

// linearFeed is a federate.ContextFeed as a Feed.
type linearFeed struct{ f *federate.ContextFeed }

func (l linearFeed) Drive(ctx context.Context, runs []func(context.Context), clock func() time.Duration) (time.Duration, []time.Duration) {
	gt := federate.DriveGroupClock(ctx, l.f, runs, clock)
	return gt.Stream, gt.Runs
}

// Model speeds of the streams when none is measured, in seconds per
// normal drawn (BENCHMARKS.md: the contexts of the default generator cost
// about 0.9 ns per normal all-in; the published generator about 12 ns,
// and 5 ns per normal skipped for its theta*; ChaCha8 about 8 ns).
var streamNsPerNormal = map[string]float64{
	federate.ContextsFast:    0.9e-9,
	federate.ContextsNumPy:   12e-9,
	federate.ContextsChaCha8: 8e-9,
}

const numpySkipPerNormal = 5e-9

// linearStreamModel is the model's time of a run's stream: M T K (d-1)
// normals at its generator's speed, and for the published generator the
// preparation, which skips as many (theta* follows all T rounds of
// contexts, drawn once per process).
func linearStreamModel(rs RunSpec) (stream, prep float64) {
	s, _ := NativeLinear(rs)
	y := s.WithDefaults().Synthetic
	normals := float64(s.M) * float64(s.T) * float64(y.K) * float64(y.D-1)
	if y.ContextGen == federate.ContextsNumPy {
		prep = normals * numpySkipPerNormal
	}
	return normals * streamNsPerNormal[y.ContextGen], prep
}

// ErrStreamStopped is the panic of a run whose group's shared stream
// stopped (federate.ErrFeedStopped): the group was cancelled while the run
// waited for its input.
var ErrStreamStopped = federate.ErrFeedStopped

// Kernels names the vector kernels in use (federate.Kernels: AVX2 or
// Go), on which measured speeds depend.
func Kernels() string { return federate.Kernels() }
