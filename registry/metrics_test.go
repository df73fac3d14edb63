package registry

import (
	"context"
	"testing"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/outputs"
)

// TestEveryFamilyKeepsItsMetrics: a run of every registered algorithm,
// of every family, through its entry's NewRun (the path a sweep takes)
// keeps every curve metric its family produces (outputs.Metrics, those
// not derived from the regret curve), one value per checkpoint; and the
// communication metric core.Drive records for every run ends at the run's
// scalars, never decreasing. A family whose run drops core.Drive's
// metrics (the linear family's Run kept only the curve before issue 41)
// fails it. Mutation control (tried 2026-12-02): federate.Run returning
// its result with Metrics cleared fails every linear algorithm.
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
		for _, m := range outputs.Metrics {
			if m.Regret() || !m.ProducedBy(a.Family) {
				continue
			}
			if v := res.Metrics[m.Column]; len(v) != len(res.Curve) {
				t.Errorf("%s (%s): metric %s has %d values for %d checkpoints", a.Name, a.Family, m.Name, len(v), len(res.Curve))
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
