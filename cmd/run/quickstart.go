package main

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/fedbandit/fedbandit/datasets/mq2008"
	"github.com/fedbandit/fedbandit/features"
	"github.com/fedbandit/fedbandit/lasso"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/partition"
	"github.com/fedbandit/fedbandit/prepare"
	"github.com/fedbandit/fedbandit/registry"
	"github.com/fedbandit/fedbandit/runner"
)

// The main job's sweeps, one per family, run into one directory;
// {{...}} fields are filled in by quickstartPlans.
var (
	//go:embed quickstart.toml
	quickstartTOML string
	//go:embed quickstart-mab.toml
	quickstartMABTOML string
	//go:embed quickstart-bco.toml
	quickstartBCOTOML string
)

// QuickstartCmd is the main job.
type QuickstartCmd struct {
	Out     string `help:"Output directory of the sweep." default:"fedbandit-quickstart" type:"path"`
	Cache   string `help:"Where the prepared MQ2008 dataset is cached (default: the user cache directory, e.g. ~/.cache/fedbandit)." type:"path"`
	Quick   bool   `help:"Reduced size for CI: fewer rounds and seeds (a few seconds)."`
	Workers *int   `help:"Concurrent runs, 1..4096 (default: one per core)."`
}

// Validate checks the options.
func (c *QuickstartCmd) Validate() error { return checkWorkers(c.Workers) }

// Quickstart sizes.
const (
	fullRounds, fullSeeds   = 2000, 5
	quickRounds, quickSeeds = 200, 2
	quickstartSilos         = 10
	quickstartFeatures      = features.All
)

// Run prepares MQ2008, runs the sweep and plots it.
func (c *QuickstartCmd) Run(ctx context.Context) error {
	start := time.Now()
	cache := c.Cache
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return fmt.Errorf("quickstart: no cache directory (use --cache): %w", err)
		}
		cache = filepath.Join(dir, "fedbandit")
	}
	dataset, err := PrepareMQ2008(ctx, cache, quickstartSilos, slog.Default())
	if err != nil {
		return err
	}
	plans, err := quickstartPlans(dataset, c.Quick)
	if err != nil {
		return err
	}
	workers := workersOr(c.Workers, runtime.NumCPU())
	// The families' sweeps into one directory: its tables, its summary
	// (printed after the last) and its figure hold them all.
	for _, plan := range plans[:len(plans)-1] {
		s := &runner.Sweep{Plan: plan, Out: c.Out, Workers: workers, LogEvery: 10 * time.Second, Log: slog.Default()}
		if _, err := s.Execute(ctx); err != nil {
			return err
		}
	}
	if err := runSweep(ctx, plans[len(plans)-1], c.Out, workers, 10*time.Second, false, false); err != nil {
		return err
	}
	// Log y: the families' regrets differ by two orders of magnitude.
	if err := drawPlots(c.Out, plotOptions{LogY: true, Title: "MQ2008: linear, multi-armed and convex bandits"}); err != nil {
		slog.Error("plot", "err", err)
	}
	fmt.Printf("\nDone in %s. The sweep files are in %s (one per family); rerun one with\n  go run ./cmd/run sweep %s/FILE --out %s\n",
		time.Since(start).Round(time.Second), filepath.Join(c.Out, runner.ConfigsDir), filepath.Join(c.Out, runner.ConfigsDir), c.Out)
	fmt.Print(loadHint(c.Out))
	return nil
}

// loadHint is the main job's closing lines: how to load the tables of
// dir in polars, DuckDB and pandas (with pyarrow, or the CSV export
// without), and the notebook.
func loadHint(dir string) string {
	runs, curves := filepath.Join(dir, outputs.RunsFile), filepath.Join(dir, outputs.CurvesFile)
	return fmt.Sprintf(`Load the tables (runs: one row per run; curves: one row per run and checkpoint):
  polars:  import polars as pl; runs = pl.read_ipc(%[1]q); curves = pl.read_ipc(%[2]q)
  DuckDB:  SELECT * FROM %[3]s JOIN %[4]s USING (run_id)
  pandas:  import pandas as pd; runs = pd.read_feather(%[1]q)   (needs pyarrow; without it:
           go run ./cmd/run export %[5]s --csv, then pd.read_csv(%[6]q))
The notebook examples/regret.ipynb draws the curves: FEDBANDIT_SWEEP=%[5]s jupyter notebook examples/regret.ipynb
`, runs, curves, sqlString(filepath.Join(dir, outputs.CurvesParquetFile)), sqlString(filepath.Join(dir, outputs.RunsParquetFile)),
		shellQuote(dir), filepath.Join(dir, outputs.RunsCSVFile))
}

// sqlString quotes s as an SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// quickstartPlans are the main job's plans on the prepared dataset, one
// per family (linear, multi-armed, convex): the embedded sweep files at
// full size, or at CI size when quick.
func quickstartPlans(dataset string, quick bool) ([]*runner.Plan, error) {
	rounds, seeds := fullRounds, fullSeeds
	if quick {
		rounds, seeds = quickRounds, quickSeeds
	}
	fill := strings.NewReplacer(
		"{{DATASET}}", strconv.Quote(dataset),
		"{{T}}", strconv.Itoa(rounds),
		"{{SEEDS}}", strconv.Itoa(seeds),
		"{{M}}", strconv.Itoa(quickstartSilos),
		"{{FEATURES}}", strconv.Quote(quickstartFeatures),
	)
	var plans []*runner.Plan
	for _, text := range []string{quickstartTOML, quickstartMABTOML, quickstartBCOTOML} {
		cfg, err := runner.ParseConfig([]byte(fill.Replace(text)), dataset)
		if err != nil {
			return nil, fmt.Errorf("quickstart sweep: %w", err)
		}
		plan, err := runner.NewPlan(cfg, registry.Env{})
		if err != nil {
			return nil, fmt.Errorf("quickstart sweep %q: %w", cfg.Name, err)
		}
		plans = append(plans, plan)
	}
	return plans, nil
}

// PrepareMQ2008 prepares the embedded MQ2008 dataset under cache, keyed by
// the content of the embedded files, and returns the dataset directory:
// ingest (documents.parquet, manifest.json), a lasso theta* for the "all"
// feature set with alpha chosen by 5-fold cross-validation grouped by
// query, and the contiguous partition into m silos (prepare.Run in cache
// mode: valid artifacts are reused, a damaged or stale dataset is rebuilt,
// concurrent main jobs wait for each other).
func PrepareMQ2008(ctx context.Context, cache string, m int, log *slog.Logger, extra ...string) (string, error) {
	key, err := embeddedHash()
	if err != nil {
		return "", err
	}
	root := filepath.Join(cache, "mq2008-"+key[:12])
	src, err := mq2008.Extract(filepath.Join(root, "src"))
	if err != nil {
		return "", err
	}
	dataset := filepath.Join(root, "dataset")
	var fits []lasso.FitOptions
	for _, f := range append([]string{quickstartFeatures}, extra...) {
		fits = append(fits, lasso.FitOptions{
			Features: f, Model: lasso.ModelReference,
			Lasso: lasso.Options{CV: &lasso.CVOptions{Folds: lasso.DefaultFolds}},
		})
	}
	res, err := prepare.Run(ctx, prepare.Options{
		Inputs: src, Out: dataset, Cache: true, Log: log,
		Fits:       fits,
		Partitions: []prepare.Partition{{Strategy: partition.Contiguous, Silos: m}},
	})
	if err != nil {
		return "", fmt.Errorf("quickstart: prepare MQ2008 in %s (delete that directory if this persists): %w", root, err)
	}
	if man := res.Manifest; man.Queries != mq2008.Queries || man.Rows != mq2008.Rows {
		return "", fmt.Errorf("quickstart: %s holds %d queries and %d rows, want %d and %d", dataset, man.Queries, man.Rows, mq2008.Queries, mq2008.Rows)
	}
	return dataset, nil
}

// embeddedHash is the SHA-256 over the embedded partitions, the cache key
// of the prepared dataset.
func embeddedHash() (string, error) {
	h := sha256.New()
	for _, name := range mq2008.Partitions {
		b, err := mq2008.FS.ReadFile(name)
		if err != nil {
			return "", fmt.Errorf("quickstart: embedded MQ2008: %w", err)
		}
		fmt.Fprintf(h, "%s %d\n", name, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
