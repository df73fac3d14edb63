package runner

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/fedbandit/fedbandit/federate"
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
	if _, ok := federate.SharedContextsKey(r.Spec); !ok {
		return ""
	}
	y := r.Spec.WithDefaults().Synthetic
	return fmt.Sprintf("stream gen=%s d=%d K=%d M=%d fixed=%t", y.ContextGen, y.D, y.K, r.Spec.M, y.FixedBasis)
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
	y := r.Spec.WithDefaults().Synthetic
	return float64(r.Spec.M) * float64(r.Spec.T) * float64(y.K) * float64(y.D-1)
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
	gen := r.Spec.WithDefaults().Synthetic.ContextGen
	if gen == federate.ContextsNumPy {
		prep = streamNormals(r) * numpySkipPerNormal
	}
	mt := float64(r.Spec.M) * float64(r.Spec.T)
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

// measureStream times the shared stream of run r's class over the pilot's
// rounds: the preparation (a fresh feed of a T not seen before in this
// process) and the drawing (the faster of two passes). It returns seconds
// per silo-round.
func measureStream(ctx context.Context, r *Run) (stream, prep float64, err error) {
	s := pilotSpec(r)
	// A T of its own, so that the preparation is not cached already.
	s.T = max(s.T-1, 1)
	s.Every = s.T
	var f *federate.ContextFeed
	prep, err = pilotClock(func() (err error) {
		f, err = federate.NewContextFeed(s)
		return err
	})
	if err != nil {
		return 0, 0, err
	}
	best := 0.0
	for try := 0; try < 2; try++ {
		if ctx.Err() != nil {
			return 0, 0, ctx.Err()
		}
		if try > 0 {
			if f, err = federate.NewContextFeed(s); err != nil {
				return 0, 0, err
			}
		}
		d, _ := pilotClock(func() error {
			for f.Advance() {
			}
			return nil
		})
		if try == 0 || d < best {
			best = d
		}
	}
	mt := float64(s.M) * float64(s.T)
	return best / mt, prep / mt, nil
}

// pilotClock times f on one core: the CPU time of the calling thread
// where the platform reports it (the goroutine locked to its thread;
// federate.Run and the feed run on the calling goroutine), else wall time.
func pilotClock(f func() error) (float64, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, okCPU := threadCPU()
	t0 := time.Now()
	err := f()
	if c1, ok := threadCPU(); ok && okCPU {
		return (c1 - c0).Seconds(), err
	}
	return time.Since(t0).Seconds(), err
}
