package outputs

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/internal/suggest"
)

// Metric is one curve metric of the gathered table (Metrics): its
// declaration (core.Metric: name, column, unit, words, Since) and the
// families that produce it, derived from who declared it. A metric is
// either derived here from the regret curve every run has (pseudo,
// realised: outputs' own), or produced by a run: core.Drive's for every
// problem (core.Metrics), or a family's, declared in its own package and
// registered by the registry with the family's name (RegisterMetrics).
// A produced metric is reported at each checkpoint in
// core.Result.Metrics under Column and stored as is (null for the runs
// that do not produce it, and for runs recorded before the metric
// existed). No command names a metric: they read this table
// (docs/extending.md, "A curve metric").
type Metric struct {
	core.Metric
	// families are the families that produce it (nil: every family);
	// derived, never declared.
	families []string
	// derive computes the value from a curve row (nil for a produced
	// metric, read from Point.Metrics).
	derive func(c *CurvePoint) float64
}

// regretMetrics are outputs' own metrics, derived from the regret curve;
// the first is the default.
var regretMetrics = []Metric{
	{Metric: core.Metric{Name: "pseudo", Column: "time_avg_pseudo_regret", Unit: "reward/round",
		Label: "Time-average regret", Head: "R(t)/t", File: "regret",
		Footnote: "time-average pseudo regret R(t)/t",
		Doc:      "The paper's time-average group regret R(t)/t, from the means of the best and the chosen actions (the default).",
		Since:    1},
		derive: func(c *CurvePoint) float64 { return c.TimeAvgPseudo }},
	{Metric: core.Metric{Name: "realised", Column: "time_avg_realised_regret", Unit: "reward/round",
		Label: "Time-average regret (realised)", Head: "R(t)/t", File: "regret-realised",
		Footnote: "time-average realised regret R(t)/t (observed rewards, as the published code)",
		Doc:      "Time-average realised regret R(t)/t, from the observed rewards (incurred losses) of the best and the chosen actions, as the published code plots it.",
		Since:    1},
		derive: func(c *CurvePoint) float64 { return c.TimeAvgRealised }},
}

// metricTable is the gathered table: regretMetrics, core.Metrics, then
// the families' metrics in the order the registry registers them.
var metricTable = struct {
	sync.Mutex
	all        []Metric
	registered []string // the families registered so far
}{all: mustGather(regretMetrics, core.Metrics)}

// mustGather returns the regret metrics and core's (every family's), or
// panics: a bad declaration of core's is a programming error found at
// start-up.
func mustGather(regret []Metric, every []core.Metric) []Metric {
	var all []Metric
	for _, m := range regret {
		if err := checkMetric(all, m); err != nil {
			panic("outputs: " + err.Error())
		}
		all = append(all, m)
	}
	all, err := gather(all, "", every)
	if err != nil {
		panic("outputs: " + err.Error())
	}
	return all
}

// Metrics returns the table of curve metrics, the default first, in a
// fixed order: pseudo, realised (derived here), core's metrics
// (core.Metrics: every family), then each family's as the registry
// registered them (RegisterMetrics). `run plot` and `run table`
// (--metric, their help), curves.arrow's metric columns (in this order),
// Point.Modulo and the figures read it.
func Metrics() []Metric {
	metricTable.Lock()
	defer metricTable.Unlock()
	return slices.Clone(metricTable.all)
}

// RegisterMetrics adds the curve metrics family declares (its package's
// list of core.Metric) to the table, as produced by that family alone.
// Package registry, which lists the families, calls it once per family at
// start-up. It panics, naming the metric and both declarers, on a
// declaration the table refuses (checkMetric): a column, name or plot
// file declared twice, an incomplete declaration, a Since above
// FormatVersion; and on a family registered twice.
func RegisterMetrics(family string, ms []core.Metric) {
	metricTable.Lock()
	defer metricTable.Unlock()
	if family == "" || slices.Contains(metricTable.registered, family) {
		panic(fmt.Sprintf("outputs: curve metrics of family %q registered twice (or without a name)", family))
	}
	all, err := gather(slices.Clone(metricTable.all), family, ms)
	if err != nil {
		panic("outputs: " + err.Error())
	}
	metricTable.all, metricTable.registered = all, append(metricTable.registered, family)
}

// gather appends the declarations ms of family ("": core's, every
// family's) to table, checking each against the table so far.
func gather(table []Metric, family string, ms []core.Metric) ([]Metric, error) {
	for _, d := range ms {
		m := Metric{Metric: d}
		if family != "" {
			m.families = []string{family}
		}
		if err := checkMetric(table, m); err != nil {
			return nil, err
		}
		table = append(table, m)
	}
	return table, nil
}

// declarer says who declared m: outputs (a regret metric), core (every
// family's) or the family.
func (m Metric) declarer() string {
	switch {
	case m.derive != nil:
		return "outputs"
	case m.families == nil:
		return "core"
	}
	return "family " + strings.Join(m.families, ", ")
}

// checkMetric refuses m, given the table before it: a declaration without
// its words, a Since outside 1..FormatVersion (a produced metric's is 3
// or later, the first layout whose curves.arrow has such columns), a
// column that is not a plain name or is one of curves.arrow's own, and a
// name, column or plot file declared twice.
func checkMetric(table []Metric, m Metric) error {
	c := m.Metric
	where := fmt.Sprintf("curve metric %q (column %q) of %s", c.Name, c.Column, m.declarer())
	if c.Name == "" || c.Column == "" || c.Unit == "" || c.Label == "" || c.Head == "" || c.File == "" || c.Footnote == "" || c.Doc == "" {
		return fmt.Errorf("%s: incomplete declaration (name, column, unit, label, head, file, footnote and doc are required)", where)
	}
	if c.Since < 1 || c.Since > FormatVersion || m.derive == nil && c.Since < 3 {
		return fmt.Errorf("%s: since layout %d, want 3..%d (this build writes layout %d; a new metric comes with the next layout)", where, c.Since, FormatVersion, FormatVersion)
	}
	if !paramKey.MatchString(c.Column) {
		return fmt.Errorf("%s: column %q, want letters, digits and _", where, c.Column)
	}
	if base := slices.ContainsFunc(curveBase, func(b Column[CurvePoint]) bool { return b.Name == c.Column }); base != (m.derive != nil) {
		return fmt.Errorf("%s: column %q is one of curves.arrow's own columns (a metric a run produces needs a column of its own)", where, c.Column)
	}
	for _, o := range table {
		for _, same := range []struct{ what, a, b string }{{"column", c.Column, o.Column}, {"name", c.Name, o.Name}, {"plot file", c.File, o.File}} {
			if same.a == same.b {
				return fmt.Errorf("%s: %s %q declared twice, by %s (metric %q) and by %s: a metric is declared once, where it is produced", where, same.what, same.a, o.declarer(), o.Name, m.declarer())
			}
		}
	}
	return nil
}

// Regret reports whether the metric is derived from the regret curve
// every run has (its footnote is then completed by each family's words
// for whose regret R(t) sums, registry.Family.Regret).
func (m Metric) Regret() bool { return m.derive != nil }

// MetricNames returns the --metric values, the default first.
func MetricNames() []string {
	all := Metrics()
	n := make([]string, len(all))
	for i, m := range all {
		n[i] = m.Name
	}
	return n
}

// LookupMetric returns the metric called name ("" is the default), or an
// error listing them.
func LookupMetric(name string) (Metric, error) {
	all := Metrics()
	if name == "" {
		return all[0], nil
	}
	for _, m := range all {
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
	for _, m := range Metrics() {
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
	case other > 0 && m.families == nil:
		why = append(why, fmt.Sprintf("%d recorded without it", other))
	case other > 0:
		why = append(why, fmt.Sprintf("%d of a family that does not produce it (it is produced by %s)", other, m.FamiliesText()))
	}
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf("%d done run(s) lack metric %s (%s) and are left out: %s", before+other, m.Name, m.Column, strings.Join(why, "; "))
}

// Families returns the families that produce the metric, nil for every
// family (a regret metric, or core's): those that registered it.
func (m Metric) Families() []string { return slices.Clone(m.families) }

// ProducedBy reports whether runs of family produce the metric.
func (m Metric) ProducedBy(family string) bool {
	return m.families == nil || slices.Contains(m.families, family)
}

// FamiliesText says which families produce the metric.
func (m Metric) FamiliesText() string {
	if m.families == nil {
		return "every family"
	}
	return strings.Join(m.families, ", ")
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

// MetricsMarkdown renders the table of curve metrics (Metrics, in its
// order) as outputs/README.md shows it under "Curve metrics": every
// declaration's words, so that the README row of a metric is its
// declaration (registry.TestMetricsDocumented holds the README to it,
// with every family's metrics registered).
func MetricsMarkdown() string {
	var b strings.Builder
	b.WriteString("| Name | Column | Families | Unit | Axis label | Table head | Plot files | Since layout | Meaning |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, m := range Metrics() {
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s | %s | `%s.*` | %d | %s |\n", cell(m.Name), m.Column, cell(m.FamiliesText()),
			cell(m.Unit), cell(m.Label), cell(m.Head), m.File, m.Since, cell(m.Doc))
	}
	return b.String()
}
