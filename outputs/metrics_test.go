package outputs_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/outputs"
)

// sampleMetric is a complete declaration of a metric called name, stored
// in column col, first recorded in layout since.
func sampleMetric(name, col string, since int) core.Metric {
	return core.Metric{Name: name, Column: col, Unit: "u", Label: name + " label", Head: name + " head", File: name,
		Footnote: name + " footnote", Doc: name + " doc", Since: since}
}

// refusal returns what RegisterMetrics panicked with ("" if it did not).
func refusal(family string, ms ...core.Metric) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	outputs.RegisterMetrics(family, ms)
	return ""
}

// TestMetricsDeclared: the gathered table is outputs' regret metrics,
// then core's (core.Metrics, every family), then the families' in the
// order they register, each family's metrics produced by that family
// alone (derived from who registers them, never declared). A declaration
// the table cannot hold is refused at registration, naming the metric and
// both declarers: the same column (or name, or plot file) from two
// packages, an incomplete declaration, a Since above FormatVersion (or a
// stored metric's below 3, the first layout with such columns), a column
// of curves.arrow's own, and a family registered twice; the table is left
// as it was. Mutation controls (tried 2026-12-02): checkMetric without
// its Since bound, or without the column comparison, fails the cases
// below.
func TestMetricsDeclared(t *testing.T) {
	outputs.FreshMetrics(t)
	names := outputs.MetricNames()
	want := []string{"pseudo", "realised"}
	for _, m := range core.Metrics {
		want = append(want, m.Name)
	}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("metrics %v, want %v (regret metrics, then core's)", names, want)
	}
	for _, m := range outputs.Metrics() {
		if m.Families() != nil || m.FamiliesText() != "every family" {
			t.Errorf("metric %s: produced by %v, want every family", m.Name, m.Families())
		}
	}

	outputs.RegisterMetrics("mab", []core.Metric{sampleMetric("best-arm", "best_arm_fraction", outputs.FormatVersion)})
	outputs.RegisterMetrics("bco", []core.Metric{sampleMetric("steps", "step_size", 3)})
	got := outputs.MetricNames()
	if !reflect.DeepEqual(got, append(want, "best-arm", "steps")) {
		t.Errorf("metrics %v after two families registered, want %v then best-arm, steps", got, want)
	}
	m, err := outputs.LookupMetric("best-arm")
	if err != nil || !reflect.DeepEqual(m.Families(), []string{"mab"}) || !m.ProducedBy("mab") || m.ProducedBy("bco") || m.Regret() {
		t.Errorf("best-arm: %v, produced by %v", err, m.Families())
	}

	for _, c := range []struct {
		family string
		m      core.Metric
		want   string
	}{
		{"linear", sampleMetric("comm2", core.ScalarsSentColumn, 4), `column "scalars_sent" declared twice, by core (metric "communication") and by family stand-in comm2`},
		{"linear", sampleMetric("other", "best_arm_fraction", 4), `column "best_arm_fraction" declared twice, by family mab (metric "best-arm") and by family stand-in other`},
		{"linear", sampleMetric("best-arm", "best2", 4), `name "best-arm" declared twice`},
		{"linear", func() core.Metric { m := sampleMetric("x", "x_col", 4); m.File = "regret"; return m }(), `plot file "regret" declared twice, by outputs (metric "pseudo")`},
		{"linear", sampleMetric("later", "later_col", outputs.FormatVersion+1), fmt.Sprintf("since layout %d, want 3..%d", outputs.FormatVersion+1, outputs.FormatVersion)},
		{"linear", sampleMetric("early", "early_col", 2), "since layout 2"},
		{"linear", func() core.Metric { m := sampleMetric("x", "x_col", 4); m.Doc = ""; return m }(), "incomplete declaration"},
		{"linear", sampleMetric("t2", "syncs", 4), `column "syncs" is one of curves.arrow's own`},
		{"linear", sampleMetric("bad", "bad col", 4), `column "bad col", want letters`},
		{"mab", sampleMetric("again", "again_col", 4), `family "mab" registered twice`},
	} {
		// A stand-in family of its own for each case: a mutant that
		// accepts one does not turn the next into "registered twice".
		family := c.family
		if family == "linear" {
			family = fmt.Sprintf("stand-in %s", c.m.Name)
		}
		msg := refusal(family, c.m)
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s registering %+v: refused with %q, want %q", family, c.m, msg, c.want)
		}
	}
	if got := outputs.MetricNames(); !reflect.DeepEqual(got, append(want, "best-arm", "steps")) {
		t.Errorf("a refused registration changed the table: %v", got)
	}
}

// TestMetricSince: a run recorded in a layout older than a metric lacks
// it by construction. Point.Modulo drops from a fresh checkpoint exactly
// the metrics newer than a layout (and leaves the point it was given
// alone); Lacking and LackingText tell the runs recorded before the
// metric from those of a family that does not produce it. Mutation
// control: RecordedIn as layout > Since fails it (tried 2026-12-02).
func TestMetricSince(t *testing.T) {
	outputs.FreshMetrics(t)
	outputs.RegisterMetrics("mab", []core.Metric{sampleMetric("old", "old_col", 3)})
	if err := outputs.RegisterEveryFamilyMetrics(t, sampleMetric("fresh", "fresh_col", outputs.FormatVersion)); err != nil {
		t.Fatal(err)
	}
	old, _ := outputs.LookupMetric("old")
	fresh, _ := outputs.LookupMetric("fresh")
	newest := outputs.FormatVersion

	p := outputs.Point{Round: 10, Pseudo: 1, Metrics: map[string]float64{"old_col": 1, "fresh_col": 2, "unknown": 3}}
	for layout, want := range map[int]map[string]float64{
		2:          {"unknown": 3},
		3:          {"old_col": 1, "unknown": 3},
		newest - 1: {"old_col": 1, "unknown": 3},
		newest:     {"old_col": 1, "fresh_col": 2, "unknown": 3},
	} {
		got := p.Modulo(layout)
		if !reflect.DeepEqual(got.Metrics, want) || got.Round != 10 || got.Pseudo != 1 {
			t.Errorf("modulo layout %d: %+v, want metrics %v", layout, got, want)
		}
	}
	if len(p.Metrics) != 3 {
		t.Errorf("Modulo changed its receiver's metrics: %v", p.Metrics)
	}
	if q := (outputs.Point{Metrics: map[string]float64{"fresh_col": 2}}).Modulo(newest - 1); q.Metrics != nil {
		t.Errorf("a point left with no metric: %v, want nil (as read from a file)", q.Metrics)
	}

	run := func(id string, layout int, status string) outputs.RunRecord {
		return outputs.RunRecord{RunID: id, FormatVersion: layout, Status: status}
	}
	point := func(id string, metrics map[string]float64) outputs.CurvePoint {
		return outputs.CurvePoint{RunID: id, Point: outputs.Point{Round: 1, Metrics: metrics}}
	}
	runs := []outputs.RunRecord{run("a", newest-1, outputs.StatusDone), run("b", newest, outputs.StatusDone), run("c", newest, outputs.StatusDone),
		run("d", 2, outputs.StatusFailed), run("e", newest-1, outputs.StatusDone)}
	curves := []outputs.CurvePoint{point("a", nil), point("b", map[string]float64{"fresh_col": 1}), point("c", nil), point("e", nil), point("e", nil)}
	if before, other := fresh.Lacking(runs, curves); before != 2 || other != 1 {
		t.Errorf("lacking %s: %d before, %d other; want 2, 1", fresh.Name, before, other)
	}
	text := fresh.LackingText(runs, curves)
	for _, w := range []string{"3 done run(s) lack metric fresh (fresh_col)", fmt.Sprintf("2 recorded before layout %d", newest), "1 recorded without it"} {
		if !strings.Contains(text, w) {
			t.Errorf("%q does not say %q", text, w)
		}
	}
	if text := old.LackingText(runs, curves); !strings.Contains(text, "4 of a family that does not produce it (it is produced by mab)") || strings.Contains(text, "before") {
		t.Errorf("lacking %s: %q", old.Name, text)
	}
	if text := outputs.Metrics()[0].LackingText(runs, curves); text != "" {
		t.Errorf("a regret metric lacking: %q", text)
	}
}
