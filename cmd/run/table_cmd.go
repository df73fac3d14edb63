package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/fedbandit/fedbandit/internal/cliconv"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/outputs/figure"
	"github.com/fedbandit/fedbandit/registry"
)

// TableCmd is `run table`.
type TableCmd struct {
	Dir      string `arg:"" type:"existingdir" help:"Sweep output directory holding runs.arrow and curves.arrow."`
	At       []int  `help:"Rounds to tabulate, each >= 1 and a checkpoint of some configuration (default: each configuration at its own last round, shown in a column t)."`
	Metric   string `help:"Curve metric, by name (listed below, with their columns and meanings): pseudo, realised (as the published code), or another metric the runs produce." default:"pseudo"`
	Over     string `help:"What a row averages over: seed (one row per configuration, mean and standard error over its seeds) or instance (as run plot --over instance: one row per instance class, eps and configuration, mean over the instances of each instance's seed mean, standard error over instances)." enum:"seed,instance" default:"seed"`
	Format   string `help:"Output format: text (aligned columns), markdown (for docs), csv or json (for a program or a notebook: one row per configuration and round, numbers unrounded, null where a value does not apply)." enum:"text,markdown,csv,json" default:"text"`
	Markdown bool   `help:"Same as --format markdown."`
}

// Help explains the table and its formats.
func (c *TableCmd) Help() string {
	return `Each row is a configuration (the runs that differ only in their seed): how many
runs it averages, its trust model, whether every run of it is certified, the
(eps, delta)-DP target its runs were calibrated to (target_eps, target_delta:
the smallest over its runs, which share one), the (eps, delta) its noise
delivers (the largest over its runs; "not stated" when the accountant states
none, calibration_note says why), and the metric's mean ± standard error over seeds
at the rounds asked for. With --over instance the rows pool the instances that
differ only in their seed (the privacy columns are then left out).

csv and json hold the same as one row per configuration and round, with the
columns configuration, group_id (as in runs.arrow), runs, instances, trust,
certified, target_eps, target_delta, delivered_eps, delivered_delta, metric, t,
mean and se: numbers
unrounded, null (an empty csv cell) where a value does not apply (se for one
seed; instances with --over seed; group_id and privacy with --over instance),
for a program: pandas.read_csv, polars.read_csv, json.load.

Examples:

    run table results/fig3a --at 1000,5000,10000
    run table results/fig3a --metric realised --format markdown
    run table results/mab-fig4 --over instance --at 1000000
    run table fedbandit-quickstart --format csv > table.csv

` + metricsHelp()
}

// Validate checks the rounds, the metric and the format.
func (c *TableCmd) Validate() error {
	for _, t := range c.At {
		if t < 1 {
			return fmt.Errorf("--at %d: want a round >= 1", t)
		}
	}
	if _, err := outputs.LookupMetric(c.Metric); err != nil {
		return fmt.Errorf("--metric: %w", err)
	}
	if c.Markdown && c.Format != formatText && c.Format != formatMarkdown {
		return fmt.Errorf("--markdown with --format %s: give one of them", c.Format)
	}
	return nil
}

// The output formats of run table.
const (
	formatText     = "text"
	formatMarkdown = "markdown"
	formatCSV      = "csv"
	formatJSON     = "json"
)

// Run prints the time-average regret of every configuration at the
// requested rounds, mean +- standard error over seeds.
func (c *TableCmd) Run() error {
	format := c.Format
	if c.Markdown {
		format = formatMarkdown
	}
	return writeTable(os.Stdout, c.Dir, c.At, c.Metric, c.Over, format)
}

// tableConfig is one row of run table: a configuration, its privacy and
// its metric at the tabulated rounds.
type tableConfig struct {
	series figure.Series
	// privacy is false with --over instance, whose rows pool
	// configurations.
	privacy        bool
	trust          string
	certified      bool
	targetEps      *float64
	targetDelta    *float64
	deliveredEps   *float64
	deliveredDelta *float64
}

// privacyOf summarises the privacy of the runs of one configuration:
// its trust model, whether every run is certified, the smallest target
// eps and delta (its runs share one) and the largest delivered eps and
// delta (nil when no run has one).
func privacyOf(runs []outputs.RunRecord) tableConfig {
	c := tableConfig{privacy: true, certified: len(runs) > 0}
	for i, r := range runs {
		if i == 0 {
			c.trust = r.Trust
		} else if r.Trust != c.trust {
			c.trust = "mixed"
		}
		c.certified = c.certified && r.Certified
		c.targetEps = pick(c.targetEps, r.TargetEps, func(a, b float64) bool { return a < b })
		c.targetDelta = pick(c.targetDelta, r.TargetDelta, func(a, b float64) bool { return a < b })
		c.deliveredEps = maxPtr(c.deliveredEps, r.DeliveredEps)
		c.deliveredDelta = maxPtr(c.deliveredDelta, r.DeliveredDelta)
	}
	return c
}

// maxPtr is the larger of two optional values (nil: absent).
func maxPtr(a, b *float64) *float64 {
	return pick(a, b, func(a, b float64) bool { return a > b })
}

// pick is b when a is absent or b is better than a, else a (nil: absent).
func pick(a, b *float64, better func(b, a float64) bool) *float64 {
	if a == nil || (b != nil && better(*b, *a)) {
		return b
	}
	return a
}

func writeTable(w io.Writer, dir string, at []int, metric, over, format string) error {
	m, err := outputs.LookupMetric(metric)
	if err != nil {
		return cliconv.Usage(fmt.Errorf("--metric: %w", err))
	}
	runs, curves, err := readTables(dir)
	if err != nil {
		return err
	}
	var configs []tableConfig
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
				configs = append(configs, tableConfig{series: s})
			}
		}
	} else {
		series, err := figure.Build(runs, curves, metric)
		if err != nil {
			return err
		}
		byGroup := map[string][]outputs.RunRecord{}
		for _, r := range runs {
			if r.Status == outputs.StatusDone {
				byGroup[r.GroupID] = append(byGroup[r.GroupID], r)
			}
		}
		for _, s := range series {
			c := privacyOf(byGroup[s.GroupID])
			c.series = s
			configs = append(configs, c)
		}
	}
	if len(configs) == 0 {
		return fmt.Errorf("%s: no done run", dir)
	}
	checkpoint := map[int]bool{}
	last := 0
	for _, c := range configs {
		for _, r := range c.series.Rounds {
			checkpoint[int(r)] = true
			last = max(last, int(r))
		}
	}
	for _, t := range at {
		if !checkpoint[t] {
			return cliconv.Usage(fmt.Errorf("--at %d: no configuration has a checkpoint at round %d (the last round is %d; checkpoints every `every` rounds, see runs.arrow)", t, t, last))
		}
	}
	switch format {
	case formatCSV, formatJSON:
		return writeTableRecords(w, configs, at, m, over, format)
	}
	writeTableText(w, configs, at, m, over, format == formatMarkdown)
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
	fmt.Fprintf(w, "\n%s, mean ± standard error over seeds (\"-\": t is not a checkpoint of that configuration; n=1: one seed, no standard error). "+
		"certified: every run of the configuration is; target: the (eps, delta)-DP target its runs were calibrated to; delivered: the largest (eps, delta) its runs' noise delivers.\n", footnote)
	return nil
}

// writeTableText writes the aligned text or Markdown table: one row per
// configuration, one column per round asked for (or its last round).
func writeTableText(w io.Writer, configs []tableConfig, at []int, m outputs.Metric, over string, markdown bool) {
	own := len(at) == 0 // each configuration at its own last round (a sweep over T has several)
	head := []string{"configuration", "runs"}
	if over == figure.OverInstance {
		head[1] = "instances (runs)"
	} else {
		head = append(head, "trust", "certified", "target (eps, delta)", "delivered (eps, delta)")
	}
	for _, t := range at {
		head = append(head, "t = "+strconv.Itoa(t))
	}
	if own {
		head = append(head, "t (last round)", m.Head)
	}
	rows := [][]string{head}
	for _, c := range configs {
		s := c.series
		row := []string{s.Label, strconv.Itoa(s.N)}
		n := s.N
		if over == figure.OverInstance {
			row[1] = fmt.Sprintf("%d (%d)", s.Instances, s.N)
			n = s.Instances
		} else {
			row = append(row, c.trust, yesNo(c.certified), c.pairText(c.targetEps, c.targetDelta), c.pairText(c.deliveredEps, c.deliveredDelta))
		}
		for _, t := range at {
			cell := "-"
			if k := roundIndex(s, t); k >= 0 {
				cell = meanSE(s.Mean[k], s.SE[k], n, "±")
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
		return
	}
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

// roundIndex is the index of round t among s's checkpoints, -1 if t is
// not one.
func roundIndex(s figure.Series, t int) int {
	for k, r := range s.Rounds {
		if int(r) == t {
			return k
		}
	}
	return -1
}

// yesNo renders a boolean cell.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// pairText renders the configuration's target or delivered (eps,
// delta): "no noise" for a non-private configuration, "not stated" for a
// private one that has none (a delivered guarantee its accountant states
// not: its calibration_note says why).
func (c tableConfig) pairText(eps, delta *float64) string {
	switch {
	case c.trust == "none":
		return "no noise"
	case eps == nil && delta == nil:
		return "not stated"
	}
	f := func(v *float64) string {
		if v == nil {
			return "null"
		}
		return strconv.FormatFloat(*v, 'g', 4, 64)
	}
	return f(eps) + ", " + f(delta)
}

// tableRecord is one row of run table's csv and json output: one
// configuration at one round. Pointers are null where a value does not
// apply (group_id and privacy with --over instance, whose rows pool
// configurations; instances with --over seed; se for one seed).
type tableRecord struct {
	Configuration  string   `json:"configuration"`
	GroupID        *string  `json:"group_id"`
	Runs           int      `json:"runs"`
	Instances      *int     `json:"instances"`
	Trust          *string  `json:"trust"`
	Certified      *bool    `json:"certified"`
	TargetEps      *float64 `json:"target_eps"`
	TargetDelta    *float64 `json:"target_delta"`
	DeliveredEps   *float64 `json:"delivered_eps"`
	DeliveredDelta *float64 `json:"delivered_delta"`
	Metric         string   `json:"metric"`
	T              int      `json:"t"`
	Mean           float64  `json:"mean"`
	SE             *float64 `json:"se"`
}

// tableColumns are the csv header, in tableRecord's order.
var tableColumns = []string{"configuration", "group_id", "runs", "instances", "trust", "certified",
	"target_eps", "target_delta", "delivered_eps", "delivered_delta", "metric", "t", "mean", "se"}

// tableRecords are the rows of the csv and json output: every
// configuration at every round of at that is one of its checkpoints (at
// its last round when at is empty).
func tableRecords(configs []tableConfig, at []int, m outputs.Metric, over string) []tableRecord {
	var out []tableRecord
	for _, c := range configs {
		s := c.series
		idx := []int{len(s.Rounds) - 1}
		if len(at) > 0 {
			idx = idx[:0]
			for _, t := range at {
				if k := roundIndex(s, t); k >= 0 {
					idx = append(idx, k)
				}
			}
		}
		for _, k := range idx {
			r := tableRecord{Configuration: s.Label, Runs: s.N, Metric: m.Name, T: int(s.Rounds[k]), Mean: s.Mean[k]}
			n := s.N
			if over == figure.OverInstance {
				inst := s.Instances
				r.Instances, n = &inst, inst
			} else {
				id := s.GroupID
				r.GroupID = &id
			}
			if n >= 2 {
				se := s.SE[k]
				r.SE = &se
			}
			if c.privacy {
				trust, cert := c.trust, c.certified
				r.Trust, r.Certified, r.DeliveredEps, r.DeliveredDelta = &trust, &cert, c.deliveredEps, c.deliveredDelta
				r.TargetEps, r.TargetDelta = c.targetEps, c.targetDelta
			}
			out = append(out, r)
		}
	}
	return out
}

// writeTableRecords writes the rows as csv (a header, empty cells for
// null) or as a json array of objects.
func writeTableRecords(w io.Writer, configs []tableConfig, at []int, m outputs.Metric, over, format string) error {
	recs := tableRecords(configs, at, m, over)
	if format == formatJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if recs == nil {
			recs = []tableRecord{}
		}
		return enc.Encode(recs)
	}
	cw := csv.NewWriter(w)
	cw.Write(tableColumns)
	num := func(v *float64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'g', -1, 64)
	}
	for _, r := range recs {
		group, inst, trust, cert := "", "", "", ""
		if r.GroupID != nil {
			group = *r.GroupID
		}
		if r.Instances != nil {
			inst = strconv.Itoa(*r.Instances)
		}
		if r.Trust != nil {
			trust, cert = *r.Trust, strconv.FormatBool(*r.Certified)
		}
		cw.Write([]string{r.Configuration, group, strconv.Itoa(r.Runs), inst, trust, cert,
			num(r.TargetEps), num(r.TargetDelta), num(r.DeliveredEps), num(r.DeliveredDelta), r.Metric, strconv.Itoa(r.T), num(&r.Mean), num(r.SE)})
	}
	cw.Flush()
	return cw.Error()
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
