package prepare

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fedbandit/fedbandit/datasets/mq2008"
	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/lasso"
	"github.com/fedbandit/fedbandit/partition"
)

// cacheOptions prepares MQ2008 (extracted into dir/src) into dir/dataset
// as the main job does, with a fixed alpha to keep the test fast.
func cacheOptions(t *testing.T, dir string) Options {
	t.Helper()
	src, err := mq2008.Extract(filepath.Join(dir, "src"))
	if err != nil {
		t.Fatal(err)
	}
	return Options{
		Inputs: src, Out: filepath.Join(dir, "dataset"), Cache: true,
		Fits:       []lasso.FitOptions{{Features: "all", Lasso: lasso.Options{Alpha: 1e-3}}},
		Partitions: []Partition{{Silos: 10}},
	}
}

// TestConcurrentPreparations: preparations of the same cold directory at
// once (two main jobs started together: issue 14 saw a rename race in 1 of
// 5 tries) all succeed, one after the other, and only the first ingests.
func TestConcurrentPreparations(t *testing.T) {
	dir := t.TempDir()
	const n = 4
	var wg sync.WaitGroup
	results := make([]*Result, n)
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each also extracts the sources into the same directory, as
			// concurrent main jobs do.
			o := cacheOptions(t, dir)
			results[i], errs[i] = Run(context.Background(), o)
		}()
	}
	wg.Wait()
	ingested := 0
	for i := range results {
		if errs[i] != nil {
			t.Fatalf("preparation %d: %v", i, errs[i])
		}
		if results[i].Ingested {
			ingested++
		}
		if results[i].Manifest.DataHash != results[0].Manifest.DataHash {
			t.Errorf("preparation %d made another dataset", i)
		}
	}
	if ingested != 1 {
		t.Errorf("%d preparations ingested, want exactly 1 (the others reuse it)", ingested)
	}
}

// TestCacheRebuildsDamage: in cache mode a damaged dataset, theta or
// partition artifact is rebuilt, not reported (issue 14: a damaged cache
// was never rebuilt).
func TestCacheRebuildsDamage(t *testing.T) {
	dir := t.TempDir()
	o := cacheOptions(t, dir)
	first, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	docs := filepath.Join(o.Out, ingest.DocumentsFile)
	b, _ := os.ReadFile(docs)
	b[50000] ^= 1
	os.WriteFile(docs, b, 0o644)
	// Read directly, the damage is an error naming the file.
	if _, err := ingest.Load(o.Out, []int{1}); err == nil || !strings.Contains(err.Error(), docs) {
		t.Errorf("damaged dataset loaded: %v", err)
	}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Ingested || res.Manifest.DataHash != first.Manifest.DataHash {
		t.Errorf("damaged dataset not rebuilt (ingested %v)", res.Ingested)
	}
	if _, err := ingest.Verify(o.Out); err != nil {
		t.Errorf("rebuilt dataset: %v", err)
	}

	// A damaged theta artifact and partition artifact are made again.
	thetas, _ := filepath.Glob(filepath.Join(o.Out, lasso.InstancesDir, "*.theta.json"))
	parts, _ := filepath.Glob(filepath.Join(o.Out, partition.Dir, "*.json"))
	if len(thetas) != 1 || len(parts) != 1 {
		t.Fatalf("artifacts: %v %v", thetas, parts)
	}
	for _, p := range append(thetas, parts...) {
		os.WriteFile(p, []byte("{garbage"), 0o644)
	}
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if _, _, err := lasso.ReadTheta(thetas[0]); err != nil {
		t.Errorf("theta not rebuilt: %v", err)
	}
	if _, err := partition.ReadArtifact(parts[0]); err != nil {
		t.Errorf("partition not rebuilt: %v", err)
	}
}
