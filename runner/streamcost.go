package runner

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/registry"
)

// The cost of a shared context stream (share.go), as Estimate counts it:
// a run sharing its stream costs its own time less the stream's, and its
// unit draws the stream once (plus, for the published generator, the
// instance's preparation: theta* follows all T rounds of contexts, drawn
// once per process).

// StreamClass is what the speed of a context stream depends on: the
// generator, d, K, M and the fixed basis ("" for runs whose contexts are
// not shared).
func StreamClass(r *Run) string {
	if streamKey(r) == "" {
		return ""
	}
	s, _ := registry.NativeLinear(r.Spec)
	y := s.WithDefaults().Synthetic
	return fmt.Sprintf("stream gen=%s d=%d K=%d M=%d fixed=%t", y.ContextGen, y.D, y.K, s.M, y.FixedBasis)
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

// streamNormals is the number of normals a run's stream draws.
func streamNormals(r *Run) float64 {
	s, _ := registry.NativeLinear(r.Spec)
	y := s.WithDefaults().Synthetic
	return float64(s.M) * float64(s.T) * float64(y.K) * float64(y.D-1)
}

// StreamSeconds is the CPU time of drawing run r's shared context stream
// once, and of preparing its instance (once per process; 0 but for the
// published generator): measured per silo-round where rates has the
// stream's class, else from the model. Both are 0 for a run whose
// contexts are not shared.
func StreamSeconds(r *Run, rates *Rates) (stream, prep float64) {
	class := StreamClass(r)
	if class == "" {
		return 0, 0
	}
	s, _ := registry.NativeLinear(r.Spec)
	gen := s.WithDefaults().Synthetic.ContextGen
	if gen == federate.ContextsNumPy {
		prep = streamNormals(r) * numpySkipPerNormal
	}
	mt := float64(s.M) * float64(s.T)
	if rates != nil {
		if v, ok := rates.StreamPerSiloRound[class]; ok {
			stream = v * mt
			if p, ok := rates.PrepPerSiloRound[class]; ok {
				prep = p * mt
			}
			return stream, prep
		}
	}
	return streamNormals(r) * streamNsPerNormal[gen], prep
}

// sharedPilot is the timing of a class that can share its stream, in
// seconds per silo-round.
type sharedPilot struct {
	sim, stream, prep float64
}

// measureShared times run r's class over the pilot's rounds as a group
// of one run over its own feed: the instance's preparation (a fresh feed
// of a T not seen before in this process), then, the faster of two
// passes, the stream's drawing and the run's simulation apart
// (federate.DriveGroupClock on the thread's CPU time).
func (p *Plan) measureShared(ctx context.Context, r *Run, sim SimulateFunc) (sharedPilot, error) {
	if sim == nil {
		sim = r.entry().NewRun
	}
	ps := pilotOf(r)
	s, _ := registry.NativeLinear(ps)
	// A T of its own (still a multiple of B), so that the preparation is
	// not cached already.
	if s.T > s.B {
		s.T -= s.B
	} else {
		s.T += s.B
	}
	s.Every = s.T
	var sp sharedPilot
	var f *federate.ContextFeed
	prep, err := p.pilotClock(func() (err error) {
		f, err = federate.NewContextFeed(s)
		return err
	})
	if err != nil {
		return sp, err
	}
	for try := 0; try < 2; try++ {
		if try > 0 {
			if f, err = federate.NewContextFeed(s); err != nil {
				return sp, err
			}
		}
		var runErr error
		ps.T, ps.Every, ps.Native = s.T, s.Every, s
		gt := p.pilotGroup(ctx, f, func(ctx context.Context) { _, runErr = sim(ctx, ps) })
		if runErr != nil {
			return sp, runErr
		}
		if st, rn := gt.Stream.Seconds(), gt.Runs[0].Seconds(); try == 0 || st+rn < sp.stream+sp.sim {
			sp.stream, sp.sim = st, rn
		}
	}
	mt := float64(s.M) * float64(s.T)
	return sharedPilot{sim: sp.sim / mt, stream: sp.stream / mt, prep: prep / mt}, nil
}

// pilotGroup drives one run over f on this thread, timed by the thread's
// CPU time where the platform reports it, else wall time.
func (p *Plan) pilotGroup(ctx context.Context, f *federate.ContextFeed, run func(context.Context)) federate.GroupTimes {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	clock := func() time.Duration { d, _ := p.threadCPU(); return d }
	if _, ok := p.threadCPU(); !ok {
		start := p.wallNow()
		clock = func() time.Duration { return p.wallNow().Sub(start) }
	}
	return federate.DriveGroupClock(ctx, f, []func(context.Context){run}, clock)
}

// pilotClock times f on one core: the CPU time of the calling thread
// where the platform reports it (the goroutine locked to its thread;
// federate.Run and the feed run on the calling goroutine), else wall time.
func (p *Plan) pilotClock(f func() error) (float64, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, okCPU := p.threadCPU()
	t0 := p.wallNow()
	err := f()
	if c1, ok := p.threadCPU(); ok && okCPU {
		return (c1 - c0).Seconds(), err
	}
	return p.wallNow().Sub(t0).Seconds(), err
}
