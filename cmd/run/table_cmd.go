package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/fedbandit/fedbandit/outputs/figure"
)

// TableCmd is `run table`.
type TableCmd struct {
	Dir      string `arg:"" type:"existingdir" help:"Sweep output directory holding runs.arrow and curves.arrow."`
	At       []int  `help:"Rounds to tabulate, each >= 1 and a checkpoint of some configuration (default: the last round)."`
	Metric   string `help:"Regret: pseudo or realised (as the published code)." enum:"pseudo,realised" default:"pseudo"`
	Markdown bool   `help:"Print a Markdown table (for docs) instead of aligned text."`
}

// Validate checks the rounds.
func (c *TableCmd) Validate() error {
	for _, t := range c.At {
		if t < 1 {
			return fmt.Errorf("--at %d: want a round >= 1", t)
		}
	}
	return nil
}

// Run prints the time-average regret of every configuration at the
// requested rounds, mean +- standard error over seeds.
func (c *TableCmd) Run() error {
	return writeTable(os.Stdout, c.Dir, c.At, c.Metric, c.Markdown)
}

func writeTable(w io.Writer, dir string, at []int, metric string, markdown bool) error {
	runs, curves, err := readTables(dir)
	if err != nil {
		return err
	}
	series, err := figure.Build(runs, curves, metric)
	if err != nil {
		return err
	}
	if len(series) == 0 {
		return fmt.Errorf("%s: no done run", dir)
	}
	if len(at) == 0 {
		r := series[0].Rounds
		at = []int{int(r[len(r)-1])}
	}
	checkpoint := map[int]bool{}
	last := 0
	for _, s := range series {
		for _, r := range s.Rounds {
			checkpoint[int(r)] = true
			last = max(last, int(r))
		}
	}
	for _, t := range at {
		if !checkpoint[t] {
			return fmt.Errorf("--at %d: no configuration has a checkpoint at round %d (the last round is %d; checkpoints every `every` rounds, see runs.arrow)", t, t, last)
		}
	}
	head := []string{"configuration", "runs"}
	for _, t := range at {
		head = append(head, "t = "+strconv.Itoa(t))
	}
	rows := [][]string{head}
	for _, s := range series {
		row := []string{s.Label, strconv.Itoa(s.N)}
		for _, t := range at {
			cell := "-"
			for k, r := range s.Rounds {
				if int(r) == t {
					cell = meanSE(s.Mean[k], s.SE[k], s.N, "±")
				}
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	if markdown {
		for i, r := range rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
			if i == 0 {
				fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(r)))
			}
		}
	} else {
		width := make([]int, len(head))
		for _, r := range rows {
			for j, c := range r {
				width[j] = max(width[j], len([]rune(c)))
			}
		}
		for _, r := range rows {
			for j, c := range r {
				fmt.Fprintf(w, "%-*s  ", width[j], c)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintf(w, "\ntime-average %s regret R_M(t)/t summed over the silos, mean ± standard error over seeds (\"-\": t is not a checkpoint of that configuration; n=1: one seed, no standard error).\n", metric)
	return nil
}

// meanSE formats a mean over n seeds with its standard error (pm is the
// plus-minus sign); one seed has no standard error and says so instead
// of showing "± 0".
func meanSE(mean, se float64, n int, pm string) string {
	if n < 2 {
		return fmt.Sprintf("%.4g (n=%d, no SE)", mean, n)
	}
	return fmt.Sprintf("%.4g %s %.2g", mean, pm, se)
}
