package outputs

import (
	"fmt"
	"slices"
	"strings"

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
// code plus one entry here: no new layout, no command edit
// (docs/extending.md, "A curve metric").
type Metric struct {
	Name     string   // the --metric value, e.g. "pseudo"
	Column   string   // its curves.arrow column
	Unit     string   // unit of the column
	Label    string   // axis label
	Footnote string   // what `run table` says the numbers are
	Families []string // the families that produce it (nil: every family)
	Doc      string   // the column's documentation
	// derive computes the value from a curve row (nil for a family's
	// metric, read from Point.Metrics).
	derive func(c *CurvePoint) float64
}

// Metrics is the table of curve metrics; the first is the default.
var Metrics = []Metric{
	{Name: "pseudo", Column: "time_avg_pseudo_regret", Unit: "reward/round",
		Label:    "Time-average regret",
		Footnote: "time-average pseudo regret R(t)/t",
		derive:   func(c *CurvePoint) float64 { return c.TimeAvgPseudo }},
	{Name: "realised", Column: "time_avg_realised_regret", Unit: "reward/round",
		Label:    "Time-average regret (realised)",
		Footnote: "time-average realised regret R(t)/t (observed rewards, as the published code)",
		derive:   func(c *CurvePoint) float64 { return c.TimeAvgRealised }},
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
