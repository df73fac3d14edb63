package ltr

import (
	"context"
	"io"
	"log/slog"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/datasets/mq2008"
	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/internal/fixture"
	"github.com/fedbandit/fedbandit/lasso"
	"github.com/fedbandit/fedbandit/partition"
)

// TestMain removes the shared ingested MQ2008 copy after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	fixture.Cleanup()
	os.Exit(code)
}

// mq2008Dataset returns a fresh copy of the prepared MQ2008 dataset directory.
func mq2008Dataset(t *testing.T) string { return fixture.MQ2008(t) }

func fitAll(t *testing.T, dir, model string) *lasso.Theta {
	t.Helper()
	th, err := lasso.FitDataset(context.Background(), dir, lasso.FitOptions{Log: quiet, Features: "all", Model: model, Lasso: lasso.Options{Alpha: 1e-3}})
	if err != nil {
		t.Fatal(err)
	}
	return th
}

func TestBuildReference(t *testing.T) {
	dir := mq2008Dataset(t)
	opts := Options{Dataset: dir, Features: "all", Model: lasso.ModelReference, Silos: 10}
	if _, err := Build(opts); err == nil || !strings.Contains(err.Error(), "prep fit "+dir+" --features all --model reference") {
		t.Fatalf("missing theta: %v", err)
	}
	th := fitAll(t, dir, lasso.ModelReference)
	data, err := Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	// The description carries the dataset identity (R4-22: a re-ingested
	// dataset's runs are told apart from the old ones by it).
	if man, err := ingest.ReadManifest(dir); err != nil || !strings.Contains(data.Name, " data="+ingest.ShortHash(man.DataHash)+" ") {
		t.Errorf("name %q lacks the dataset identity (%v)", data.Name, err)
	}
	if data.Dim != 47 || len(data.Queries) != mq2008.Queries || data.R != 1 || data.Crs != 0.1 || data.NoiseStd != 0 {
		t.Fatalf("dim %d queries %d R %v Crs %v noise %v", data.Dim, len(data.Queries), data.R, data.Crs, data.NoiseStd)
	}
	// Contiguous: 10 silos of floor(784/10) = 78 queries in file order.
	for i, s := range data.Silos {
		if len(s) != 78 || s[0] != 78*i || s[77] != 78*i+77 {
			t.Fatalf("silo %d = %v", i, s)
		}
	}
	// Independent check of X and Mu from the raw columns.
	ds, err := ingest.Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for qi, q := range ds.Queries {
		lq := data.Queries[qi]
		if len(lq.Mu) != len(q.Labels) || len(lq.X) != len(q.Labels)*47 {
			t.Fatalf("query %d: %d mu, %d x", qi, len(lq.Mu), len(lq.X))
		}
		for r := range q.Labels {
			raw := append([]float64{0.01}, q.X.RawRowView(r)...)
			var ss, mu float64
			for j, v := range raw {
				ss += v * v
				mu += v * th.Theta[j]
			}
			if math.Abs(mu-lq.Mu[r]) > 1e-12*math.Max(1, math.Abs(mu)) {
				t.Fatalf("query %d doc %d: mu %v, want %v", qi, r, lq.Mu[r], mu)
			}
			for j, v := range raw {
				if math.Abs(lq.X[r*47+j]-v/math.Sqrt(ss)) > 1e-15 {
					t.Fatalf("query %d doc %d feature %d: x %v, want %v", qi, r, j, lq.X[r*47+j], v/math.Sqrt(ss))
				}
			}
			rows++
		}
	}
	if rows != mq2008.Rows {
		t.Fatalf("%d rows", rows)
	}
	// Same inputs, same hash; any change of model input, a different hash.
	again, _ := Build(opts)
	if again.Hash != data.Hash || len(data.Hash) != 64 {
		t.Errorf("hash not reproducible: %s vs %s", again.Hash, data.Hash)
	}
	other := opts
	other.Silos = 9
	o9, err := Build(other)
	if err != nil {
		t.Fatal(err)
	}
	if o9.Hash == data.Hash {
		t.Error("M=9 and M=10 share a hash")
	}
	if _, err := Build(Options{Dataset: dir, Features: "all", Model: lasso.ModelReference, Silos: 10, NoiseVar: 0.1}); err == nil {
		t.Error("noise accepted for the reference model")
	}
	if _, err := Build(Options{Dataset: dir, Features: "all", Silos: 785}); err == nil {
		t.Error("M > queries accepted")
	}
}

func TestBuildWellSpecified(t *testing.T) {
	dir := mq2008Dataset(t)
	th := fitAll(t, dir, lasso.ModelWellSpecified)
	data, err := Build(Options{Dataset: dir, Features: "all", Model: lasso.ModelWellSpecified, NoiseVar: 0.25, Silos: 4, Strategy: "random", PartitionSeed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if data.NoiseStd != 0.5 {
		t.Errorf("noise std %v", data.NoiseStd)
	}
	for _, q := range data.Queries {
		for r, mu := range q.Mu {
			var dot float64
			for j := 0; j < data.Dim; j++ {
				dot += q.X[r*data.Dim+j] * th.Theta[j]
			}
			if math.Abs(dot-mu) > 1e-15 || math.Abs(mu) > 1 {
				t.Fatalf("mu %v, x.theta %v", mu, dot)
			}
		}
	}
}

// TestBuildChecksArtifacts: a stored partition that disagrees, or a theta
// fitted on other data, is an error.
func TestBuildChecksArtifacts(t *testing.T) {
	dir := mq2008Dataset(t)
	fitted := fitAll(t, dir, lasso.ModelReference)
	man, _ := ingest.ReadManifest(dir)
	wrong, _ := partition.Split(partition.Contiguous, make([]partition.Query, 700), 10, 0)
	if _, err := partition.WriteArtifact(dir, man.DataHash, wrong); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(Options{Dataset: dir, Features: "all", Silos: 10}); err == nil || !strings.Contains(err.Error(), "prep partition") {
		t.Errorf("mismatching partition: %v", err)
	}
	good, _, err := partition.ForDataset(dir, partition.Contiguous, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := partition.WriteArtifact(dir, man.DataHash, good); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(Options{Dataset: dir, Features: "all", Silos: 10}); err != nil {
		t.Errorf("matching partition: %v", err)
	}
	p := lasso.ThetaFile(dir, fitted)
	b, _ := os.ReadFile(p)
	// A hand edit is caught by the artifact's own content hash.
	os.WriteFile(p, []byte(strings.Replace(string(b), man.DataHash, strings.Repeat("0", 64), 1)), 0o644)
	if _, err := Build(Options{Dataset: dir, Features: "all", Silos: 10}); err == nil || !strings.Contains(err.Error(), "re-run prep fit") {
		t.Errorf("edited theta: %v", err)
	}
	// A consistent artifact fitted on another dataset is caught by the
	// dataset hash it records.
	os.WriteFile(p, b, 0o644)
	th, _, err := lasso.ReadTheta(p)
	if err != nil {
		t.Fatal(err)
	}
	th.DatasetSHA256 = strings.Repeat("0", 64)
	if err := lasso.WriteTheta(p, th); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(Options{Dataset: dir, Features: "all", Silos: 10}); err == nil || !strings.Contains(err.Error(), "re-run `prep fit`") {
		t.Errorf("theta of another dataset: %v", err)
	}
	// A consistent artifact with an absurd coefficient (issue 14: 1e300
	// ran to "done" with regret 3.3e300 +- Inf) is refused.
	th.DatasetSHA256 = man.DataHash
	th.Theta[1] = 1e300
	if err := lasso.WriteTheta(p, th); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(Options{Dataset: dir, Features: "all", Silos: 10}); err == nil || !strings.Contains(err.Error(), "absurd") {
		t.Errorf("theta with 1e300: %v", err)
	}
}

// quiet discards the fit log lines in tests.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))
