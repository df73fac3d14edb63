package runner

import (
	"context"
	"runtime"
	"time"

	"github.com/fedbandit/fedbandit/registry"
)

// The cost of a shared context stream (share.go), as Estimate counts it:
// a run sharing its stream costs its own time less the stream's, and its
// unit draws the stream once (plus, for the published generator, the
// instance's preparation: theta* follows all T rounds of contexts, drawn
// once per process).

// StreamClass is what the speed of run r's shared stream depends on, by
// its family (registry.Stream.Class; "" for a run that shares none).
func StreamClass(r *Run) string {
	if st := streamOf(r); st != nil {
		return st.Class(r.Spec)
	}
	return ""
}

// StreamSeconds is the CPU time of drawing run r's shared stream once,
// and of preparing it (once per process): measured per silo-round where
// rates has the stream's class, else its family's model
// (registry.Stream.Model). Both are 0 for a run that shares none.
func StreamSeconds(r *Run, rates *Rates) (stream, prep float64) {
	st := streamOf(r)
	if st == nil {
		return 0, 0
	}
	stream, prep = st.Model(r.Spec)
	mt := float64(r.Silos()) * float64(r.Rounds())
	if rates != nil {
		if v, ok := rates.StreamPerSiloRound[st.Class(r.Spec)]; ok {
			stream = v * mt
			if p, ok := rates.PrepPerSiloRound[st.Class(r.Spec)]; ok {
				prep = p * mt
			}
		}
	}
	return stream, prep
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
// (registry.Feed.Drive on the thread's CPU time).
func (p *Plan) measureShared(ctx context.Context, r *Run, sim SimulateFunc) (sharedPilot, error) {
	if sim == nil {
		sim = r.entry().NewRun
	}
	st := streamOf(r)
	c := r.Cost()
	ps := st.Pilot(r.Spec, c.Rate*PilotSeconds)
	var sp sharedPilot
	var f registry.Feed
	prep, err := p.pilotClock(func() (err error) {
		f, err = st.Open(ps)
		return err
	})
	if err != nil {
		return sp, err
	}
	for try := 0; try < 2; try++ {
		if try > 0 {
			if f, err = st.Open(ps); err != nil {
				return sp, err
			}
		}
		var runErr error
		stream, each := p.pilotGroup(ctx, f, func(ctx context.Context) { _, runErr = sim(ctx, ps) })
		if runErr != nil {
			return sp, runErr
		}
		if s, rn := stream.Seconds(), each[0].Seconds(); try == 0 || s+rn < sp.stream+sp.sim {
			sp.stream, sp.sim = s, rn
		}
	}
	mt := float64(max(ps.M, 1)) * float64(ps.T)
	return sharedPilot{sim: sp.sim / mt, stream: sp.stream / mt, prep: prep / mt}, nil
}

// pilotGroup drives one run over f on this thread, timed by the thread's
// CPU time where the platform reports it, else wall time.
func (p *Plan) pilotGroup(ctx context.Context, f registry.Feed, run func(context.Context)) (stream time.Duration, each []time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	clock := func() time.Duration { d, _ := p.threadCPU(); return d }
	if _, ok := p.threadCPU(); !ok {
		start := p.wallNow()
		clock = func() time.Duration { return p.wallNow().Sub(start) }
	}
	return f.Drive(ctx, []func(context.Context){run}, clock)
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
