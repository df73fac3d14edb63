package lasso

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fedbandit/fedbandit/features"
	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/internal/atomicfile"
)

// Reward models of a learning-to-rank instance.
const (
	// ModelReference is the paper's instance: theta* fitted on the raw
	// feature values (intercept feature included), not rescaled; mean
	// reward = raw features . theta* (+ fitted intercept), noiseless. The
	// learner sees normalised vectors, so its linear model is misspecified.
	ModelReference = "reference"
	// ModelWellSpecified fits theta* on the learner's normalised vectors and
	// scales it to ||theta*|| <= 1; mean reward = normalised vector .
	// theta*, so |mean| <= 1 and Assumption 4.1 of the paper holds.
	ModelWellSpecified = "well-specified"
)

// Models lists the reward model names.
var Models = []string{ModelReference, ModelWellSpecified}

// Artifact identification.
const (
	// ThetaSchema names the theta artifact document type.
	ThetaSchema = "fedbandit.theta"
	// ThetaVersion is the version of the theta artifact layout.
	ThetaVersion = 1
	// InstancesDir is the directory inside a dataset directory holding
	// theta artifacts.
	InstancesDir = "instances"
)

// Theta is a fitted bandit parameter as stored in
// DATASET_DIR/instances/<featureset>-<model>.theta.json.
type Theta struct {
	Schema  string `json:"schema"`
	Version int    `json:"version"`
	// DatasetSHA256 is the dataset's identity, data_sha256 (manifest.json; documents_sha256 for a version-1 dataset).
	DatasetSHA256 string `json:"dataset_sha256"`
	// Features is the feature set (columns and intercept value).
	Features features.Set `json:"features"`
	// Model is ModelReference or ModelWellSpecified.
	Model string `json:"model"`
	// Settings are the lasso settings used.
	Settings Settings `json:"settings"`
	// Theta is theta*: the fitted coefficients times Scale, one per
	// feature of Features (intercept feature first).
	Theta []float64 `json:"theta"`
	// Intercept is the fitted intercept b times Scale (0 unless
	// settings.fit_intercept). Mean reward = x . Theta + Intercept.
	Intercept float64 `json:"intercept"`
	// Scale is the factor applied to the fitted coefficients: 1 for the
	// reference model, min(1, 1/||coef||) for the well-specified model.
	Scale float64 `json:"scale"`
	// Queries is the number of queries fitted.
	Queries int `json:"queries"`
	// Fit holds the lasso diagnostics (unscaled coefficients, R^2, MSE,
	// non-zeros, duality gap, iterations, CV curve).
	Fit *Result `json:"fit"`
	// SHA256 is the artifact's content hash: the hex SHA-256 of the file
	// as it reads without this field (the bytes artifacts had before the
	// field existed, so instance hashes and run ids are unchanged).
	// ReadTheta recomputes it and rejects an edited or corrupt file.
	SHA256 string `json:"theta_sha256,omitempty"`
}

// WriteTheta writes t to path atomically with its content hash (and sets
// t.SHA256).
func WriteTheta(path string, t *Theta) error {
	b, h, err := encodeTheta(*t)
	if err != nil {
		return fmt.Errorf("lasso: encode theta: %w", err)
	}
	if err := atomicfile.WriteFile(path, b); err != nil {
		return fmt.Errorf("lasso: %w", err)
	}
	t.SHA256 = h
	return nil
}

// encodeTheta returns the file bytes of t: its indented JSON with the
// content hash of the same JSON without the hash field.
func encodeTheta(t Theta) ([]byte, string, error) {
	t.SHA256 = ""
	b, err := json.MarshalIndent(t, "", " ")
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(append(b, '\n'))
	t.SHA256 = hex.EncodeToString(sum[:])
	if b, err = json.MarshalIndent(t, "", " "); err != nil {
		return nil, "", err
	}
	return append(b, '\n'), t.SHA256, nil
}

// Settings are the lasso settings recorded in a theta artifact.
type Settings struct {
	// Alpha is the penalty used (chosen by CV when CV is set).
	Alpha        float64     `json:"alpha"`
	FitIntercept bool        `json:"fit_intercept"`
	Positive     bool        `json:"positive"`
	Tol          float64     `json:"tol"`
	MaxIter      int         `json:"max_iter"`
	CV           *CVSettings `json:"cv,omitempty"`
}

// CVSettings record how alpha was chosen by cross-validation.
type CVSettings struct {
	Folds   int       `json:"folds"`
	Alphas  []float64 `json:"alphas,omitempty"`
	NAlphas int       `json:"n_alphas,omitempty"`
	Eps     float64   `json:"eps,omitempty"`
}

// ThetaPath returns DATASET_DIR/instances/<setID>-<model>.theta.json, where
// setID is features.Set.ID(): the name theta artifacts had before their
// names carried the lasso settings (see ThetaFile). Such files still load.
func ThetaPath(datasetDir, setID, model string) string {
	return filepath.Join(datasetDir, InstancesDir, setID+"-"+model+".theta.json")
}

// ThetaExt ends the name of every theta artifact.
const ThetaExt = ".theta.json"

// ThetaFile returns the path of t's artifact in datasetDir:
// instances/<setID>-<model>-<fit>[-fi][-pos][-tol<T>][[-maxiter<N>]-unconverged].theta.json,
// where <fit> is a<alpha> for a given alpha, cv<K>-n<N>-e<eps> for
// cross-validation over the default grid and cv<K>-g<hash> over an
// explicit grid; -fi marks a fitted intercept, -pos the positivity
// constraint, -tol<T> a tol other than DefaultTol, -maxiter<N> the
// max_iter (other than DefaultMaxIter) where an unconverged fit stopped,
// and -unconverged such a fit. Every setting that changes the solution is
// in the name, so fits with different settings are different files.
func ThetaFile(datasetDir string, t *Theta) string {
	return filepath.Join(datasetDir, InstancesDir, ThetaStem(t.Features.ID(), t.Model, t.Settings, t.Fit == nil || t.Fit.Converged)+ThetaExt)
}

// ThetaStem is the artifact name of ThetaFile without directory and
// extension.
func ThetaStem(setID, model string, s Settings, converged bool) string {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	name := setID + "-" + model + "-"
	switch {
	case s.CV == nil:
		name += "a" + g(s.Alpha)
	case len(s.CV.Alphas) > 0:
		b, _ := json.Marshal(s.CV.Alphas)
		sum := sha256.Sum256(b)
		name += fmt.Sprintf("cv%d-g%s", s.CV.Folds, hex.EncodeToString(sum[:4]))
	default:
		name += fmt.Sprintf("cv%d-n%d-e%s", s.CV.Folds, s.CV.NAlphas, g(s.CV.Eps))
	}
	if s.FitIntercept {
		name += "-fi"
	}
	if s.Positive {
		name += "-pos"
	}
	// tol decides how close a converged fit is to the optimum, and
	// max_iter where an unconverged one stopped: either, off its default,
	// is in the name, so that a fit with another tol never replaces a
	// converged one (attack round 3, L1). At their defaults (or unrecorded,
	// 0, in older files) the name is the one written before.
	if s.Tol != 0 && s.Tol != DefaultTol {
		name += "-tol" + g(s.Tol)
	}
	if !converged {
		if s.MaxIter != 0 && s.MaxIter != DefaultMaxIter {
			name += "-maxiter" + strconv.Itoa(s.MaxIter)
		}
		name += "-unconverged"
	}
	return name
}

// FindThetas lists the theta artifacts of a feature set and model in
// datasetDir: the files named by ThetaFile and the older ThetaPath name,
// sorted by name.
func FindThetas(datasetDir, setID, model string) ([]string, error) {
	prefix := setID + "-" + model
	ents, err := os.ReadDir(filepath.Join(datasetDir, InstancesDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("lasso: %w", err)
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if n == prefix+ThetaExt || strings.HasPrefix(n, prefix+"-a") && strings.HasSuffix(n, ThetaExt) || strings.HasPrefix(n, prefix+"-cv") && strings.HasSuffix(n, ThetaExt) {
			out = append(out, filepath.Join(datasetDir, InstancesDir, n))
		}
	}
	return out, nil
}

// Converged reports whether the fit recorded in t met its tolerance.
func (t *Theta) Converged() bool { return t.Fit == nil || t.Fit.Converged }

// ReadTheta reads a theta artifact and returns it with the hex SHA-256 of
// the file's bytes.
func ReadTheta(path string) (*Theta, string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("lasso: %w", err)
	}
	var t Theta
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, "", fmt.Errorf("lasso: %s: %w", path, err)
	}
	if t.Schema != ThetaSchema || t.Version != ThetaVersion {
		return nil, "", fmt.Errorf("lasso: %s: schema %q version %d, this build reads %q version %d (re-run prep fit)", path, t.Schema, t.Version, ThetaSchema, ThetaVersion)
	}
	if len(t.Theta) != t.Features.Dim() {
		return nil, "", fmt.Errorf("lasso: %s: %d coefficients for a %d-dimensional feature set", path, len(t.Theta), t.Features.Dim())
	}
	for i, w := range append(t.Theta, t.Intercept, t.Scale) {
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, "", fmt.Errorf("lasso: %s: non-finite value %v (theta[%d] or intercept/scale): re-run prep fit", path, w, i)
		}
	}
	if t.SHA256 == "" {
		// An artifact written before content hashes: its identity is
		// the hash of its bytes, as it always was.
		s := sha256.Sum256(b)
		return &t, hex.EncodeToString(s[:]), nil
	}
	_, h, err := encodeTheta(t)
	if err != nil {
		return nil, "", fmt.Errorf("lasso: %s: %w", path, err)
	}
	if h != t.SHA256 {
		return nil, "", fmt.Errorf("lasso: %s: content hash %s does not match the recorded theta_sha256 %s (file edited or corrupt; re-run prep fit)", path, h, t.SHA256)
	}
	return &t, h, nil
}

// FitOptions configure FitDataset.
type FitOptions struct {
	// Features is a feature set spec: a named set (title, body, all) or a
	// column list such as "1-5,7,126-131" (see features.Resolve).
	Features string
	// Intercept is the constant intercept feature's value; 0 means
	// features.DefaultIntercept (0.01). NoIntercept drops the feature.
	Intercept   float64
	NoIntercept bool
	// Model is ModelReference (default) or ModelWellSpecified.
	Model string
	// Lasso are the lasso settings (Alpha, or CV non-nil; FitIntercept,
	// Positive, Tol, MaxIter).
	Lasso Options
	// Workers bounds the goroutines reading the data (0: GOMAXPROCS).
	Workers int
	// AllowUnconverged keeps a fit that stopped at MaxIter above its
	// tolerance (its artifact name ends in -unconverged); without it such
	// a fit is an error wrapping ErrUnconverged and writes nothing.
	AllowUnconverged bool
	// Log receives progress lines; nil: slog.Default().
	Log *slog.Logger
}

// DatasetSource adapts a loaded dataset to a Source: the rows of a feature
// set (raw, or normalised for the well-specified model) with the relevance
// label as target.
type DatasetSource struct {
	ds         *ingest.Dataset
	set        features.Set
	loc        []int
	normalized bool
}

// NewDatasetSource returns the Source of set over ds.
func NewDatasetSource(ds *ingest.Dataset, set features.Set, normalized bool) (*DatasetSource, error) {
	loc, err := set.Locate(ds)
	if err != nil {
		return nil, err
	}
	return &DatasetSource{ds: ds, set: set, loc: loc, normalized: normalized}, nil
}

// Dim implements Source.
func (s *DatasetSource) Dim() int { return s.set.Dim() }

// Len implements Source.
func (s *DatasetSource) Len() int { return len(s.ds.Queries) }

// Rows implements Source.
func (s *DatasetSource) Rows(q int) int { return len(s.ds.Queries[q].Labels) }

// Fill implements Source.
func (s *DatasetSource) Fill(q int, dst []float64) {
	query := &s.ds.Queries[q]
	d := s.set.Dim()
	n := len(query.Labels)
	// Write the feature rows compactly at the end of dst, then spread them
	// to stride d+1 from the front (never overwriting unread values).
	tmp := dst[len(dst)-n*d:]
	s.set.QueryRows(query, s.loc, s.normalized, tmp)
	for r := 0; r < n; r++ {
		copy(dst[r*(d+1):r*(d+1)+d], tmp[r*d:(r+1)*d])
		dst[r*(d+1)+d] = query.Labels[r]
	}
}

// ErrUnconverged is wrapped by the error of a fit that did not converge
// (without FitOptions.AllowUnconverged).
var ErrUnconverged = errors.New("the lasso did not converge")

// FitDataset fits theta* for the prepared dataset in dir and writes the
// theta artifact atomically to ThetaFile. It loads only the feature set's
// columns, builds the statistics in one parallel pass and fits with the
// given alpha or by cross-validation grouped by query. A degenerate
// (all-zero) fit is an error wrapping ErrDegenerate and writes nothing.
func FitDataset(ctx context.Context, dir string, o FitOptions) (*Theta, error) {
	log := o.Log
	if log == nil {
		log = slog.Default()
	}
	if o.Model == "" {
		o.Model = ModelReference
	}
	if o.Model != ModelReference && o.Model != ModelWellSpecified {
		return nil, fmt.Errorf("lasso: unknown reward model %q (known: %s)", o.Model, strings.Join(Models, ", "))
	}
	if err := o.Lasso.defaults(); err != nil {
		return nil, err
	}
	man, err := ingest.ReadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("lasso: %w", err)
	}
	intercept := o.Intercept
	if intercept == 0 {
		intercept = features.DefaultIntercept
	}
	if o.NoIntercept {
		intercept = 0
	}
	set, err := features.Resolve(o.Features, man.Features, intercept)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	ds, err := ingest.Load(dir, set.Columns)
	if err != nil {
		return nil, fmt.Errorf("lasso: %w", err)
	}
	if ds.Manifest.DataHash != man.DataHash {
		return nil, fmt.Errorf("lasso: dataset %s changed while loading; retry", dir)
	}
	log.Info("loaded", "dataset", dir, "features", set.String(), "rows", ds.Rows(), "queries", len(ds.Queries), "seconds", time.Since(start).Seconds())
	src, err := NewDatasetSource(ds, set, o.Model == ModelWellSpecified)
	if err != nil {
		return nil, err
	}
	res, err := FitSource(ctx, src, o.Lasso, o.Workers)
	if err != nil {
		return nil, fmt.Errorf("lasso: %s, %s model: %w", set.ID(), o.Model, err)
	}
	log.Info("fitted", "alpha", res.Alpha, "r2", res.R2, "mse", res.MSE, "nonzero", res.NonZero, "dual_gap", res.Gap, "iterations", res.Iterations, "converged", res.Converged, "seconds", time.Since(start).Seconds())
	if n := len(res.CV); n > 1 && res.Alpha == res.CV[n-1].Alpha {
		log.Warn("cross-validation chose the smallest alpha of the grid; the optimum may lie below it: extend the grid (smaller --eps or explicit --alphas)", "alpha", res.Alpha)
	}
	if !res.Converged {
		if !o.AllowUnconverged {
			return nil, fmt.Errorf("lasso: %s, %s model: %w: duality gap %.3g above the tolerance %.3g after %d iterations (max_iter); raise max_iter, or accept it with --allow-unconverged (allow_unconverged = true), which records it in the artifact's name and in every sweep that uses it",
				set.ID(), o.Model, ErrUnconverged, res.Gap, res.Tol, res.Iterations)
		}
		log.Warn("lasso did not converge: duality gap above tolerance after max iterations; kept as asked (-unconverged artifact)", "gap", res.Gap, "tol", res.Tol, "max_iter", o.Lasso.MaxIter)
	}
	t := &Theta{
		Schema: ThetaSchema, Version: ThetaVersion, DatasetSHA256: man.DataHash,
		Features: set, Model: o.Model, Queries: len(ds.Queries), Fit: res, Scale: 1,
		Settings: Settings{Alpha: res.Alpha, FitIntercept: o.Lasso.FitIntercept, Positive: o.Lasso.Positive, Tol: o.Lasso.Tol, MaxIter: o.Lasso.MaxIter},
	}
	if cv := o.Lasso.CV; cv != nil {
		t.Settings.CV = &CVSettings{Folds: res.Folds, Alphas: cv.Alphas}
		if len(cv.Alphas) == 0 {
			t.Settings.CV.NAlphas, t.Settings.CV.Eps = cv.NAlphas, cv.Eps
			if t.Settings.CV.NAlphas == 0 {
				t.Settings.CV.NAlphas = DefaultAlphas
			}
			if t.Settings.CV.Eps == 0 {
				t.Settings.CV.Eps = DefaultEps
			}
		}
	}
	if o.Model == ModelWellSpecified {
		var ss float64
		for _, w := range res.Coef {
			ss += float64(w * w)
		}
		if nrm := math.Sqrt(ss); nrm > 1 {
			t.Scale = 1 / nrm
		}
	}
	t.Theta = make([]float64, len(res.Coef))
	for i, w := range res.Coef {
		t.Theta[i] = w * t.Scale
	}
	t.Intercept = res.Intercept * t.Scale
	path := ThetaFile(dir, t)
	if err := WriteTheta(path, t); err != nil {
		return nil, err
	}
	log.Info("wrote theta", "path", path)
	return t, nil
}

// FitSource fits src with o: one pass to build the statistics (per fold
// when o.CV is set), then coordinate descent.
func FitSource(ctx context.Context, src Source, o Options, workers int) (*Result, error) {
	if o.CV == nil {
		ms, err := ComputeMoments(ctx, src, nil, 1, workers)
		if err != nil {
			return nil, err
		}
		return FitMoments(ms[0], o)
	}
	k := o.CV.Folds
	if k == 0 {
		k = DefaultFolds
	}
	sizes := make([]int, src.Len())
	for q := range sizes {
		sizes[q] = src.Rows(q)
	}
	fold, err := GroupFolds(sizes, k)
	if err != nil {
		return nil, err
	}
	ms, err := ComputeMoments(ctx, src, fold, k, workers)
	if err != nil {
		return nil, err
	}
	return CrossValidate(ctx, ms, o)
}

// Stem returns the artifact name (ThetaStem) that a converged fit of o
// on the feature set setID gets, so a caller can look for it before
// fitting.
func (o FitOptions) Stem(setID string) string {
	s := Settings{Alpha: o.Lasso.Alpha, FitIntercept: o.Lasso.FitIntercept, Positive: o.Lasso.Positive}
	if cv := o.Lasso.CV; cv != nil {
		s.CV = &CVSettings{Folds: cv.Folds, Alphas: cv.Alphas}
		if s.CV.Folds == 0 {
			s.CV.Folds = DefaultFolds
		}
		if len(cv.Alphas) == 0 {
			s.CV.NAlphas, s.CV.Eps = cv.NAlphas, cv.Eps
			if s.CV.NAlphas == 0 {
				s.CV.NAlphas = DefaultAlphas
			}
			if s.CV.Eps == 0 {
				s.CV.Eps = DefaultEps
			}
		}
	}
	model := o.Model
	if model == "" {
		model = ModelReference
	}
	return ThetaStem(setID, model, s, true)
}
