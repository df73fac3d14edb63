// Command prep prepares learning-to-rank datasets for fedbandit: it converts
// LETOR / MSLR-WEB text to validated Parquet (ingest), generates
// MSLR-WEB10K-shaped data for scale tests (synth), fits the lasso that gives a
// bandit instance its theta* (fit), and splits queries across silos
// (partition). `prep all` does ingest, fit and partition in one go.
//
// Run `prep --help` or `prep COMMAND --help` for details.
package main

import (
	"io"
	"os"

	"github.com/alecthomas/kong"

	"github.com/fedbandit/fedbandit/internal/buildinfo"
	"github.com/fedbandit/fedbandit/internal/cliconv"
)

// cli is the command tree. Each command's type lives in its own file:
// ingest_cmd.go (ingest, synth) and fit_cmd.go (fit, partition, all).
type cli struct {
	Verbose bool             `help:"Log debug detail." short:"v"`
	Version kong.VersionFlag `help:"Print this build's version and VCS revision, and exit."`

	Ingest    IngestCmd    `cmd:"" help:"Convert LETOR / MSLR-WEB text (plain, .gz, directory or the original .zip) into DATASET_DIR/documents.parquet and manifest.json."`
	Synth     SynthCmd     `cmd:"" help:"Write MSLR-WEB10K-shaped text (seeded) for scale tests and benchmarks."`
	Fit       FitCmd       `cmd:"" help:"Fit the lasso that gives a bandit instance its theta* and write it into the dataset directory."`
	Partition PartitionCmd `cmd:"" help:"Split a dataset's queries across M silos and write the partition into the dataset directory."`
	All       AllCmd       `cmd:"" help:"Ingest, fit and partition in one go."`
	Verify    VerifyCmd    `cmd:"" help:"Check a dataset directory: documents.parquet against the manifest's documents_sha256, every theta and partition artifact against its own content hash."`
}

func main() { os.Exit(prepMain(os.Args[1:], os.Stderr)) }

// newParser builds the command-line parser of prep over c; opts come
// after the program's own (tests redirect the output and the exit).
func newParser(c *cli, opts ...kong.Option) (*kong.Kong, error) {
	return kong.New(c, append([]kong.Option{
		kong.Name("prep"),
		kong.Description("Prepare learning-to-rank datasets and bandit instances for fedbandit."),
		kong.Vars{"version": buildinfo.Read().String()},
	}, opts...)...)
}

// prepMain runs the command line args, reporting errors on stderr, and
// returns the exit status: 0, 1
// for an error, 2 for a usage error (cliconv).
func prepMain(args []string, stderr io.Writer) int {
	var c cli
	k, err := newParser(&c)
	if err != nil {
		panic(err) // the grammar is the program's own
	}
	kctx, status, ok := cliconv.Start(k, args, stderr, &c.Verbose)
	if !ok {
		return status
	}
	if err := kctx.Run(); err != nil {
		return cliconv.Report(stderr, k, kctx, err)
	}
	return 0
}
