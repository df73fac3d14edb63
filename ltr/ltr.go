// Package ltr builds learning-to-rank bandit instances (federate.LTRData)
// from a prepared dataset, a theta artifact written by `prep fit` and a
// partition of its queries across silos.
package ltr

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"strings"

	"github.com/fedbandit/fedbandit/features"
	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/lasso"
	"github.com/fedbandit/fedbandit/partition"
)

// Options name an instance.
type Options struct {
	// Dataset is the prepared dataset directory.
	Dataset string
	// Features is the feature set spec used with `prep fit` (title, body,
	// all, a column list, ...); with a non-default intercept use the set's
	// ID as it appears in the artifact name (e.g. "title-i0").
	Features string
	// Model is lasso.ModelReference or lasso.ModelWellSpecified.
	Model string
	// NoiseVar is the variance of Gaussian reward noise; only the
	// well-specified model allows noise (the reference is noiseless).
	NoiseVar float64
	// Silos is M.
	Silos int
	// Strategy is the partition strategy (default contiguous).
	Strategy string
	// PartitionSeed seeds the random partition strategy.
	PartitionSeed uint64
	// Theta names the theta artifact (its file name in DATASET_DIR/instances,
	// with or without .theta.json) when the dataset holds several for the
	// feature set and model; empty: the only one there is.
	Theta string
}

// UnconvergedNote starts the note of an instance whose theta* comes from
// a lasso fit that did not converge (kept with prep fit
// --allow-unconverged); sweeps carry it into calibration_note.
const UnconvergedNote = "theta* NOT CONVERGED"

// findTheta picks the theta artifact of o: the one named by o.Theta, or
// the only artifact of the feature set and model (artifacts with the same
// content, such as a file under its pre-settings name and its copy under
// the current name, count once).
func findTheta(o Options, setID string) (string, *lasso.Theta, string, error) {
	paths, err := lasso.FindThetas(o.Dataset, setID, o.Model)
	if err != nil {
		return "", nil, "", fmt.Errorf("ltr: %w", err)
	}
	if o.Theta != "" {
		want := strings.TrimSuffix(filepath.Base(o.Theta), lasso.ThetaExt) + lasso.ThetaExt
		var keep []string
		for _, p := range paths {
			if filepath.Base(p) == want {
				keep = append(keep, p)
			}
		}
		if len(keep) == 0 {
			return "", nil, "", fmt.Errorf("ltr: no theta* %s for feature set %q and model %q in %s (have: %s)", want, o.Features, o.Model, filepath.Join(o.Dataset, lasso.InstancesDir), names(paths))
		}
		paths = keep
	}
	if len(paths) == 0 {
		return "", nil, "", fmt.Errorf("ltr: no theta* for feature set %q and model %q in %s: run `prep fit %s --features %s --model %s --alpha A` (or --cv) first", o.Features, o.Model, o.Dataset, o.Dataset, o.Features, o.Model)
	}
	var (
		path, hash string
		theta      *lasso.Theta
	)
	for _, p := range paths {
		t, h, err := lasso.ReadTheta(p)
		if err != nil {
			return "", nil, "", fmt.Errorf("ltr: %w", err)
		}
		switch {
		case theta == nil:
			path, theta, hash = p, t, h
		case h != hash:
			return "", nil, "", fmt.Errorf("ltr: %s holds several theta* for feature set %q and model %q (%s): name one with theta_file = \"NAME\" in the [[instance]]", filepath.Join(o.Dataset, lasso.InstancesDir), o.Features, o.Model, names(paths))
		}
	}
	return path, theta, hash, nil
}

// names lists the base names of paths.
func names(paths []string) string {
	b := make([]string, len(paths))
	for i, p := range paths {
		b[i] = filepath.Base(p)
	}
	if len(b) == 0 {
		return "none"
	}
	return strings.Join(b, ", ")
}

// CheckModel checks the reward model and its noise variance (an empty
// Model is the reference model): the one set of rules for them, used by
// Build and by the sweep files' ltr instance kind. field is the option at
// fault: "Model" or "NoiseVar".
func (o Options) CheckModel() (field string, err error) {
	switch o.Model {
	case lasso.ModelReference, "":
		if o.NoiseVar != 0 {
			return "NoiseVar", fmt.Errorf("ltr: the reference reward model is noiseless (noise variance %g given); use the well-specified model for noisy rewards", o.NoiseVar)
		}
	case lasso.ModelWellSpecified:
		if o.NoiseVar < 0 || math.IsNaN(o.NoiseVar) || math.IsInf(o.NoiseVar, 0) {
			return "NoiseVar", fmt.Errorf("ltr: noise variance %v must be a finite number >= 0", o.NoiseVar)
		}
	default:
		return "Model", fmt.Errorf("ltr: unknown reward model %q (known: %s, %s)", o.Model, lasso.ModelReference, lasso.ModelWellSpecified)
	}
	return "", nil
}

// Build loads the instance named by o. It reads only the feature set's
// columns, the theta artifact (an error names the `prep fit` command to run
// when it is missing) and computes the partition (checking it against the
// stored artifact when one exists). The result is read-only and may be
// shared by concurrent runs.
//
// The learner's view X of each document is its feature vector (intercept
// feature included) divided by its L2 norm. Mu is raw vector . theta* +
// intercept for the reference model, normalised vector . theta* + intercept
// for the well-specified model. R = 1 and Crs = 0.1 as in the paper's
// learning-to-rank experiments.
func Build(o Options) (*federate.LTRData, error) {
	if o.Model == "" {
		o.Model = lasso.ModelReference
	}
	if o.Strategy == "" {
		o.Strategy = partition.Contiguous
	}
	if _, err := o.CheckModel(); err != nil {
		return nil, err
	}
	man, err := ingest.ReadManifest(o.Dataset)
	if err != nil {
		return nil, fmt.Errorf("ltr: %w", err)
	}
	setID := o.Features
	if set, err := features.Resolve(o.Features, man.Features, features.DefaultIntercept); err == nil {
		setID = set.ID()
	}
	thetaPath, theta, thetaHash, err := findTheta(o, setID)
	if err != nil {
		return nil, err
	}
	if theta.DatasetSHA256 != man.DataHash {
		return nil, fmt.Errorf("ltr: %s was fitted on dataset %s but %s now holds %s: re-run `prep fit`", thetaPath, short(theta.DatasetSHA256), o.Dataset, short(man.DataHash))
	}
	if theta.Model != o.Model {
		return nil, fmt.Errorf("ltr: %s records model %q, want %q", thetaPath, theta.Model, o.Model)
	}
	set := theta.Features
	ds, part, loc, err := loadPartitioned(o.Dataset, man, set, o.Strategy, o.Silos, o.PartitionSeed)
	if err != nil {
		return nil, err
	}
	d := set.Dim()
	data := &federate.LTRData{
		Name:     fmt.Sprintf("%s %s %s/%s %s M=%d", filepath.Base(filepath.Clean(o.Dataset)), ingest.DataTag(man), set.ID(), o.Model, o.Strategy, o.Silos),
		Dim:      d,
		Queries:  make([]federate.LTRQuery, len(ds.Queries)),
		Silos:    part.Assign,
		NoiseStd: math.Sqrt(o.NoiseVar),
		R:        1,
		Crs:      0.1,
	}
	if !theta.Converged() {
		f := theta.Fit
		data.Note = fmt.Sprintf("%s: %s stopped at max_iter %d with duality gap %.3g above its tolerance %.3g (kept with prep fit --allow-unconverged)",
			UnconvergedNote, filepath.Base(thetaPath), theta.Settings.MaxIter, f.Gap, f.Tol)
	}
	raw := make([]float64, 0)
	for qi := range ds.Queries {
		q := &ds.Queries[qi]
		n := len(q.Labels)
		x := make([]float64, n*d)
		mu := make([]float64, n)
		if cap(raw) < n*d {
			raw = make([]float64, n*d)
		}
		raw = raw[:n*d]
		set.QueryRows(q, loc, false, raw)
		copy(x, raw)
		for r := 0; r < n; r++ {
			features.Normalize(x[r*d : (r+1)*d])
			env := raw[r*d : (r+1)*d]
			if o.Model == lasso.ModelWellSpecified {
				env = x[r*d : (r+1)*d]
			}
			m := theta.Intercept
			for j, v := range env {
				m += float64(v * theta.Theta[j])
			}
			if math.IsNaN(m) || math.Abs(m) > MaxAbsMu {
				return nil, fmt.Errorf("ltr: %s: document %d of query %d has mean reward %g, not finite or beyond ±%g for labels 0..%d: theta* is corrupt or absurd (check it, re-run prep fit)",
					thetaPath, r+1, qi+1, m, MaxAbsMu, man.LabelMax)
			}
			mu[r] = m
		}
		data.Queries[qi] = federate.LTRQuery{X: x, Mu: mu}
	}
	h := sha256.New()
	for _, s := range []string{"fedbandit/ltr/v1", man.DataHash, thetaHash, part.Hash(), o.Model} {
		writeString(h, s)
	}
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], math.Float64bits(o.NoiseVar))
	h.Write(buf[:])
	data.Hash = hex.EncodeToString(h.Sum(nil))
	return data, nil
}

// loadPartitioned reads the columns of feature set of the prepared
// dataset dir (whose manifest is man) and splits its queries across
// silos, checking the split against the stored partition artifact when
// one exists: the one loader of Build and LoadDocuments.
func loadPartitioned(dir string, man *ingest.Manifest, set features.Set, strategy string, silos int, seed uint64) (*ingest.Dataset, *partition.Partition, []int, error) {
	ds, err := ingest.Load(dir, set.Columns)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("ltr: %w", err)
	}
	if ds.Manifest.DataHash != man.DataHash {
		return nil, nil, nil, fmt.Errorf("ltr: dataset %s changed while loading; retry", dir)
	}
	part, err := partition.Split(strategy, partition.Summaries(ds), silos, seed)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("ltr: %w", err)
	}
	partPath := partition.ArtifactPath(dir, strategy, silos, seed)
	if a, err := partition.ReadArtifact(partPath); err == nil {
		if a.DatasetSHA256 != man.DataHash || !a.Partition.Equal(part) {
			return nil, nil, nil, fmt.Errorf("ltr: stored partition %s differs from the one computed now (dataset changed?): re-run `prep partition`", partPath)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, fmt.Errorf("ltr: %w", err)
	}
	loc, err := set.Locate(ds)
	if err != nil {
		return nil, nil, nil, err
	}
	return ds, part, loc, nil
}

// DocOptions name a partitioned document set (LoadDocuments).
type DocOptions struct {
	// Dataset is the prepared dataset directory.
	Dataset string
	// Features is the feature set spec (title, body, all, a column list,
	// ...), resolved against the dataset's manifest with the default
	// intercept.
	Features string
	// Silos is M.
	Silos int
	// Strategy is the partition strategy (default contiguous).
	Strategy string
	// PartitionSeed seeds the random partition strategy.
	PartitionSeed uint64
}

// Documents are a prepared dataset's documents in a feature set, with
// their relevance labels, split across silos: what a data-backed linear
// kind computes its means and reward law from (as ltr-click does with a
// click model), with no fitted theta*. Read-only once loaded.
type Documents struct {
	Name     string // dataset, feature set, strategy and M
	Dim      int    // d, the learner's feature dimension
	LabelMax int    // the dataset's largest relevance label
	// Queries hold, per query, the learner's view X of its documents (n
	// x d row-major: each feature vector divided by its L2 norm, as
	// Build's) and their labels.
	Queries []Query
	// Silos[i] lists the indices into Queries owned by silo i.
	Silos [][]int
	// Hash is a content hash of the data, the feature set and the
	// partition.
	Hash string
}

// Query is one query's documents.
type Query struct {
	X      []float64 // n*Dim, row-major
	Labels []float64 // n relevance labels
}

// LoadDocuments reads the documents named by o: the feature set's
// columns of the dataset, split across o.Silos silos as Build splits them
// (the stored partition artifact checked when one exists).
func LoadDocuments(o DocOptions) (*Documents, error) {
	if o.Strategy == "" {
		o.Strategy = partition.Contiguous
	}
	man, err := ingest.ReadManifest(o.Dataset)
	if err != nil {
		return nil, fmt.Errorf("ltr: %w", err)
	}
	set, err := features.Resolve(o.Features, man.Features, features.DefaultIntercept)
	if err != nil {
		return nil, fmt.Errorf("ltr: %w", err)
	}
	ds, part, loc, err := loadPartitioned(o.Dataset, man, set, o.Strategy, o.Silos, o.PartitionSeed)
	if err != nil {
		return nil, err
	}
	d := set.Dim()
	docs := &Documents{
		Name:     fmt.Sprintf("%s %s %s %s M=%d", filepath.Base(filepath.Clean(o.Dataset)), ingest.DataTag(man), set.ID(), o.Strategy, o.Silos),
		Dim:      d,
		LabelMax: man.LabelMax,
		Queries:  make([]Query, len(ds.Queries)),
		Silos:    part.Assign,
	}
	for qi := range ds.Queries {
		q := &ds.Queries[qi]
		x := make([]float64, len(q.Labels)*d)
		set.QueryRows(q, loc, true, x)
		docs.Queries[qi] = Query{X: x, Labels: q.Labels}
	}
	h := sha256.New()
	for _, s := range []string{"fedbandit/ltr/documents/v1", man.DataHash, set.ID(), part.Hash()} {
		writeString(h, s)
	}
	docs.Hash = hex.EncodeToString(h.Sum(nil))
	return docs, nil
}

// MaxAbsMu bounds the mean rewards Build accepts. Rewards are fitted to
// relevance labels (0..4), so a mean beyond it can only come from a corrupt
// or hand-made theta*; its regret would overflow the tables' statistics.
const MaxAbsMu = 1e6

func writeString(h interface{ Write([]byte) (int, error) }, s string) {
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], uint64(len(s)))
	h.Write(buf[:])
	h.Write([]byte(s))
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
