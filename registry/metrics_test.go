package registry

import (
	"context"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/bco"
	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/mab"
	"github.com/fedbandit/fedbandit/outputs"
)

// TestEveryFamilyKeepsItsMetrics: a run of every registered algorithm,
// of every family, through its entry's NewRun (the path a sweep takes)
// keeps every curve metric its family produces (outputs.Metrics, those
// not derived from the regret curve), one value per checkpoint, and
// reports no metric the table does not declare as its family's (a
// family's metric whose declaration is not registered would reach the
// per-run files but no curves.arrow column, --metric or help); and the
// communication metric core.Drive records for every run ends at the run's
// scalars, never decreasing. A family whose run drops core.Drive's
// metrics (the linear family's Run kept only the curve before issue 41)
// fails it. Mutation controls (tried 2026-12-02): federate.Run returning
// its result with Metrics cleared fails every linear algorithm; a mab
// metric recorded by the family's runs and declared in mab.Metrics, with
// the registry's family entry left without `Metrics: mab.Metrics`, fails
// every mab algorithm.
func TestEveryFamilyKeepsItsMetrics(t *testing.T) {
	tables := map[string]RunSpec{
		FamilyLinear: {Instance: "synthetic", T: 40, M: 3, B: 5, Every: 10, Eps: 1, Delta: 0.1, Table: map[string]any{"d": int64(4), "k": int64(10)}},
		FamilyMAB:    {Instance: "mab", T: 2000, Every: 500, Eps: 1, Delta: 1e-5, Table: map[string]any{"gap": 0.5, "seed": int64(3)}},
		FamilyBCO:    {Instance: "bco", T: 200, M: 2, B: 1, Every: 50, Eps: 1, Delta: 1e-5, Table: map[string]any{"d": int64(3), "loss": "squared"}},
	}
	seen := map[string]int{}
	for _, a := range Algorithms() {
		rs, ok := tables[a.Family]
		if !ok {
			t.Fatalf("%s: no test instance for family %s", a.Name, a.Family)
		}
		rs.Algorithm = a.Name
		res, err := a.NewRun(context.Background(), rs)
		if err != nil {
			t.Errorf("%s: %v", a.Name, err)
			continue
		}
		seen[a.Family]++
		declared := map[string]bool{}
		for _, m := range outputs.Metrics() {
			if m.Regret() || !m.ProducedBy(a.Family) {
				continue
			}
			declared[m.Column] = true
			if v := res.Metrics[m.Column]; len(v) != len(res.Curve) {
				t.Errorf("%s (%s): metric %s has %d values for %d checkpoints", a.Name, a.Family, m.Name, len(v), len(res.Curve))
			}
		}
		for col := range res.Metrics {
			if !declared[col] {
				t.Errorf("%s (%s): reports curve metric %s, which no declaration of its family's (or core's) registers", a.Name, a.Family, col)
			}
		}
		sent := res.Metrics[core.ScalarsSentColumn]
		if len(sent) == 0 || sent[len(sent)-1] != float64(res.Scalars) {
			t.Errorf("%s: scalars sent %v, the run's scalars %d", a.Name, sent, res.Scalars)
		}
		for i := 1; i < len(sent); i++ {
			if sent[i] < sent[i-1] {
				t.Errorf("%s: scalars sent decrease: %v", a.Name, sent)
				break
			}
		}
	}
	for f := range tables {
		if seen[f] == 0 {
			t.Errorf("no run of family %s checked", f)
		}
	}
}

// TestFamiliesRegisterTheirMetrics: the table of curve metrics is the
// regret metrics, core's (every family) and then each family's own list,
// declared in its package, in display order and produced by that family
// alone: nothing else and nothing missing (a family entry without its
// package's list, or a list registered under another family, fails it).
func TestFamiliesRegisterTheirMetrics(t *testing.T) {
	lists := map[string][]core.Metric{FamilyLinear: federate.Metrics, FamilyMAB: mab.Metrics, FamilyBCO: bco.Metrics}
	var want []string
	for _, m := range core.Metrics {
		want = append(want, m.Name+" (every family)")
	}
	for _, f := range Families() {
		l, ok := lists[f.Name]
		if !ok {
			t.Fatalf("family %s: no metric list known to this test", f.Name)
		}
		for _, m := range l {
			want = append(want, m.Name+" ("+f.Name+")")
		}
	}
	var got []string
	for _, m := range outputs.Metrics() {
		if !m.Regret() {
			got = append(got, m.Name+" ("+m.FamiliesText()+")")
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("the table of curve metrics has %v, want %v", got, want)
	}
	for _, f := range Families() {
		if !reflect.DeepEqual(f.Metrics, lists[f.Name]) {
			t.Errorf("family %s registers %v, its package declares %v", f.Name, f.Metrics, lists[f.Name])
		}
	}
}

// readmeMetrics are the markers of outputs/README.md's generated table of
// curve metrics.
const (
	metricsBegin = "<!-- curve-metrics: generated from the declarations, do not edit -->\n"
	metricsEnd   = "<!-- end curve-metrics -->"
)

// TestMetricsDocumented: outputs/README.md's table of curve metrics is
// the declarations' own words (outputs.MetricsMarkdown), every family's
// metrics registered: a metric's README row is its declaration, and a
// new one fails this test until its row is there.
// FEDBANDIT_UPDATE_GOLDEN=1 rewrites the table. Mutation control (tried
// 2026-12-02): a word of communication's Doc edited in core fails it.
func TestMetricsDocumented(t *testing.T) {
	const path = "../outputs/README.md"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, metricsBegin), strings.Index(s, metricsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no generated table of curve metrics (%q ... %q)", path, metricsBegin, metricsEnd)
	}
	got, want := s[i+len(metricsBegin):j], outputs.MetricsMarkdown()
	if got == want {
		return
	}
	if os.Getenv("FEDBANDIT_UPDATE_GOLDEN") != "" {
		if err := os.WriteFile(path, []byte(s[:i+len(metricsBegin)]+want+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: table of curve metrics rewritten", path)
		return
	}
	t.Errorf("%s: the table of curve metrics differs from the declarations (FEDBANDIT_UPDATE_GOLDEN=1 go test ./registry -run TestMetricsDocumented rewrites it); want\n%s", path, want)
}
