package main

import (
	"errors"
	"fmt"

	"github.com/fedbandit/fedbandit/internal/cliconv"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/runner"
)

// ExportCmd is `run export`.
type ExportCmd struct {
	Dir string `arg:"" type:"existingdir" help:"Results directory (a sweep's or the main job's --out) holding runs.arrow and curves.arrow."`
	CSV bool   `help:"Write DIR/runs.csv and DIR/curves.csv (the one format so far; required)."`
}

// Help explains the export.
func (c *ExportCmd) Help() string {
	return `Writes CSV copies of a results directory's tables beside them, for a reader
with neither Arrow nor Parquet support (pandas without pyarrow, as on a Debian 12
Python: pandas.read_feather and read_parquet need pyarrow there).

DIR/runs.csv and DIR/curves.csv have the columns of runs.arrow and curves.arrow
(outputs/README.md), a header line, and one line per row: null is an empty cell,
booleans true/false, floats in the shortest form that reads back exactly, a list
column (silo_pseudo_regret) a JSON array. The tables are checked first (one
collect's pair, this build's layout); both copies are written to temporary files
and renamed only when both are complete. Only a directory run wrote (it holds
the .fedbandit-results marker) is written into. A later collect (or sweep)
removes the copies, which no longer match: export again.

Examples:

    run export fedbandit-quickstart --csv
    python3 -c 'import pandas as pd; print(pd.read_csv("fedbandit-quickstart/runs.csv").head())'`
}

// Validate asks for a format.
func (c *ExportCmd) Validate() error {
	if !c.CSV {
		return errors.New("say the format: --csv (the only one so far)")
	}
	return nil
}

// Run writes the CSV copies.
func (c *ExportCmd) Run() error {
	if err := runner.CheckOwned(c.Dir); err != nil {
		return cliconv.Usage(fmt.Errorf("%s: not a results directory (it has no %s marker, which run puts in every --out it writes): "+
			"export reads the tables of a sweep's or the main job's output directory and writes its copies only there", c.Dir, runner.ResultsMarker))
	}
	paths, err := outputs.ExportCSV(c.Dir)
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Printf("csv:    %s\n", p)
	}
	fmt.Printf("Load them with pandas: pd.read_csv(%q), pd.read_csv(%q)\n", paths[0], paths[1])
	return nil
}
