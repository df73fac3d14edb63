package runner

import (
	"context"
	"log/slog"
	"time"

	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
)

// A sweep's runs that read the same context stream (a synthetic instance
// with shared_contexts, and the same generator, instance seed, M, T, K, d:
// federate.SharedContextsKey) draw it once: they execute as units, each
// unit a set of such runs driven together by one worker over one
// federate.ContextFeed (a window of rounds in memory, the runs resumed
// round-window by round-window as coroutines of that worker). A unit never
// waits for another, so any number of workers, cancellation, resume and
// the task split of array jobs work as for single runs, and every run's
// results are bit-identical to those of the run drawing its own stream.
// Sweep.NoShare turns it off.

// unit is runs executed together: one run, or runs sharing a stream.
type unit struct {
	runs []*Run
}

// unitBytes is the memory a unit's runs may hold together (RunBytes
// each; the window comes on top): a unit keeps all its runs' states alive
// until they finish together.
const unitBytes = 40 << 20

// streamOf is the shared-stream capability of run r's family
// (registry.Stream), nil if the run shares no stream.
func streamOf(r *Run) *registry.Stream {
	st := r.entry().Stream
	if st == nil || st.Key(r.Spec) == "" {
		return nil
	}
	return st
}

// streamKey is the key of the input stream run r reads and can share
// with the runs of the same key ("" if none).
func streamKey(r *Run) string {
	if st := streamOf(r); st != nil {
		return st.Key(r.Spec)
	}
	return ""
}

// shareUnits splits the pending runs into units: with share, the runs of
// each stream (in plan order) are cut into k contiguous units of about
// equal size, k the stream's share of the workers (ceil(workers * its
// runs / all runs), so that a sweep of one instance still keeps every
// worker busy), raised if needed so that a unit's runs hold at most
// unitBytes (then to a multiple of the workers, for balance), and at most
// its runs; the other runs are units of their own. Units are in the order
// of their first run.
func shareUnits(pending []*Run, workers int, share bool) []unit {
	var units []unit
	if !share {
		for _, r := range pending {
			units = append(units, unit{runs: []*Run{r}})
		}
		return units
	}
	groups := map[string][]*Run{}
	var order []string // keys in order of first run; "" entries are single runs
	var single []*Run
	for _, r := range pending {
		key := streamKey(r)
		if key == "" {
			order = append(order, "")
			single = append(single, r)
			continue
		}
		if _, seen := groups[key]; !seen {
			order = append(order, key)
		}
		groups[key] = append(groups[key], r)
	}
	n := len(pending)
	for _, key := range order {
		if key == "" {
			units = append(units, unit{runs: []*Run{single[0]}})
			single = single[1:]
			continue
		}
		g := groups[key]
		k := max((workers*len(g)+n-1)/n, 1)
		if per := max(unitBytes/max(RunBytes(g[0]), 1), 1); (len(g)+k-1)/k > int(per) {
			k = (len(g) + int(per) - 1) / int(per)
			k = (k + workers - 1) / workers * workers
		}
		k = min(k, len(g))
		for j := 0; j < k; j++ {
			units = append(units, unit{runs: g[j*len(g)/k : (j+1)*len(g)/k]})
		}
	}
	return units
}

// executeUnit executes a unit's runs and hands each result to publish
// (ok false: interrupted, not to be recorded). A unit of several runs
// shares one context feed; the WallSeconds recorded for each of its runs
// is the time spent in its own simulation plus its share of the stream's.
func (s *Sweep) executeUnit(ctx context.Context, sim SimulateFunc, u unit, log *slog.Logger, publish func(r *Run, rec outputs.RunRecord, pts []outputs.Point, ok bool)) {
	if len(u.runs) == 1 {
		rec, pts, ok := s.execute(ctx, sim, u.runs[0], log)
		publish(u.runs[0], rec, pts, ok)
		return
	}
	feed, err := streamOf(u.runs[0]).Open(u.runs[0].Spec)
	if err != nil {
		// An invalid spec: each run reports its own error.
		for _, r := range u.runs {
			if ctx.Err() != nil {
				return
			}
			rec, pts, ok := s.execute(ctx, sim, r, log)
			publish(r, rec, pts, ok)
		}
		return
	}
	type result struct {
		rec outputs.RunRecord
		pts []outputs.Point
		ok  bool
	}
	res := make([]result, len(u.runs))
	fns := make([]func(context.Context), len(u.runs))
	for k, r := range u.runs {
		fns[k] = func(ctx context.Context) {
			res[k].rec, res[k].pts, res[k].ok = s.execute(ctx, sim, r, log)
		}
	}
	start := s.clock()
	stream, each := feed.Drive(ctx, fns, func() time.Duration { return s.clock().Sub(start) })
	share := stream.Seconds() / float64(len(u.runs))
	for k, r := range u.runs {
		if res[k].ok && res[k].rec.Status == outputs.StatusDone {
			res[k].rec.WallSeconds = each[k].Seconds() + share
		}
		publish(r, res[k].rec, res[k].pts, res[k].ok)
	}
}
