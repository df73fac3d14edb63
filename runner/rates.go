package runner

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/fedbandit/fedbandit/internal/atomicfile"
	"github.com/fedbandit/fedbandit/internal/buildinfo"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
)

// Rates are the measured speeds of this machine: the CPU seconds of one
// unit of work (registry.Cost: the unit is the family's) for each cost
// class of a plan. A run costs its work times its class's figure: a run's
// work per unit does not depend on T, the seed or the privacy budget, only
// on what its class keeps.
type Rates struct {
	// PerUnit maps a cost class (registry.Cost.Class) to seconds per unit
	// of work.
	PerUnit map[string]float64
	// SimPerUnit maps the class of runs that can share their context
	// stream to their seconds per unit of work without it, and
	// StreamPerSiloRound and PrepPerSiloRound map StreamClass to the
	// seconds per silo-round of drawing the stream and of preparing its
	// instance (streamcost.go; PerUnit is then simulation plus stream).
	SimPerUnit, StreamPerSiloRound, PrepPerSiloRound map[string]float64
	// Measured and Cached count the classes timed by this call and those
	// read from the cache; Unmeasured those left to the cost model
	// because one run's state would exceed PilotMaxBytes.
	Measured, Cached, Unmeasured int
	// Pilot is the wall time spent timing pilots.
	Pilot time.Duration
}

// CostClass is what the speed of a run depends on, by its family's cost
// model (registry.Cost.Class): runs of one class cost the same per unit
// of work.
func CostClass(r *Run) string { return r.Cost().Class }

// RunSeconds is the estimated single-core CPU time of run r: its work
// times its class's seconds per unit. It reports false when the class was
// not measured.
func (rt *Rates) RunSeconds(r *Run) (float64, bool) {
	if rt == nil {
		return 0, false
	}
	c := r.Cost()
	v, ok := rt.PerUnit[c.Class]
	return v * c.Work, ok
}

// PilotSeconds is the time a pilot is sized for at its family's model
// speed (registry.Algorithm.Pilot): about a tenth of a second, enough to
// time the kernels well above timer and start-up noise; pilots of every
// class of a plan take seconds, not a run's time.
const PilotSeconds = 0.1

// PilotMaxBytes bounds the memory of a pilot: a class whose run state
// (registry.Cost.Bytes) exceeds it is not timed (its runs take the cost
// model's time), so that `run plan` allocates no more than this.
const PilotMaxBytes = 1 << 30

// pilotOf is the run that times r's class: its family's pilot of about
// PilotSeconds at the model's speed.
func pilotOf(r *Run) registry.RunSpec {
	c := r.Cost()
	return r.entry().Pilot(r.Spec, c.Rate*PilotSeconds)
}

// MeasureRates times a short pilot of every cost class of the plan's runs
// still to do (those not done in scan; nil: all) that is not in the cache
// file (cache "" means no cache; remeasure times every such class again
// and replaces its cached figure), running each pilot
// twice and keeping the faster (the first warms the shared instance), one
// at a time so that the figure is one core's, timed in CPU time of the
// pilot's thread where the platform reports it (pilotClock: other
// processes on the machine do not inflate it). A pilot is its family's
// (registry.Algorithm.Pilot), bounded in time (PilotSeconds at the
// model's speed) and memory (PilotMaxBytes: a class whose runs need more
// is not timed). New figures are added to the cache, which is keyed by
// the machine (CPU model, kernels, Go version, program revision): a cached
// figure is never used on another machine or build. sim nil runs each
// pilot by its algorithm's NewRun.
func (p *Plan) MeasureRates(ctx context.Context, scan *outputs.Scan, cache string, remeasure bool, sim SimulateFunc) (*Rates, error) {
	start := p.wallNow()
	rt := &Rates{PerUnit: map[string]float64{}, SimPerUnit: map[string]float64{}, StreamPerSiloRound: map[string]float64{}, PrepPerSiloRound: map[string]float64{}}
	stored, err := readRateCache(cache)
	if err != nil {
		return nil, err
	}
	machine := machineKey()
	added := false
	done := map[string]bool{}
	if scan != nil {
		for _, f := range scan.Runs {
			done[f.Record.RunID] = f.Record.Status == outputs.StatusDone
		}
	}
	skipped := map[string]bool{}
	for i := range p.Runs {
		r := &p.Runs[i]
		if done[r.ID] {
			continue // Estimate does not time done runs
		}
		cost := r.Cost()
		class := cost.Class
		if _, ok := rt.PerUnit[class]; ok || skipped[class] {
			continue
		}
		if sc := StreamClass(r); sc != "" {
			// A run that can share its stream: one pilot, as a group of
			// one, times its simulation and its stream apart.
			keys := [4]string{cacheKey(machine, class), cacheKey(machine, "sim "+class), cacheKey(machine, sc), cacheKey(machine, "prep "+sc)}
			var v [4]float64
			cached := !remeasure
			for j, k := range keys {
				var ok bool
				v[j], ok = stored[k]
				cached = cached && ok
			}
			if cached {
				rt.Cached++
			} else if cost.Bytes > PilotMaxBytes {
				skipped[class] = true
				rt.Unmeasured++
				continue
			} else {
				sp, err := p.measureShared(ctx, r, sim)
				if err != nil {
					return nil, fmt.Errorf("timing pilot of %s: %w", r.Group, err)
				}
				// Per silo-round to per unit of work (the class's work per
				// silo-round is constant).
				perUnit := float64(r.Silos()) * float64(r.Rounds()) / max(cost.Work, 1)
				v = [4]float64{(sp.sim + sp.stream) * perUnit, sp.sim * perUnit, sp.stream, sp.prep}
				for j, k := range keys {
					stored[k] = v[j]
				}
				rt.Measured++
				added = true
			}
			rt.PerUnit[class], rt.SimPerUnit[class] = v[0], v[1]
			if _, ok := rt.StreamPerSiloRound[sc]; !ok {
				rt.StreamPerSiloRound[sc], rt.PrepPerSiloRound[sc] = v[2], v[3]
			}
			continue
		}
		if v, ok := stored[cacheKey(machine, class)]; ok && !remeasure {
			rt.PerUnit[class] = v
			rt.Cached++
			continue
		}
		if cost.Bytes > PilotMaxBytes {
			skipped[class] = true
			rt.Unmeasured++
			continue
		}
		pilot := pilotOf(r)
		run := sim
		if run == nil {
			run = r.entry().NewRun
		}
		best := 0.0
		for try := 0; try < 2; try++ {
			d, err := p.pilotClock(func() error { _, err := run(ctx, pilot); return err })
			if err != nil {
				return nil, fmt.Errorf("timing pilot of %s: %w", r.Group, err)
			}
			if try == 0 || d < best {
				best = d
			}
		}
		v := best / max(r.entry().Cost(pilot).Work, 1)
		rt.PerUnit[class] = v
		stored[cacheKey(machine, class)] = v
		rt.Measured++
		added = true
	}
	if added && cache != "" {
		if err := writeRateCache(cache, stored); err != nil {
			return nil, err
		}
	}
	rt.Pilot = p.wallNow().Sub(start)
	return rt, nil
}

// DefaultRateCache is the cache file of measured rates:
// $XDG_CACHE_HOME/fedbandit/rates.json or the platform's equivalent ("" if
// there is no cache directory).
func DefaultRateCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "fedbandit", "rates.json")
}

// rateCache is the cache file's content: seconds per unit of work (per
// silo-round for a stream's class) by cacheKey(machine, class).
type rateCache struct {
	Version int                `json:"version"`
	Rates   map[string]float64 `json:"seconds_per_unit"`
}

// Version 2: CPU time of the pilot's thread (version 1 held wall times).
// Version 3: seconds per unit of the family's work (version 2 held
// seconds per silo-round).
const rateCacheVersion = 3

func readRateCache(path string) (map[string]float64, error) {
	out := map[string]float64{}
	if path == "" {
		return out, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, cacheError(err)
	}
	var c rateCache
	if err := json.Unmarshal(b, &c); err != nil || c.Version != rateCacheVersion {
		// A damaged or older cache is only a cache: measure again.
		return out, nil
	}
	for k, v := range c.Rates {
		if v > 0 {
			out[k] = v
		}
	}
	return out, nil
}

func writeRateCache(path string, rates map[string]float64) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return cacheError(err)
	}
	b, err := json.MarshalIndent(rateCache{Version: rateCacheVersion, Rates: rates}, "", " ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, append(b, '\n')); err != nil {
		return cacheError(err)
	}
	return nil
}

// cacheError is an error of the rate cache, with what to do about it
// (attack round 3, U16: an unwritable cache stopped run plan and run
// sweep with no word of --rate).
func cacheError(err error) error {
	return fmt.Errorf("rate cache: %w (the cache of measured speeds: make its directory writable, set XDG_CACHE_HOME to a writable directory, or give --rate to skip the timing pilots)", err)
}

func cacheKey(machine, class string) string {
	sum := sha256.Sum256([]byte(machine + "\x00" + class))
	return hex.EncodeToString(sum[:16])
}

// machineKey identifies what a measured speed is valid for: the CPU
// model, the kernels in use, the OS and architecture, the Go version and
// the program's revision.
func machineKey() string {
	return strings.Join([]string{cpuModel("/proc/cpuinfo"), registry.Kernels(), runtime.GOOS, runtime.GOARCH, runtime.Version(), buildinfo.Read().Revision}, "|")
}

// cpuModel is the "model name" of cpuinfo, a file in the format of
// Linux's /proc/cpuinfo (empty if there is none).
func cpuModel(cpuinfo string) string {
	f, err := os.Open(cpuinfo)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
