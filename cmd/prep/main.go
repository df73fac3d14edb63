// Command prep prepares learning-to-rank datasets for fedbandit: it converts
// LETOR / MSLR-WEB text to validated Parquet (ingest), generates
// MSLR-WEB10K-shaped data for scale tests (synth), fits the lasso that gives a
// bandit instance its theta* (fit), and splits queries across silos
// (partition). `prep all` does ingest, fit and partition in one go.
//
// Run `prep --help` or `prep COMMAND --help` for details.
package main

import (
	"log/slog"
	"os"

	"github.com/alecthomas/kong"
)

// cli is the command tree. Each command's type lives in its own file:
// ingest_cmd.go (ingest, synth) and fit_cmd.go (fit, partition, all).
type cli struct {
	Verbose bool `help:"Log debug detail." short:"v"`

	Ingest    IngestCmd    `cmd:"" help:"Convert LETOR / MSLR-WEB text (plain, .gz, directory or the original .zip) into DATASET_DIR/documents.parquet and manifest.json."`
	Synth     SynthCmd     `cmd:"" help:"Write MSLR-WEB10K-shaped text (seeded) for scale tests and benchmarks."`
	Fit       FitCmd       `cmd:"" help:"Fit the lasso that gives a bandit instance its theta* and write it into the dataset directory."`
	Partition PartitionCmd `cmd:"" help:"Split a dataset's queries across M silos and write the partition into the dataset directory."`
	All       AllCmd       `cmd:"" help:"Ingest, fit and partition in one go."`
	Verify    VerifyCmd    `cmd:"" help:"Check a dataset directory: documents.parquet against the manifest's documents_sha256, every theta and partition artifact against its own content hash."`
}

func main() {
	var c cli
	ctx := kong.Parse(&c,
		kong.Name("prep"),
		kong.Description("Prepare learning-to-rank datasets and bandit instances for fedbandit."),
		kong.UsageOnError(),
	)
	level := slog.LevelInfo
	if c.Verbose {
		level = slog.LevelDebug
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	ctx.FatalIfErrorf(ctx.Run())
}
