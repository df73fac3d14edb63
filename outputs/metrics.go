package outputs

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/suggest"
)

// Metric is one curve metric: what `run plot --metric` and `run table
// --metric` show, read from one column of curves.arrow. Metrics declares
// every one; the commands, their help and the table's footnote read it.
//
// A metric is either derived here from the regret curve every run has
// (derive set), or produced by a family: its code reports the value at
// each checkpoint in core.Checkpoint.Metrics under Column, and the value is
// stored as is (null for the runs that do not produce it, and for runs
// recorded before the metric existed). A new family metric is the family's
// code plus one entry here, with Since the layout it appears in: no
// command edit (docs/extending.md, "A curve metric").
type Metric struct {
	Name     string   // the --metric value, e.g. "pseudo"
	Column   string   // its curves.arrow column
	Unit     string   // unit of the column
	Label    string   // axis label
	Head     string   // `run table`'s column head for the value at t
	File     string   // base name of `run plot`'s files (DIR/<File>.png)
	Footnote string   // what `run table` says the numbers are
	Families []string // the families that produce it (nil: every family)
	Doc      string   // the column's documentation
	// Since is the layout (FormatVersion) it first appeared in: every
	// run recorded in that layout or a later one by a family that
	// produces it has it, a run recorded in an older layout has null.
	// Comparisons of an older directory with a fresh sweep hold modulo
	// the metrics newer than the run (Point.Modulo).
	Since int
	// derive computes the value from a curve row (nil for a family's
	// metric, read from Point.Metrics).
	derive func(c *CurvePoint) float64
}

// Metrics is the table of curve metrics; the first is the default.
var Metrics = []Metric{
	{Name: "pseudo", Column: "time_avg_pseudo_regret", Unit: "reward/round",
		Label: "Time-average regret", Head: "R(t)/t", File: "regret",
		Footnote: "time-average pseudo regret R(t)/t",
		Since:    1,
		derive:   func(c *CurvePoint) float64 { return c.TimeAvgPseudo }},
	{Name: "realised", Column: "time_avg_realised_regret", Unit: "reward/round",
		Label: "Time-average regret (realised)", Head: "R(t)/t", File: "regret-realised",
		Footnote: "time-average realised regret R(t)/t (observed rewards, as the published code)",
		Since:    1,
		derive:   func(c *CurvePoint) float64 { return c.TimeAvgRealised }},
	{Name: "communication", Column: core.ScalarsSentColumn, Unit: "scalars",
		Label: "Scalars sent to the server", Head: "scalars sent", File: "communication",
		Footnote: "cumulative scalars sent to the server up to t (runs.arrow's scalars at T), summed over the silos or users",
		Doc:      "Cumulative scalars sent to the server up to t, as the run's counters count them (runs.arrow's scalars at T): recorded by core.Drive for every family.",
		Since:    4},
}

// Regret reports whether the metric is derived from the regret curve
// every run has (its footnote is then completed by each family's words
// for whose regret R(t) sums, registry.Family.Regret).
func (m Metric) Regret() bool { return m.derive != nil }

// MetricNames returns the --metric values, the default first.
func MetricNames() []string {
	n := make([]string, len(Metrics))
	for i, m := range Metrics {
		n[i] = m.Name
	}
	return n
}

// LookupMetric returns the metric called name ("" is the default), or an
// error listing them.
func LookupMetric(name string) (Metric, error) {
	if name == "" {
		return Metrics[0], nil
	}
	for _, m := range Metrics {
		if m.Name == name {
			return m, nil
		}
	}
	return Metric{}, fmt.Errorf("unknown metric %q%s (the metrics: %s)", name, suggest.DidYouMean(name, MetricNames()), strings.Join(MetricNames(), ", "))
}

// Value returns the metric of a curve row, false when it is null (the
// run's family does not produce it).
func (m Metric) Value(c *CurvePoint) (float64, bool) {
	if m.derive != nil {
		return m.derive(c), true
	}
	v, ok := c.Metrics[m.Column]
	return v, ok
}

// RecordedIn reports whether runs recorded in layout have the metric
// (when their family produces it).
func (m Metric) RecordedIn(layout int) bool { return layout >= m.Since }

// Modulo returns c without the curve metrics newer than layout (those a
// run recorded in that layout cannot have): a checkpoint of a fresh
// sweep compared with the same run's in an older directory.
func (c Point) Modulo(layout int) Point {
	for _, m := range Metrics {
		if _, ok := c.Metrics[m.Column]; ok && !m.RecordedIn(layout) {
			c.Metrics = maps.Clone(c.Metrics)
			delete(c.Metrics, m.Column)
		}
	}
	if len(c.Metrics) == 0 {
		c.Metrics = nil
	}
	return c
}

// Lacking counts the done runs (those with a curve) that lack the
// metric: before, recorded in a layout older than the metric; other,
// of a family that does not produce it (or recorded without it). The
// commands say so, as the runs are left out of the curves and tables.
func (m Metric) Lacking(runs []RunRecord, curves []CurvePoint) (before, other int) {
	first := map[string]*CurvePoint{}
	for i := range curves {
		if _, ok := first[curves[i].RunID]; !ok {
			first[curves[i].RunID] = &curves[i]
		}
	}
	for _, r := range runs {
		c := first[r.RunID]
		if r.Status != StatusDone || c == nil {
			continue
		}
		if _, ok := m.Value(c); ok {
			continue
		}
		if m.RecordedIn(r.FormatVersion) {
			other++
		} else {
			before++
		}
	}
	return before, other
}

// LackingText says how many done runs lack the metric and why, "" when
// none does.
func (m Metric) LackingText(runs []RunRecord, curves []CurvePoint) string {
	before, other := m.Lacking(runs, curves)
	var why []string
	if before > 0 {
		why = append(why, fmt.Sprintf("%d recorded before layout %d, where it first appears (sweep again into a new directory to have it)", before, m.Since))
	}
	switch {
	case other > 0 && m.Families == nil:
		why = append(why, fmt.Sprintf("%d recorded without it", other))
	case other > 0:
		why = append(why, fmt.Sprintf("%d of a family that does not produce it (it is produced by %s)", other, m.FamiliesText()))
	}
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf("%d done run(s) lack metric %s (%s) and are left out: %s", before+other, m.Name, m.Column, strings.Join(why, "; "))
}

// ProducedBy reports whether runs of family produce the metric.
func (m Metric) ProducedBy(family string) bool {
	return m.Families == nil || slices.Contains(m.Families, family)
}

// FamiliesText says which families produce the metric.
func (m Metric) FamiliesText() string {
	if m.Families == nil {
		return "every family"
	}
	return strings.Join(m.Families, ", ")
}

// column is the curves.arrow column of a family's metric.
func (m Metric) column() Column[CurvePoint] {
	col := m.Column
	return withCodec(Column[CurvePoint]{Name: col, Unit: m.Unit, Applies: m.FamiliesText(), Doc: m.Doc,
		get: func(c *CurvePoint) any {
			v, ok := c.Metrics[col]
			if !ok {
				return (*float64)(nil)
			}
			return &v
		},
		set: func(c *CurvePoint, v any) {
			if c.Metrics == nil {
				c.Metrics = map[string]float64{}
			}
			c.Metrics[col] = *v.(*float64)
		}})
}
