package outputs_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/outputs"
)

// TestMetricsDeclared: every curve metric declares its words, a file
// name of its own for `run plot`, and the layout it first appeared in,
// at most this build's; a metric a family stores (not derived from the
// regret curve) appeared in layout 3 or later, the first whose
// curves.arrow has such columns.
func TestMetricsDeclared(t *testing.T) {
	files := map[string]string{}
	for _, m := range outputs.Metrics {
		if m.Name == "" || m.Column == "" || m.Unit == "" || m.Label == "" || m.Head == "" || m.Footnote == "" || m.File == "" {
			t.Errorf("metric %+v: incomplete", m)
		}
		if m.Since < 1 || m.Since > outputs.FormatVersion || !m.Regret() && m.Since < 3 {
			t.Errorf("metric %s: since layout %d (this build writes %d)", m.Name, m.Since, outputs.FormatVersion)
		}
		if other, ok := files[m.File]; ok {
			t.Errorf("metrics %s and %s both plot to %s.png", other, m.Name, m.File)
		}
		files[m.File] = m.Name
	}
}

// TestMetricSince: a run recorded in a layout older than a metric lacks
// it by construction. Point.Modulo drops from a fresh checkpoint exactly
// the metrics newer than a layout (and leaves the point it was given
// alone); Lacking and LackingText tell the runs recorded before the
// metric from those of a family that does not produce it. Mutation
// control: RecordedIn as layout > Since fails it (tried 2026-12-02).
func TestMetricSince(t *testing.T) {
	old, fresh := outputs.Metric{Name: "old", Column: "old_col", Since: 3, Families: []string{"mab"}},
		outputs.Metric{Name: "fresh", Column: "fresh_col", Since: 5}
	saved := outputs.Metrics
	outputs.Metrics = append(append([]outputs.Metric(nil), saved...), old, fresh)
	defer func() { outputs.Metrics = saved }()

	p := outputs.Point{Round: 10, Pseudo: 1, Metrics: map[string]float64{"old_col": 1, "fresh_col": 2, "unknown": 3}}
	for layout, want := range map[int]map[string]float64{
		2: {"unknown": 3},
		3: {"old_col": 1, "unknown": 3},
		4: {"old_col": 1, "unknown": 3},
		5: {"old_col": 1, "fresh_col": 2, "unknown": 3},
	} {
		got := p.Modulo(layout)
		if !reflect.DeepEqual(got.Metrics, want) || got.Round != 10 || got.Pseudo != 1 {
			t.Errorf("modulo layout %d: %+v, want metrics %v", layout, got, want)
		}
	}
	if len(p.Metrics) != 3 {
		t.Errorf("Modulo changed its receiver's metrics: %v", p.Metrics)
	}
	if q := (outputs.Point{Metrics: map[string]float64{"fresh_col": 2}}).Modulo(4); q.Metrics != nil {
		t.Errorf("a point left with no metric: %v, want nil (as read from a file)", q.Metrics)
	}

	run := func(id string, layout int, status string) outputs.RunRecord {
		return outputs.RunRecord{RunID: id, FormatVersion: layout, Status: status}
	}
	point := func(id string, metrics map[string]float64) outputs.CurvePoint {
		return outputs.CurvePoint{RunID: id, Point: outputs.Point{Round: 1, Metrics: metrics}}
	}
	runs := []outputs.RunRecord{run("a", 4, outputs.StatusDone), run("b", 5, outputs.StatusDone), run("c", 5, outputs.StatusDone),
		run("d", 2, outputs.StatusFailed), run("e", 4, outputs.StatusDone)}
	curves := []outputs.CurvePoint{point("a", nil), point("b", map[string]float64{"fresh_col": 1}), point("c", nil), point("e", nil), point("e", nil)}
	if before, other := fresh.Lacking(runs, curves); before != 2 || other != 1 {
		t.Errorf("lacking %s: %d before, %d other; want 2, 1", fresh.Name, before, other)
	}
	text := fresh.LackingText(runs, curves)
	for _, w := range []string{"3 done run(s) lack metric fresh (fresh_col)", "2 recorded before layout 5", "1 recorded without it"} {
		if !strings.Contains(text, w) {
			t.Errorf("%q does not say %q", text, w)
		}
	}
	if text := old.LackingText(runs, curves); !strings.Contains(text, "4 of a family that does not produce it (it is produced by mab)") || strings.Contains(text, "before") {
		t.Errorf("lacking %s: %q", old.Name, text)
	}
	if text := outputs.Metrics[0].LackingText(runs, curves); text != "" {
		t.Errorf("a regret metric lacking: %q", text)
	}
}
