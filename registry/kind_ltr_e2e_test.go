package registry_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fedbandit/fedbandit/datasets/mq2008"
	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/internal/nodetool"
	"github.com/fedbandit/fedbandit/ltr"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/registry"
	"github.com/fedbandit/fedbandit/runner"
)

// TestShippedLTRSweepsEndToEnd runs sweeps/mab-ltr.toml,
// sweeps/bco-ltr.toml and sweeps/ltr-click.toml (T and seeds cut down) on a slice of the embedded
// MQ2008 (partition S1: 2,933 documents, 157 queries, query 10056 among
// them) prepared with ingest: every run finishes; runs.arrow records the
// instance kind, the query and the number of arms (mab-ltr: the
// instance's name and dim), the feature set (bco-ltr, ltr-click), the
// reward model (ltr-click: the click model) and, in the private
// absolute-loss runs' calibration_note, the hindsight's certified gap;
// arrow-check (tools/arrow-check, when installed; required under
// FEDBANDIT_REQUIRE_READERS=1) accepts each runs.arrow (it refused
// ltr-click's features, reward_model and partition columns before they
// were its rule there); and
// each [[instance]] table's dataset is read once for the whole plan,
// whatever its configurations and seeds (mutation control, run
// 2026-11-29: runner.NewPlan's instance cache disabled gives 12 reads for
// bco-ltr's 2 tables).
func TestShippedLTRSweepsEndToEnd(t *testing.T) {
	src := t.TempDir()
	b, err := mq2008.FS.ReadFile("S1.txt")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(src, "S1.txt"), b, 0o644)
	data := filepath.Join(t.TempDir(), "mq2008-s1")
	if _, err := ingest.Run(context.Background(), ingest.Options{Inputs: []string{filepath.Join(src, "S1.txt")}, Out: data}); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FEDBANDIT_MQ2008", data)
	for _, tc := range []struct {
		file, T string
		runs    int
		kind    string
	}{
		{"mab-ltr.toml", "T = [20000]", 14, "mab-ltr"},
		{"bco-ltr.toml", "T = [300]", 12, "bco-ltr"},
		{"ltr-click.toml", "T = [300]", 8, "ltr-click"},
	} {
		raw, err := os.ReadFile(filepath.Join("..", "sweeps", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		text := regexp.MustCompile(`(?m)^T = \[.*\]$`).ReplaceAllString(string(raw), tc.T)
		text = regexp.MustCompile(`(?m)^seeds = \d+$`).ReplaceAllString(text, "seeds = 1")
		text = regexp.MustCompile(`(?m)^checkpoint_every = \d+$`).ReplaceAllString(text, "checkpoint_every = 100")
		cfg, err := runner.ParseConfig([]byte(text), filepath.Join("..", "sweeps"))
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		reads := map[string]int{}
		env := registry.Env{LoadDataset: func(dir string, cols []int) (*ingest.Dataset, error) {
			mu.Lock()
			reads[dir]++
			mu.Unlock()
			return ingest.Load(dir, cols)
		}, LoadDocuments: func(o ltr.DocOptions) (*ltr.Documents, error) {
			mu.Lock()
			reads[o.Dataset]++
			mu.Unlock()
			return ltr.LoadDocuments(o)
		}}
		p, err := runner.NewPlan(cfg, env)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "out")
		s := &runner.Sweep{Plan: p, Out: out, Workers: 2}
		if _, err := s.Execute(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(reads) != 1 || reads[data] != len(cfg.Instances) {
			t.Errorf("%s: reads %v, want one per [[instance]] table (%d)", tc.file, reads, len(cfg.Instances))
		}
		if node, script, ok := nodetool.Find(t, "..", "arrow-check", "apache-arrow"); ok {
			if b, err := exec.Command(node, script, out, "--runs", strconv.Itoa(tc.runs)).CombinedOutput(); err != nil {
				t.Errorf("%s: arrow-check: %v\n%s", tc.file, err, b)
			}
		}
		recs, err := outputs.ReadRuns(filepath.Join(out, outputs.RunsFile))
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != tc.runs {
			t.Errorf("%s: %d runs, want %d", tc.file, len(recs), tc.runs)
		}
		for _, r := range recs {
			if r.Status != outputs.StatusDone || r.InstanceKind != tc.kind {
				t.Errorf("%s: run %s: status %s (%s), kind %q", tc.file, r.RunID, r.Status, r.Error, r.InstanceKind)
			}
			switch tc.kind {
			case "mab-ltr":
				if !strings.Contains(r.InstanceName, "query=10056 K=16") || r.Dim != nil || outputs.Deref(r.Arms) != 16 || outputs.Deref(r.Query) != 10056 {
					t.Errorf("run %s: name %q, dim %v, arms %d, query %v", r.RunID, r.InstanceName, r.Dim, outputs.Deref(r.Arms), r.Query)
				}
			case "ltr-click":
				if r.Features != "all" || outputs.Deref(r.Dim) != 47 || r.RewardModel != "click-"+r.Instance || r.NoiseVar == nil || *r.NoiseVar != 0 || r.PartitionStrategy != "contiguous" {
					t.Errorf("run %s: features %q dim %d reward model %q (instance %s) noise_var %v partition %q", r.RunID, r.Features, outputs.Deref(r.Dim), r.RewardModel, r.Instance, r.NoiseVar, r.PartitionStrategy)
				}
			case "bco-ltr":
				// The shipped instances shuffle their documents (seed 0).
				if r.Features != "all" || outputs.Deref(r.Dim) != 47 || !strings.Contains(r.InstanceName, "docs=2933") || r.InstanceSeed == nil || r.Query != nil || r.Arms != nil {
					t.Errorf("run %s: features %q dim %d name %q instance_seed %v query %v arms %v", r.RunID, r.Features, outputs.Deref(r.Dim), r.InstanceName, r.InstanceSeed, r.Query, r.Arms)
				}
				if r.Instance == "absolute" && (!strings.Contains(r.HindsightNote, "certified within") || strings.Contains(r.CalibrationNote, "hindsight")) {
					t.Errorf("run %s: hindsight_note %q calibration_note %q", r.RunID, r.HindsightNote, r.CalibrationNote)
				}
			}
		}
	}
}
