// Package prepare runs the preparation pipeline of a dataset directory:
// ingest (documents.parquet, manifest.json), lasso fits (theta*
// artifacts) and partitions of the queries across silos. `prep all`, the
// main job's dataset cache and the tests use it, so the sequence, its reuse
// rules and its lock are written once.
package prepare

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/fedbandit/fedbandit/features"
	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/internal/dirlock"
	"github.com/fedbandit/fedbandit/lasso"
	"github.com/fedbandit/fedbandit/partition"
)

// Partition names one partition to write.
type Partition struct {
	Strategy string // partition.Contiguous (default when empty), ...
	Silos    int    // M
	Seed     uint64 // seed of the random strategy
}

// Options configure Run.
type Options struct {
	// Inputs are the text inputs (as for ingest.Run). They may be empty
	// when Out already holds the dataset.
	Inputs []string
	// Out is the dataset directory.
	Out string
	// Force re-ingests even when Out holds a dataset made from Inputs (it
	// is replaced only if it holds nothing but what prep writes).
	Force bool
	// Cache marks Out as a cache the caller owns (the main job's): a
	// dataset that is damaged (documents.parquet against its manifest) or
	// was made from other inputs is deleted and rebuilt instead of being
	// reported, and valid theta and partition artifacts are reused instead
	// of being made again.
	Cache bool
	// Fits are the lasso fits to make.
	Fits []lasso.FitOptions
	// Partitions are the partitions to write.
	Partitions []Partition
	// Log receives progress lines; nil: discarded.
	Log *slog.Logger
}

// Result is what Run did.
type Result struct {
	Manifest *ingest.Manifest
	// Ingested is true when the dataset was (re)built by this call.
	Ingested bool
	// Thetas are the theta* of Options.Fits, in order (fitted or reused).
	Thetas []*lasso.Theta
	// Partitions are the partitions of Options.Partitions, in order, and
	// PartitionPaths their artifact files.
	Partitions     []*partition.Partition
	PartitionPaths []string
}

// Run prepares o.Out. It holds an exclusive lock (the file .<base>.lock
// beside Out) for the whole preparation, so that concurrent preparations
// of the same directory run one after the other and the later one reuses
// what the first made.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Out == "" {
		return nil, errors.New("prepare: no dataset directory given")
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	out := filepath.Clean(o.Out)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	unlock, err := dirlock.Lock(filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".lock"), true)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	defer unlock()

	res := &Result{}
	if res.Manifest, res.Ingested, err = dataset(ctx, o, out, log); err != nil {
		return nil, err
	}
	man := res.Manifest
	for _, f := range o.Fits {
		th, err := fit(ctx, out, man, f, o.Cache, log)
		if err != nil {
			return nil, err
		}
		res.Thetas = append(res.Thetas, th)
	}
	for _, p := range o.Partitions {
		if p.Strategy == "" {
			p.Strategy = partition.Contiguous
		}
		path := partition.ArtifactPath(out, p.Strategy, p.Silos, p.Seed)
		if o.Cache {
			if a, err := partition.ReadArtifact(path); err == nil && a.DatasetSHA256 == man.DataHash {
				res.Partitions = append(res.Partitions, &a.Partition)
				res.PartitionPaths = append(res.PartitionPaths, path)
				continue
			}
		}
		part, _, err := partition.ForDataset(out, p.Strategy, p.Silos, p.Seed)
		if err != nil {
			return nil, err
		}
		if path, err = partition.WriteArtifact(out, man.DataHash, part); err != nil {
			return nil, err
		}
		res.Partitions = append(res.Partitions, part)
		res.PartitionPaths = append(res.PartitionPaths, path)
	}
	return res, nil
}

// dataset reuses or (re)builds the ingested dataset in out.
func dataset(ctx context.Context, o Options, out string, log *slog.Logger) (*ingest.Manifest, bool, error) {
	man, err := ingest.ReadManifest(out)
	switch {
	case err == nil && !o.Force:
		why := ""
		if len(o.Inputs) > 0 {
			if why, err = ingest.Stale(out, ingest.Options{Inputs: o.Inputs}); err != nil {
				return nil, false, err
			}
		}
		if why == "" && o.Cache {
			if _, err := ingest.Verify(out); err != nil {
				why = err.Error()
			}
		}
		if why == "" {
			log.Info("reusing the prepared dataset", "dir", out)
			return man, false, nil
		}
		if !o.Cache {
			return nil, false, fmt.Errorf("%s was not made from these inputs: %s (use --force or force = true to re-ingest)", out, why)
		}
		log.Warn("rebuilding the cached dataset", "dir", out, "why", why)
	case err != nil && !errors.Is(err, fs.ErrNotExist) && !o.Cache:
		return nil, false, fmt.Errorf("prepare: %w", err)
	}
	if len(o.Inputs) == 0 {
		return nil, false, fmt.Errorf("%s holds no prepared dataset and no inputs were given", out)
	}
	if o.Cache {
		// Out is the caller's cache: whatever is there is ours to replace.
		if err := os.RemoveAll(out); err != nil {
			return nil, false, fmt.Errorf("prepare: %w", err)
		}
	}
	if drops := ingest.ForceDrops(out); o.Force && !o.Cache && len(drops) > 0 {
		log.Warn("force: re-ingesting drops the dataset's fitted theta* and partitions once the new dataset is complete", "dir", out, "files", drops)
	}
	man, err = ingest.Run(ctx, ingest.Options{Inputs: o.Inputs, Out: out, Force: o.Force, Log: log})
	if errors.Is(err, ingest.ErrMissingColumn) {
		// R4-18: the message names prep ingest's column flags.
		return nil, false, fmt.Errorf("%w; prep all takes no column flags: run `prep ingest INPUT --label-column ... --qid-column ... --feature-columns ... --out %s` first, and prep all then reuses that dataset", err, out)
	}
	if err != nil {
		return nil, false, err
	}
	return man, true, nil
}

// fit makes (or, in a cache, reuses) the theta* artifact of f.
func fit(ctx context.Context, out string, man *ingest.Manifest, f lasso.FitOptions, reuse bool, log *slog.Logger) (*lasso.Theta, error) {
	if f.Log == nil {
		f.Log = log
	}
	if reuse {
		intercept := f.Intercept
		if f.NoIntercept {
			intercept = 0
		} else if intercept == 0 {
			intercept = features.DefaultIntercept
		}
		set, err := features.Resolve(f.Features, man.Features, intercept)
		if err != nil {
			return nil, err
		}
		th, _, err := lasso.ReadTheta(filepath.Join(out, lasso.InstancesDir, f.Stem(set.ID())+lasso.ThetaExt))
		if err == nil && th.DatasetSHA256 == man.DataHash {
			return th, nil
		}
		// A cache made before artifact names carried the settings holds
		// the fit under <set>-<model>.theta.json: replaced by the fit
		// below, so that the instance has one theta* to load.
		model := f.Model
		if model == "" {
			model = lasso.ModelReference
		}
		os.Remove(lasso.ThetaPath(out, set.ID(), model))
	}
	log.Info("fitting theta* (lasso)", "features", f.Features)
	return lasso.FitDataset(ctx, out, f)
}
