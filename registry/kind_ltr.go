package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/lasso"
	"github.com/fedbandit/fedbandit/ltr"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/partition"
)

var ltrKind = &Kind{
	Name: federate.InstanceLTR, Family: FamilyLinear,
	Summary: "a learning-to-rank dataset prepared with `prep`: each silo's users are its queries, the actions their documents",
	Keys: []Key{
		{"dataset", "a dataset directory prepared with `prep` (relative to the sweep file; $VARIABLES expanded)"},
		{"features", "the feature set fitted with `prep fit` (title, body, all or a column list)"},
		{"model", fmt.Sprintf("reward model: %q (default, noiseless) or %q", lasso.ModelReference, lasso.ModelWellSpecified)},
		{"noise_var", "variance of the Gaussian reward noise (only with the well-specified model; default 0)"},
		{"strategy", fmt.Sprintf("partition strategy: one of %s (default %s)", strings.Join(partition.Strategies, ", "), partition.Contiguous)},
		{"partition_seed", "seeds the random partition strategy (>= 0, default 0)"},
		{"theta_file", "the theta* artifact in DATASET/instances (e.g. \"all-reference-a0.0001\") when the dataset holds several for the feature set and model; absent: the only one"},
	},
	Columns: []string{"noise_var", "features", "reward_model", "partition_strategy", "partition_seed"},
	Decode:  decodeLTR,
}

type ltrTable struct {
	Dataset       string  `toml:"dataset"`
	Features      string  `toml:"features"`
	Model         string  `toml:"model"`
	NoiseVar      float64 `toml:"noise_var"`
	Strategy      string  `toml:"strategy"`
	PartitionSeed int64   `toml:"partition_seed"`
	ThetaFile     string  `toml:"theta_file"`
}

// ltrInstance is a decoded learning-to-rank instance.
type ltrInstance struct {
	t       ltrTable
	dir     string // the dataset directory, resolved
	queries int    // of the dataset (its manifest)
}

func decodeLTR(table map[string]any, base string) (Instance, error) {
	var t ltrTable
	set, err := decodeTable(table, &t)
	if err != nil {
		return nil, tableError(err)
	}
	if !set("model") {
		t.Model = lasso.ModelReference
	}
	if !set("strategy") {
		t.Strategy = partition.Contiguous
	}
	if t.Features == "" {
		return nil, &KeyError{Key: "features", Msg: "missing: the feature set fitted with `prep fit` (title, body, all, ...)"}
	}
	if field, err := (ltr.Options{Model: t.Model, NoiseVar: t.NoiseVar}).CheckModel(); err != nil {
		return nil, &KeyError{Key: map[string]string{"Model": "model", "NoiseVar": "noise_var"}[field], Msg: err.Error()}
	}
	dir, man, err := rankedDocuments(t.Dataset, base, t.Strategy, t.PartitionSeed)
	if err != nil {
		return nil, err
	}
	return &ltrInstance{t: t, dir: dir, queries: man.Queries}, nil
}

// rankedDocuments checks the keys every kind whose actions are a
// dataset's documents split across silos takes (ltr, ltr-click): the
// partition strategy and seed, and a prepared dataset (preparedDataset)
// with queries of at least 2 documents. It returns the dataset directory
// and manifest.
func rankedDocuments(dataset, base, strategy string, seed int64) (string, *ingest.Manifest, error) {
	if !slices.Contains(partition.Strategies, strategy) {
		return "", nil, &KeyError{Key: "strategy", Msg: fmt.Sprintf("unknown partition strategy %q, want one of %s", strategy, strings.Join(partition.Strategies, ", "))}
	}
	if seed < 0 {
		return "", nil, &KeyError{Key: "partition_seed", Msg: fmt.Sprintf("%d, want a seed >= 0", seed)}
	}
	dir, man, err := preparedDataset(dataset, base)
	if err != nil {
		return "", nil, err
	}
	if man.DocsPerQuery.Max == 1 {
		// Every round would offer one action: regret identically 0 (R4-11).
		return "", nil, &KeyError{Key: "dataset", Msg: fmt.Sprintf("%s: every one of its %d queries has 1 document, so every round would offer a single action and regret would be identically 0: a kind whose actions are a query's documents needs queries of at least 2", dir, man.Queries)}
	}
	return dir, man, nil
}

// checkQueries is CheckM of a kind whose silos own a dataset's queries.
func checkQueries(m, queries int, dir string) error {
	if m > queries {
		return fmt.Errorf("M = %d silos exceeds the %d queries of %s", m, queries, dir)
	}
	return nil
}

// preparedDataset resolves the key dataset (datasetDir) and reads its
// manifest: the one check every data-backed kind makes of the key, its
// error a *KeyError naming it.
func preparedDataset(path, base string) (string, *ingest.Manifest, error) {
	dir, err := datasetDir(path, base)
	if err != nil {
		return "", nil, &KeyError{Key: "dataset", Msg: err.Error()}
	}
	man, err := ingest.ReadManifest(dir)
	if err != nil {
		return "", nil, &KeyError{Key: "dataset", Msg: fmt.Sprintf("%s is not a prepared dataset (run `go run ./cmd/prep ingest`): %v", dir, err)}
	}
	return dir, man, nil
}

// datasetDir resolves a dataset path: $VARIABLES expanded, a relative
// path against base (the sweep file's directory).
func datasetDir(path, base string) (string, error) {
	if path == "" {
		return "", errors.New("missing: the directory of a dataset prepared with `prep`")
	}
	var unset []string
	d := os.Expand(path, func(name string) string {
		v, ok := os.LookupEnv(name)
		if !ok {
			unset = append(unset, "$"+name)
		}
		return v
	})
	if len(unset) > 0 {
		return "", fmt.Errorf("%q: environment variable %s is not set: set it to your prepared dataset directory "+
			"(the main job, go run ./cmd/run, prepares MQ2008 under the user cache directory: ~/.cache/fedbandit/mq2008-*/dataset on Linux)", path, strings.Join(unset, ", "))
	}
	if d == "" {
		return "", fmt.Errorf("%q expands to an empty path: set the environment variable to your prepared dataset directory", path)
	}
	if !filepath.IsAbs(d) && base != "" {
		d = filepath.Join(base, d)
	}
	if st, err := os.Stat(d); err != nil {
		return "", fmt.Errorf("dataset directory: %w", err)
	} else if !st.IsDir() {
		return "", fmt.Errorf("%s is not a directory", d)
	}
	return d, nil
}

func (*ltrInstance) Kind() string { return federate.InstanceLTR }
func (*ltrInstance) PerM() bool   { return true }

func (l *ltrInstance) CheckM(m int) error { return checkQueries(m, l.queries, l.dir) }

func (*ltrInstance) Settings(s *federate.Spec) {
	s.Instance, s.Synthetic = federate.InstanceLTR, federate.SyntheticSpec{}
}

func (l *ltrInstance) ShareKey() string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%v\x00%s", l.t.Dataset, l.t.Features, l.t.Model, l.t.NoiseVar, l.t.ThetaFile)
}

func (l *ltrInstance) Load(m int, env Env) (*Loaded, error) {
	data, err := env.LTR(ltr.Options{
		Dataset: l.dir, Features: l.t.Features, Model: l.t.Model, NoiseVar: l.t.NoiseVar,
		Silos: m, Strategy: l.t.Strategy, PartitionSeed: uint64(l.t.PartitionSeed), Theta: l.t.ThetaFile,
	})
	if err != nil {
		return nil, err
	}
	return ltrLoaded(data)
}

// ltrLoaded is the loaded instance of learning-to-rank data, as the
// simulator plays it (federate's ltr instance) whichever kind computed
// its means and reward law.
func ltrLoaded(data *federate.LTRData) (*Loaded, error) {
	if data.Hash == "" {
		return nil, fmt.Errorf("instance %s has no content hash", data.Name)
	}
	in := &Loaded{Hash: data.Hash, Name: data.Name, Dim: data.Dim, Bytes: data.Bytes(),
		Value: &LinearData{LTR: data, Set: func(sp *federate.Spec) {
			sp.Instance, sp.Synthetic, sp.LTR = federate.InstanceLTR, federate.SyntheticSpec{}, data
		}}}
	var docs, n int64
	for _, qs := range data.Silos {
		for _, q := range qs {
			docs += int64(len(data.Queries[q].Mu))
			n++
		}
	}
	if n > 0 {
		in.Actions = float64(docs) / float64(n)
	}
	return in, nil
}

func (l *ltrInstance) Record(_ *Loaded, rec *outputs.RunRecord) {
	rec.NoiseVar = outputs.Some(l.t.NoiseVar)
	rec.Features, rec.RewardModel, rec.PartitionStrategy, rec.PartitionSeed = l.t.Features, l.t.Model, l.t.Strategy, outputs.Some(uint64(l.t.PartitionSeed))
}

// ShareData makes the loaded instance l use first's documents when they
// are identical (the same dataset split for another M: instances whose
// ShareKey is equal), so that a grid over M holds the dataset in memory
// once. It reports whether it did (false for instances without shared
// documents).
func ShareData(first, l *Loaded) bool {
	a, b := first.Linear(), l.Linear()
	if a == nil || b == nil || a.LTR == nil || b.LTR == nil {
		return false
	}
	f, data := a.LTR, b.LTR
	if f.Dim != data.Dim || len(f.Queries) != len(data.Queries) {
		return false
	}
	for i := range f.Queries {
		x, y := f.Queries[i], data.Queries[i]
		if !slices.Equal(x.X, y.X) || !slices.Equal(x.Mu, y.Mu) {
			return false
		}
	}
	data.ShareQueries(f)
	return true
}
