package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanJSON (issue 39 item 5): plan --json prints one JSON object and
// nothing else on stdout, with the counts of the text plan, the wall
// time's assumption, and with --list every run id in plan order; the text
// plan says its wall time assumes idle cores. Mutation-checked: writing
// the estimate's note to stdout under --json fails it (the object no
// longer decodes alone); dropping run_list fails it.
func TestPlanJSON(t *testing.T) {
	dir := t.TempDir()
	sweep := writeFile(t, filepath.Join(dir, "syn.toml"), synTOML(3))
	text, err := runCLI(t, "plan", sweep, "--rate", "1e9", "--workers", "2")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "wall with 2 workers on idle cores") || !strings.Contains(text, "on a shared or loaded machine it is longer") {
		t.Errorf("text plan does not say its wall time assumes idle cores:\n%s", text)
	}
	out, err := runCLI(t, "plan", sweep, "--rate", "1e9", "--workers", "2", "--json", "--list")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	var p planJSON
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("plan --json: %v\n%s", err, out)
	}
	if dec.More() {
		t.Errorf("plan --json: more than one JSON value on stdout:\n%s", out)
	}
	plan, err := loadPlan(sweep)
	if err != nil {
		t.Fatal(err)
	}
	if p.Runs != 6 || p.Configurations != 2 || p.Seeds != 3 || p.Pending != 6 || p.Done != 0 || p.Workers != 2 ||
		p.TimesFrom != "rate" || p.WallAssumes != wallAssumption || p.CPUSeconds <= 0 || p.WallSeconds <= 0 ||
		len(p.Instances) != 1 || p.Instances[0].Dim != 4 || p.MemoryWarning != nil || p.Sweep != "syn small" {
		t.Errorf("plan --json: %+v", p)
	}
	if len(p.RunList) != len(plan.Runs) {
		t.Fatalf("run_list: %d runs, want %d", len(p.RunList), len(plan.Runs))
	}
	for i, r := range plan.Runs {
		if p.RunList[i].RunID != r.ID || p.RunList[i].Seed != r.Seed() {
			t.Errorf("run_list[%d] = %+v, want %s seed %d", i, p.RunList[i], r.ID, r.Seed())
		}
	}
	if len(p.Ignored) != 1 || p.Ignored[0].Name != "fedlinucb" {
		t.Errorf("ignored keys: %+v (fedlinucb ignores eps and delta)", p.Ignored)
	}
}
