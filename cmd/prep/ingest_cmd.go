package main

import (
	"compress/gzip"
	"context"
	"fmt"
	"github.com/alecthomas/kong"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/fedbandit/fedbandit/ingest"
)

// IngestCmd is `prep ingest`: LETOR / MSLR-WEB text to a validated dataset
// directory (documents.parquet + manifest.json).
type IngestCmd struct {
	Inputs []string `arg:"" name:"INPUT" help:"Files (plain or .gz, or Parquet files: see --label-column), an MSLR-WEB directory (Fold1..5/{train,vali,test}.txt), a LETOR 4.0 directory (S1..S5.txt, Fold*/), or the original MSLR-WEB10K.zip / MSLR-WEB30K.zip (read in place). Read in the order given."`
	Out    string   `required:"" short:"o" placeholder:"DATASET_DIR" help:"Dataset directory to create. It appears complete or not at all."`
	Force  bool     `help:"Replace an existing DATASET_DIR written by prep ingest, once the new one is complete; its fitted theta* (instances/) and partitions (partitions/) go with it, and are listed first. Refused when DATASET_DIR holds files prep did not write, is a results directory of run, or contains an input."`

	Fold  string   `placeholder:"FoldN" help:"Fold of a directory or zip layout (Fold1..Fold5). Default: Fold1 for MSLR-WEB; the partitions S1..S5 for LETOR 4.0."`
	Parts []string `sep:"," placeholder:"PART" help:"Files of the layout: train,vali,test (of --fold; default all three), or S1..S5 for LETOR 4.0 without --fold (default all five). The defaults read every query exactly once."`

	LabelMax    *int `placeholder:"N" help:"Largest allowed label, 1 <= N <= 65536. Default: 4 for MSLR-WEB (136 features), 2 for LETOR 4.0 (46 features), 4 otherwise."`
	Features    *int `placeholder:"N" help:"Number of feature columns f1..fN, 1 <= N <= 32764 (documents.parquet holds at most 32,768 columns, four of them qid, doc, label and part). Default: the largest index on the first data line; larger indices later are errors."`
	Lenient     bool `help:"Skip bad lines instead of stopping at the first; their count and first examples go into manifest.json."`
	AllowRagged bool `help:"Accept MSLR-WEB / LETOR 4.0 lines with fewer features than the format's 136 / 46 (zero-filled); their count and first examples go into manifest.json as ragged_rows. Without it such a line is an error."`
	Workers     *int `placeholder:"N" help:"Parser goroutines, 1 <= N <= 1024 (default: number of CPUs)."`

	LabelColumn    *string    `placeholder:"NAME" help:"Parquet input: the label column (default label)."`
	QIDColumn      *string    `name:"qid-column" placeholder:"NAME" help:"Parquet input: the query id column (default qid)."`
	FeatureColumns columnList `placeholder:"NAME,..." help:"Parquet input: the feature columns, in order, or one list column (default f1..fN, else the one list column)."`
}

// Validate checks the flags as given (kong calls it after parsing): an
// explicit 0 is a value, never the default.
func (c *IngestCmd) Validate() error {
	for _, in := range c.Inputs {
		if err := checkText("<INPUT>", in); err != nil {
			return err
		}
	}
	for _, t := range []struct{ flag, v string }{{"--out", c.Out}, {"--fold", c.Fold}} {
		if err := checkText(t.flag, t.v); err != nil {
			return err
		}
	}
	if err := checkColumn("--label-column", c.LabelColumn); err != nil {
		return err
	}
	if err := checkColumn("--qid-column", c.QIDColumn); err != nil {
		return err
	}
	for _, name := range c.FeatureColumns.names {
		if err := checkColumn("--feature-columns", &name); err != nil {
			return err
		}
	}
	if c.Fold != "" && !ingest.ValidFold(c.Fold) {
		return fmt.Errorf("--fold %q: want Fold1..Fold5", c.Fold)
	}
	for _, p := range c.Parts {
		if !ingest.ValidPart(p) {
			return fmt.Errorf("--parts %q: want train, vali, test (MSLR-WEB, LETOR with --fold) or S1..S5 (LETOR 4.0)", p)
		}
	}
	if err := checkOptInt("--label-max", c.LabelMax, 1, maxLabel, "the largest relevance label"); err != nil {
		return err
	}
	if err := checkOptInt("--features", c.Features, 1, maxFeatures, "feature columns"); err != nil {
		return err
	}
	return checkOptInt("--workers", c.Workers, 1, maxWorkers, "parser goroutines")
}

// Help is shown by `prep ingest --help` after the flags.
func (c *IngestCmd) Help() string {
	return `Each input line is "<label> qid:<id> <i>:<v> ... [# comment]". Lines are
validated strictly: a bad label, qid, feature index or value, a qid that
reappears after other queries, empty input, or a truncated .gz/.zip stops
the run with an error naming the file, line and field and quoting the bad
token (use --lenient to skip bad lines instead). An MSLR-WEB or LETOR 4.0
line with fewer features than the format's 136 / 46 is an error too (a cut
or edited line), unless --allow-ragged. CRLF line ends, trailing
blanks and comments are normal input; LETOR 4.0 comments such as
"#docid = GX008-86-4444840 inc = 1 prob = 0.086622" become typed columns.

A Parquet input (one row per document) has a label, a query id and the
features as columns f1..fN or as one list column; name them with
--label-column, --qid-column and --feature-columns where they are called
otherwise. Other columns are kept (numbers as double, strings), a STRING
column "part" gives each row's part. The same rows give the same dataset
(data_sha256) as from text.

Output (same input => byte-identical output):
  DATASET_DIR/documents.parquet  qid, doc, label, part, f1..fN (double), comment columns
  DATASET_DIR/manifest.json      sources with sha256, counts, label histogram,
                                 per-feature min/max/mean/zero fraction, data_sha256 (identity), documents_sha256

Examples:
  prep ingest ~/data/MSLR-WEB10K.zip --out data/mslr10k
  prep ingest ~/data/MQ2008 --out data/mq2008
  prep ingest ~/data/MSLR-WEB10K --fold Fold2 --parts train --out data/f2train
  prep synth --out /tmp/synth.txt && prep ingest /tmp/synth.txt --out data/synth
  prep ingest ranking.parquet --feature-columns embedding --out data/mine

See datasets.md for the datasets, the Parquet schema and the manifest fields.`
}

// Run executes `prep ingest`.
func (c *IngestCmd) Run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := ingest.Options{
		Inputs:      c.Inputs,
		Out:         c.Out,
		Force:       c.Force,
		Lenient:     c.Lenient,
		AllowRagged: c.AllowRagged,
		Fold:        c.Fold,
		Parts:       c.Parts,
		LabelMax:    optInt(c.LabelMax),
		Features:    optInt(c.Features),
		Workers:     optInt(c.Workers),

		LabelColumn:    optString(c.LabelColumn),
		QIDColumn:      optString(c.QIDColumn),
		FeatureColumns: c.FeatureColumns.names,
	}
	// A bar on a terminal; plain log lines (progress every few seconds and
	// a summary) otherwise, e.g. in CI or when stderr goes to a file.
	if isTerminal(os.Stderr) {
		opts.Progress = os.Stderr
	} else {
		opts.Log = slog.Default()
	}
	if c.Force {
		if drops := ingest.ForceDrops(c.Out); len(drops) > 0 {
			fmt.Fprintf(os.Stderr, "--force: replacing %s also drops its %d fitted theta* and partition files once the new dataset is complete (re-run prep fit and prep partition afterwards):\n  %s\n",
				c.Out, len(drops), strings.Join(drops, "\n  "))
		}
	}
	m, err := ingest.Run(ctx, opts)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d rows, %d queries, %d features, labels %v, data_sha256 %s\n",
		c.Out, m.Rows, m.Queries, m.Features, m.LabelHistogram, m.DataHash)
	if m.Ragged != nil && m.Ragged.Count > 0 {
		fmt.Printf("accepted %d ragged lines, zero-filled (see ragged_rows in manifest.json)\n", m.Ragged.Count)
	}
	if m.Skipped.Count > 0 {
		fmt.Printf("skipped %d bad lines (see manifest.json)\n", m.Skipped.Count)
	}
	return nil
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// SynthCmd is `prep synth`: MSLR-WEB10K-shaped text for scale tests.
type SynthCmd struct {
	Out      string  `short:"o" placeholder:"FILE" help:"Output file (.gz compresses); default: standard output. Written to a temp file and renamed."`
	Seed     uint64  `default:"1" help:"Seed of the generated data (same seed => same bytes; every uint64, 0 included, is a seed)."`
	Queries  int     `default:"10000" help:"Number of queries, 1 <= N <= 10^7 (MSLR-WEB10K: 10,000)."`
	MeanDocs float64 `default:"120" help:"Target mean documents per query, 1 <= mean <= --max-docs."`
	MaxDocs  int     `default:"908" help:"Largest documents per query, 1 <= N <= 10^6 (one query has exactly this many, one exactly 1)."`
	FirstQID int64   `name:"first-qid" default:"1" help:"qid of the first query, >= 1 (use distinct ranges to build train/vali/test files)."`
	Force    bool    `help:"Overwrite an existing output file."`
}

// Validate checks the flags as given (kong calls it after parsing).
func (c *SynthCmd) Validate() error {
	if err := checkText("--out", c.Out); err != nil {
		return err
	}
	if err := checkInt("--queries", c.Queries, 1, maxQueries, "queries to write"); err != nil {
		return err
	}
	if err := checkInt("--max-docs", c.MaxDocs, 1, maxDocs, "documents of the largest query"); err != nil {
		return err
	}
	if !(c.MeanDocs >= 1 && c.MeanDocs <= float64(c.MaxDocs)) {
		return fmt.Errorf("--mean-docs %v: want 1 <= mean <= --max-docs %d", c.MeanDocs, c.MaxDocs)
	}
	if c.FirstQID < 1 || c.FirstQID > maxFirstQID-int64(c.Queries) {
		return fmt.Errorf("--first-qid %d: want 1 <= qid <= %d", c.FirstQID, maxFirstQID-int64(c.Queries))
	}
	return nil
}

// Help is shown by `prep synth --help` after the flags.
func (c *SynthCmd) Help() string {
	return `Writes "label qid:N 1:v ... 136:v " lines with CRLF ends, like MSLR-WEB10K's
Fold1/train.txt: labels 0-4 with MSLR's skew (~51.5/32/13/2.5/1 %), integer
term counts and stream lengths, BM25 and negative LMIR floats, large
PageRank-like integers. The default size (10,000 queries, ~1.2M rows, about
1.2 GB) matches MSLR-WEB10K for benchmarks.

Example:
  prep synth --out /tmp/mslr-synth.txt && prep ingest /tmp/mslr-synth.txt --out /tmp/mslr-synth`
}

// Run executes `prep synth`.
func (c *SynthCmd) Run() error {
	opts := ingest.SynthOptions{Seed: c.Seed, Queries: c.Queries, MeanDocs: c.MeanDocs, MaxDocs: c.MaxDocs, FirstQID: c.FirstQID}
	if c.Out == "" {
		return ingest.Synth(os.Stdout, opts)
	}
	if _, err := os.Stat(c.Out); err == nil && !c.Force {
		return fmt.Errorf("synth: %s already exists (use --force to overwrite)", c.Out)
	}
	f, err := os.CreateTemp(filepath.Dir(c.Out), "."+filepath.Base(c.Out)+".tmp-")
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	defer os.Remove(f.Name())
	var w io.Writer = f
	var gz io.WriteCloser
	if filepath.Ext(c.Out) == ".gz" {
		gz = newGzipWriter(f)
		w = gz
	}
	if err := ingest.Synth(w, opts); err != nil {
		f.Close()
		return err
	}
	if gz != nil {
		if err := gz.Close(); err != nil {
			f.Close()
			return fmt.Errorf("synth: %w", err)
		}
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("synth: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	if err := os.Rename(f.Name(), c.Out); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	slog.Info("synth done", "out", c.Out, "queries", c.Queries, "seed", c.Seed)
	return nil
}

// newGzipWriter compresses synth output written to a .gz file.
func newGzipWriter(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) }

// columnList is the value of --feature-columns: column names separated by
// commas. Given with an empty value it holds one empty name (an error in
// Validate), never nothing, which would mean the default columns.
type columnList struct {
	names []string
}

// Decode reads one --feature-columns value (kong.MapperValue); a repeated
// flag adds its names.
func (l *columnList) Decode(ctx *kong.DecodeContext) error {
	var s string
	if err := ctx.Scan.PopValueInto("NAME,...", &s); err != nil {
		return err
	}
	l.names = append(l.names, strings.Split(s, ",")...)
	return nil
}
