package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/ltr"
	"github.com/fedbandit/fedbandit/registry"
)

// TestDatasetReadOncePerPlan: a plan reads each instance's data once (once
// per M for an instance partitioned per M), however many algorithms, eps
// values and seeds share it, and executing the plan reads it no more.
//
// Mutation control (run 2026-11-29): loading the instance per
// configuration in NewPlan (instFor without its cache) makes it fail
// with 3 reads per M.
func TestDatasetReadOncePerPlan(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"schema_version":1,"queries":8}`), 0o644)
	cfg := fmt.Sprintf(`name = "l"
seeds = 2
[[instance]]
kind = "ltr"
dataset = %q
features = "all"
[[algorithm]]
name = "fedlinucb"
[[algorithm]]
name = "ldp"
[grid]
eps = [1, 2]
delta = [0.1]
M = [2, 4]
B = [5]
T = [20]
`, dir)
	reads := map[int]int{} // by M
	env := registry.Env{BuildLTR: func(o ltr.Options) (*federate.LTRData, error) {
		reads[o.Silos]++
		d := &federate.LTRData{Name: "fake", Dim: 2, Hash: "h", R: 1, Crs: 0.1}
		for q := 0; q < 8; q++ {
			d.Queries = append(d.Queries, federate.LTRQuery{X: []float64{1, 0, 0, 1}, Mu: []float64{0.1, 0.2}})
		}
		for s := 0; s < o.Silos; s++ {
			d.Silos = append(d.Silos, []int{s})
		}
		return d, nil
	}}
	c, err := ParseConfig([]byte(cfg), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(reads) != 0 {
		t.Fatalf("parsing read the dataset: %v", reads)
	}
	p, err := NewPlan(c, env)
	if err != nil {
		t.Fatal(err)
	}
	// fedlinucb 2 M x 2 seeds, ldp 2 M x 2 eps x 2 seeds.
	if len(p.Runs) != 12 || len(reads) != 2 || reads[2] != 1 || reads[4] != 1 {
		t.Fatalf("%d runs, reads per M %v, want 12 runs and one read per M", len(p.Runs), reads)
	}
	s := &Sweep{Plan: p, Out: filepath.Join(t.TempDir(), "out"), Workers: 2, Log: quietLog()}
	if _, err := s.Execute(context.Background()); err != nil {
		t.Fatal(err)
	}
	if reads[2] != 1 || reads[4] != 1 {
		t.Errorf("executing the plan read the dataset again: %v", reads)
	}
}

// TestRunsShareTheLoadedInstance: every run of another family carries its
// plan's loaded instance (one value per [[instance]] table, the family's
// own type), so that neither its check nor its run decodes the table or
// reads data again; the run's result is the one of a run that loads its
// own (registry.RunSpec.Load).
func TestRunsShareTheLoadedInstance(t *testing.T) {
	for _, toml := range []string{genericMAB, genericBCO} {
		p := mustPlan(t, toml)
		byInst := map[*Instance]*registry.Loaded{}
		for _, r := range p.Runs {
			l := r.Spec.Loaded
			if l == nil || l != r.Instance.loaded || l.Value == nil {
				t.Fatalf("run %s: loaded %p, its instance's %p", r.ID, l, r.Instance.loaded)
			}
			if first, ok := byInst[r.Instance]; ok && first != l {
				t.Errorf("runs of one instance hold two loaded values")
			}
			byInst[r.Instance] = l
		}
		r := p.Runs[0]
		alg, _ := registry.Lookup(r.Spec.Algorithm)
		shared, err := alg.NewRun(context.Background(), r.Spec)
		if err != nil {
			t.Fatal(err)
		}
		own := r.Spec
		own.Loaded = nil
		alone, err := alg.NewRun(context.Background(), own)
		if err != nil {
			t.Fatal(err)
		}
		shared.WallSeconds, alone.WallSeconds = 0, 0
		if fmt.Sprint(shared) != fmt.Sprint(alone) {
			t.Errorf("%s: the run on the plan's instance differs from one loading its own", r.Spec.Algorithm)
		}
		// The table is not read again: a run whose table is gone runs on
		// the loaded instance alone.
		noTable := r.Spec
		noTable.Table = map[string]any{"no such key": true}
		if _, err := alg.NewRun(context.Background(), noTable); err != nil {
			t.Errorf("%s: a run with its loaded instance read its table: %v", r.Spec.Algorithm, err)
		}
	}
}
