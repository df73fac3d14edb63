package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/outputs/figure"
	"github.com/fedbandit/fedbandit/registry"
)

// TableCmd is `run table`.
type TableCmd struct {
	Dir      string `arg:"" type:"existingdir" help:"Sweep output directory holding runs.arrow and curves.arrow."`
	At       []int  `help:"Rounds to tabulate, each >= 1 and a checkpoint of some configuration (default: each configuration at its own last round, shown in a column t)."`
	Metric   string `help:"Curve metric, by name (outputs.Metrics, listed in outputs/README.md): pseudo, realised (as the published code), or a metric a family produces." default:"pseudo"`
	Over     string `help:"What a row averages over: seed (one row per configuration, mean and standard error over its seeds) or instance (as run plot --over instance: one row per instance class, eps and configuration, mean over the instances of each instance's seed mean, standard error over instances)." enum:"seed,instance" default:"seed"`
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
	return writeTable(os.Stdout, c.Dir, c.At, c.Metric, c.Over, c.Markdown)
}

func writeTable(w io.Writer, dir string, at []int, metric, over string, markdown bool) error {
	m, err := outputs.LookupMetric(metric)
	if err != nil {
		return fmt.Errorf("--metric: %w", err)
	}
	runs, curves, err := readTables(dir)
	if err != nil {
		return err
	}
	var series []figure.Series
	if over == figure.OverInstance {
		panels, err := figure.BuildOverInstances(runs, curves, metric)
		if err != nil {
			return err
		}
		for _, p := range panels {
			for _, s := range p.Series {
				if p.Title != "" {
					s.Label = p.Title + ": " + s.Label
				}
				series = append(series, s)
			}
		}
	} else {
		var err error
		if series, err = figure.Build(runs, curves, metric); err != nil {
			return err
		}
	}
	if len(series) == 0 {
		return fmt.Errorf("%s: no done run", dir)
	}
	own := len(at) == 0 // each configuration at its own last round (a sweep over T has several)
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
	if over == figure.OverInstance {
		head[1] = "instances (runs)"
	}
	for _, t := range at {
		head = append(head, "t = "+strconv.Itoa(t))
	}
	if own {
		head = append(head, "t (last round)", m.Head)
	}
	rows := [][]string{head}
	for _, s := range series {
		row := []string{s.Label, strconv.Itoa(s.N)}
		n := s.N
		if over == figure.OverInstance {
			row[1] = fmt.Sprintf("%d (%d)", s.Instances, s.N)
			n = s.Instances
		}
		for _, t := range at {
			cell := "-"
			for k, r := range s.Rounds {
				if int(r) == t {
					cell = meanSE(s.Mean[k], s.SE[k], n, "±")
				}
			}
			row = append(row, cell)
		}
		if own {
			k := len(s.Rounds) - 1
			row = append(row, strconv.Itoa(int(s.Rounds[k])), meanSE(s.Mean[k], s.SE[k], n, "±"))
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
	footnote := m.Footnote
	if m.Regret() {
		footnote += " " + regretWords(runs)
	}
	if lack := m.LackingText(runs, curves); lack != "" {
		fmt.Fprintf(w, "\n%s.", lack)
	}
	if over == figure.OverInstance {
		fmt.Fprintf(w, "\n%s, mean over instances of each instance's mean over seeds ± standard error over instances (\"-\": t is not a checkpoint of that configuration; n=1: one instance, no standard error).\n", footnote)
		return nil
	}
	fmt.Fprintf(w, "\n%s, mean ± standard error over seeds (\"-\": t is not a checkpoint of that configuration; n=1: one seed, no standard error).\n", footnote)
	return nil
}

// regretWords says whose regret the rows' R(t) sums, in each family's
// words (registry.Family.Regret), the family named when several are
// present.
func regretWords(runs []outputs.RunRecord) string {
	present := map[string]bool{}
	for _, r := range runs {
		f := r.Family
		if a, err := registry.Lookup(r.Algorithm); err == nil {
			f = a.Family
		}
		present[f] = true
	}
	var words []registry.Family
	for _, f := range registry.Families() {
		if present[f.Name] {
			words = append(words, f)
		}
	}
	if len(words) == 1 {
		return words[0].Regret
	}
	out := make([]string, len(words))
	for i, f := range words {
		out[i] = f.Name + ": " + f.Regret
	}
	return "(" + strings.Join(out, "; ") + ")"
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
