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
	"runtime/debug"
	"strings"
	"time"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/internal/atomicfile"
	"github.com/fedbandit/fedbandit/outputs"
)

// Rates are the measured speeds of this machine: the CPU seconds of one
// silo-round (one silo playing one round, its share of synchronisations
// included) for each cost class of a plan. A run costs M T times its
// class's figure: a run's work per silo-round does not depend on T, the
// seed or the privacy budget, only on what CostClass keeps.
type Rates struct {
	// PerSiloRound maps CostClass to seconds per silo-round.
	PerSiloRound map[string]float64
	// SimPerSiloRound maps the CostClass of runs that can share their
	// context stream to their seconds per silo-round without it, and
	// StreamPerSiloRound and PrepPerSiloRound map StreamClass to the
	// seconds per silo-round of drawing the stream and of preparing its
	// instance (streamcost.go; PerSiloRound is then simulation plus
	// stream).
	SimPerSiloRound, StreamPerSiloRound, PrepPerSiloRound map[string]float64
	// Measured and Cached count the classes timed by this call and those
	// read from the cache.
	Measured, Cached int
	// Pilot is the wall time spent timing pilots.
	Pilot time.Duration
}

// CostClass is what the speed of a run depends on: the algorithm and its
// learner and protocol, the instance (kind, content, d, actions per
// round), the number of silos and the batch size. Runs of one class cost
// the same per silo-round.
func CostClass(r *Run) string {
	if g := r.Generic; g != nil {
		// Other families: the algorithm, its parameters, the instance and
		// M (a mab round's work does not depend on eps: its batches do).
		return fmt.Sprintf("%s params=%v instance=%.16s M=%d", g.Algorithm, g.Params, r.Instance.Hash, g.M)
	}
	s := r.Spec
	return fmt.Sprintf("%s lazy=%t protocol=%s instance=%.16s d=%d actions=%g M=%d B=%d gram=%s",
		s.Algorithm, s.Lazy, s.Protocol, r.Instance.Hash, r.Instance.Dim, r.Instance.Actions, s.M, s.B, s.GramNoise)
}

// RunSeconds is the estimated single-core CPU time of run r: M T times
// its class's seconds per silo-round. It reports false when the class was
// not measured.
func (rt *Rates) RunSeconds(r *Run) (float64, bool) {
	if rt == nil {
		return 0, false
	}
	v, ok := rt.PerSiloRound[CostClass(r)]
	return v * float64(r.Silos()) * float64(r.Rounds()), ok
}

// pilotMadds is the work of one pilot, in the M T K d^2 of RunMadds:
// about 0.1 s on a current core, enough to time the kernels well above
// timer and start-up noise.
const pilotMadds = 4e8

// pilotSpec is the run that times r's class: r's spec over fewer rounds
// (at least two batches when T allows, at most T, a multiple of B when
// T is), with its batch cut to the pilot's length if needed.
func pilotSpec(r *Run) federate.Spec {
	s := r.Spec
	perRound := RunMadds(r) / float64(s.T)
	rounds := int(pilotMadds / max(perRound, 1))
	rounds = max(rounds, min(2*s.B, s.T), 8)
	rounds = min(rounds, s.T)
	s.B = min(s.B, rounds)
	if s.T%s.B == 0 {
		// Keep T a multiple of B where the run has it (sdp-vec needs it).
		rounds -= rounds % s.B
	}
	s.T = rounds
	s.Every = rounds
	s.Calib = nil
	return s
}

// MeasureRates times a short pilot of every cost class of the plan's runs
// still to do (those not done in scan; nil: all) that is not in the cache
// file (cache "" means no cache; remeasure times every such class again
// and replaces its cached figure), running each pilot
// twice and keeping the faster (the first warms the shared instance), one
// at a time so that the figure is one core's, timed in CPU time of the
// pilot's thread where the platform reports it (pilotClock: other
// processes on the machine do not inflate it). New figures are added to
// the cache, which is keyed by the machine (CPU model, kernels, Go
// version, program revision): a cached figure is never used on another
// machine or build. sim nil means federate.Run.
func (p *Plan) MeasureRates(ctx context.Context, scan *outputs.Scan, cache string, remeasure bool, sim SimulateFunc) (*Rates, error) {
	if sim == nil {
		sim = federate.Run
	}
	start := p.wallNow()
	rt := &Rates{PerSiloRound: map[string]float64{}, SimPerSiloRound: map[string]float64{}, StreamPerSiloRound: map[string]float64{}, PrepPerSiloRound: map[string]float64{}}
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
	for i := range p.Runs {
		r := &p.Runs[i]
		if done[r.ID] {
			continue // Estimate does not time done runs
		}
		if sc := StreamClass(r); sc != "" {
			// A run that can share its stream: one pilot, as a group of
			// one, times its simulation and its stream apart.
			class := CostClass(r)
			if _, ok := rt.PerSiloRound[class]; ok {
				continue
			}
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
			} else {
				sp, err := p.measureShared(ctx, r, sim)
				if err != nil {
					return nil, fmt.Errorf("timing pilot of %s: %w", r.Group, err)
				}
				v = [4]float64{sp.sim + sp.stream, sp.sim, sp.stream, sp.prep}
				for j, k := range keys {
					stored[k] = v[j]
				}
				rt.Measured++
				added = true
			}
			rt.PerSiloRound[class], rt.SimPerSiloRound[class] = v[0], v[1]
			if _, ok := rt.StreamPerSiloRound[sc]; !ok {
				rt.StreamPerSiloRound[sc], rt.PrepPerSiloRound[sc] = v[2], v[3]
			}
			continue
		}
		class := CostClass(r)
		if _, ok := rt.PerSiloRound[class]; ok {
			continue
		}
		if v, ok := stored[cacheKey(machine, class)]; ok && !remeasure {
			rt.PerSiloRound[class] = v
			rt.Cached++
			continue
		}
		if r.Generic != nil {
			v, err := p.measureGeneric(ctx, r)
			if err != nil {
				return nil, fmt.Errorf("timing pilot of %s: %w", r.Group, err)
			}
			rt.PerSiloRound[class] = v
			stored[cacheKey(machine, class)] = v
			rt.Measured++
			added = true
			continue
		}
		s := pilotSpec(r)
		best := 0.0
		for try := 0; try < 2; try++ {
			d, err := p.pilotClock(func() error { _, err := sim(ctx, s); return err })
			if err != nil {
				return nil, fmt.Errorf("timing pilot of %s: %w", r.Group, err)
			}
			if try == 0 || d < best {
				best = d
			}
		}
		v := best / (float64(s.M) * float64(s.T))
		rt.PerSiloRound[class] = v
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

// rateCache is the cache file's content: seconds per silo-round by
// cacheKey(machine, class).
type rateCache struct {
	Version int                `json:"version"`
	Rates   map[string]float64 `json:"seconds_per_silo_round"`
}

// Version 2: CPU time of the pilot's thread (version 1 held wall times).
const rateCacheVersion = 2

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
	var settings []debug.BuildSetting
	if bi, ok := debug.ReadBuildInfo(); ok {
		settings = bi.Settings
	}
	return strings.Join([]string{cpuModel("/proc/cpuinfo"), federate.Kernels(), runtime.GOOS, runtime.GOARCH, runtime.Version(), revision(settings)}, "|")
}

// revision is the program's vcs.revision among its build settings
// ("unknown" without one).
func revision(settings []debug.BuildSetting) string {
	rev := "unknown"
	for _, s := range settings {
		if s.Key == "vcs.revision" {
			rev = s.Value
		}
	}
	return rev
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
