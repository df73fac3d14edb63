// Package lasso fits the lasso that gives a learning-to-rank bandit instance
// its true parameter theta*, exactly as scikit-learn's Lasso does:
//
//	minimise (1/(2n)) ||y - X w - b||^2 + alpha ||w||_1
//
// with an optional fitted intercept b (X and y centered, as scikit-learn
// does) and an optional positivity constraint, by cyclic coordinate descent
// with scikit-learn's duality-gap stopping rule (tol scaled by y^T y,
// max_iter iterations). The data is read once: ComputeMoments builds the
// sufficient statistics (means and the centered Gram matrix of [X, y]) in one
// parallel pass with a fixed reduction order, and every fit, cross-validation
// fold and diagnostic (R^2, MSE) is computed from them.
package lasso

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/fedbandit/fedbandit/internal/fmath"
)

// Defaults, as in scikit-learn's Lasso and the reference code.
const (
	DefaultTol     = 1e-4
	DefaultMaxIter = 10000
	DefaultFolds   = 5
	DefaultAlphas  = 10
	DefaultEps     = 1e-3
)

// Options configure a fit.
type Options struct {
	// Alpha is the l1 penalty. Ignored when CV is set.
	Alpha float64
	// FitIntercept fits an unpenalised intercept b (scikit-learn's
	// fit_intercept); the reference instance does not.
	FitIntercept bool
	// Positive constrains every coefficient to be >= 0.
	Positive bool
	// Tol is scikit-learn's tol (default 1e-4): the solve stops when the
	// duality gap of the n-scaled problem is below Tol * y^T y (y centered
	// when FitIntercept), i.e. the gap of the (1/(2n)) objective is below
	// Tol * y^T y / n.
	Tol float64
	// MaxIter bounds the coordinate-descent sweeps (default 10,000).
	MaxIter int
	// CV, when non-nil, chooses alpha by K-fold cross-validation grouped by
	// query instead of using Alpha.
	CV *CVOptions
}

// CVOptions configure cross-validation.
type CVOptions struct {
	// Folds is K (default 5). Queries are assigned to folds like
	// scikit-learn's GroupKFold: largest query first, each to the fold
	// with the fewest rows so far (ties: file order, lowest fold).
	Folds int
	// Alphas is an explicit grid. When empty, a log grid of NAlphas
	// values from alpha_max = max_j |X_j^T y| / n (the smallest alpha
	// giving w = 0) down to Eps * min_j |X_j^T y| / n is used: like
	// scikit-learn's LassoCV (which stops at Eps * alpha_max), but reaching
	// the entry point of every feature even when raw features span many
	// orders of magnitude (it equals LassoCV's grid when all features enter
	// at the same penalty).
	Alphas  []float64
	NAlphas int     // default 10
	Eps     float64 // default 1e-3
}

// CVPoint is one alpha of the cross-validation curve.
type CVPoint struct {
	Alpha float64 `json:"alpha"`
	// MSE is the mean over folds of the held-out mean squared error.
	MSE float64 `json:"mse"`
	// SE is the standard error of MSE over folds.
	SE float64 `json:"se"`
	// FoldMSE holds each fold's held-out mean squared error.
	FoldMSE []float64 `json:"fold_mse"`
}

// Result is a fitted lasso with its diagnostics.
type Result struct {
	// Coef is w (one coefficient per feature).
	Coef []float64 `json:"coef"`
	// Intercept is b (0 unless FitIntercept).
	Intercept float64 `json:"intercept"`
	Alpha     float64 `json:"alpha"`
	// R2 is the training coefficient of determination, 1 - RSS/TSS.
	R2 float64 `json:"r2"`
	// MSE is the training mean squared error RSS/n.
	MSE float64 `json:"mse"`
	// NonZero counts non-zero coefficients.
	NonZero int `json:"nonzero"`
	// Gap is the final duality gap of the (1/(2n)) objective
	// (scikit-learn's dual_gap_); Tol the threshold it was compared with
	// on the same scale.
	Gap float64 `json:"dual_gap"`
	Tol float64 `json:"gap_tol"`
	// Iterations is the number of sweeps (scikit-learn's n_iter_).
	Iterations int  `json:"iterations"`
	Converged  bool `json:"converged"`
	// Rows is n, the number of rows fitted.
	Rows int `json:"rows"`
	// CV is the cross-validation curve when alpha was chosen by CV.
	CV []CVPoint `json:"cv,omitempty"`
	// Folds is K when alpha was chosen by CV.
	Folds int `json:"folds,omitempty"`
}

// ErrDegenerate is wrapped by the error returned when every coefficient is
// zero: such a theta* gives every document the same mean reward, so the
// bandit's regret would be identically zero.
var ErrDegenerate = errors.New("degenerate lasso fit: every coefficient is zero")

func (o *Options) defaults() error {
	if o.Tol == 0 {
		o.Tol = DefaultTol
	}
	if o.MaxIter == 0 {
		o.MaxIter = DefaultMaxIter
	}
	if o.Tol < 0 || math.IsNaN(o.Tol) {
		return fmt.Errorf("lasso: tol %v must be >= 0", o.Tol)
	}
	if o.MaxIter < 1 {
		return fmt.Errorf("lasso: max iterations %d must be >= 1", o.MaxIter)
	}
	if o.CV == nil && (o.Alpha <= 0 || math.IsNaN(o.Alpha) || math.IsInf(o.Alpha, 0)) {
		return fmt.Errorf("lasso: alpha %v must be a positive number (or use cross-validation)", o.Alpha)
	}
	return nil
}

// FitMoments fits the lasso with a given alpha to the rows summarised by m.
// It returns an error wrapping ErrDegenerate when every coefficient is zero.
func FitMoments(m *Moments, o Options) (*Result, error) {
	o.CV = nil
	if err := o.defaults(); err != nil {
		return nil, err
	}
	if m.N == 0 {
		return nil, errors.New("lasso: no rows")
	}
	g := newGram(m, o.FitIntercept)
	res := g.solve(o.Alpha, o.Positive, o.Tol, o.MaxIter, nil)
	r := finish(m, g, res, o)
	if r.NonZero == 0 {
		return r, degenerateError(o.Alpha, g.alphaMax(o.Positive))
	}
	return r, nil
}

func degenerateError(alpha, alphaMax float64) error {
	return fmt.Errorf("%w: alpha = %g is at least alpha_max = %.6g, the smallest penalty for which all-zero is optimal on this data, so theta* would give every document the same reward and regret would be identically zero; use cross-validation (--cv) or an alpha below %.3g (e.g. %.3g)",
		ErrDegenerate, alpha, alphaMax, alphaMax, alphaMax/100)
}

// finish computes the diagnostics of a solve.
func finish(m *Moments, g *gram, res cdResult, o Options) *Result {
	d := g.d
	r := &Result{Coef: res.w, Alpha: o.Alpha, Rows: m.N, Iterations: res.iters, Converged: res.converged}
	n := float64(m.N)
	r.Gap = res.gap / n
	r.Tol = res.tolScaled / n
	if o.FitIntercept {
		r.Intercept = intercept(m, res.w)
	}
	rss := g.rss(res.w)
	if rss < 0 {
		rss = 0
	}
	tss := m.C[d*m.P+d]
	r.MSE = rss / n
	if tss > 0 {
		r.R2 = 1 - rss/tss
	}
	for _, w := range res.w {
		if w != 0 {
			r.NonZero++
		}
	}
	return r
}

// intercept is the fitted intercept b = mean(y) - mean(x) . w of
// coefficients w fitted on the centered statistics of m.
func intercept(m *Moments, w []float64) float64 {
	b := m.Mean[len(w)]
	for j, v := range w {
		b -= float64(m.Mean[j] * v)
	}
	return b
}

// heldOutMSE is the mean squared error of y - x.w - b over the rows of m.
func heldOutMSE(m *Moments, w []float64, b float64) float64 {
	p := m.P
	a := make([]float64, p) // residual = a . z - b with z = [x, y]
	for j, v := range w {
		a[j] = -v
	}
	a[p-1] = 1
	var aca, am float64
	for i := 0; i < p; i++ {
		var s float64
		for j := 0; j < p; j++ {
			s += float64(m.C[i*p+j] * a[j])
		}
		aca += float64(a[i] * s)
		am += float64(a[i] * m.Mean[i])
	}
	n := float64(m.N)
	return (aca + float64(n*(am-b)*(am-b))) / n
}

// GroupFolds assigns each group (query) to one of k folds like
// scikit-learn's GroupKFold: groups by decreasing size (ties in file
// order), each to the fold with the fewest rows so far (ties: lowest fold).
func GroupFolds(sizes []int, k int) ([]int, error) {
	if k < 2 {
		return nil, fmt.Errorf("lasso: cross-validation needs at least 2 folds, got %d", k)
	}
	if k > len(sizes) {
		return nil, fmt.Errorf("lasso: %d folds but only %d queries", k, len(sizes))
	}
	order := make([]int, len(sizes))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return sizes[order[a]] > sizes[order[b]] })
	load := make([]int, k)
	fold := make([]int, len(sizes))
	for _, q := range order {
		best := 0
		for f := 1; f < k; f++ {
			if load[f] < load[best] {
				best = f
			}
		}
		fold[q] = best
		load[best] += sizes[q]
	}
	return fold, nil
}

// LogGrid returns n alphas log-spaced from hi down to lo (scikit-learn's
// np.logspace(log10(lo), log10(hi), n)[::-1]).
func LogGrid(hi, lo float64, n int) []float64 {
	if n == 1 {
		return []float64{hi}
	}
	a := make([]float64, n)
	l0, l1 := float64(fmath.Log10(lo)), float64(fmath.Log10(hi))
	for i := 0; i < n; i++ {
		a[n-1-i] = fmath.Pow(10, l0+float64((l1-l0)*float64(i)/float64(n-1)))
	}
	return a
}

// cvTieRel is the relative difference of mean CV errors below which two
// alphas count as equally good (the larger one is then chosen): it keeps
// rounding-level differences from driving the choice towards zero penalty.
const cvTieRel = 1e-6

// chooseAlpha returns the index of the largest alpha (curve is ordered by
// decreasing alpha) whose mean CV error is within cvTieRel of the minimum,
// relative to the minimum's magnitude: a near-exact fit's held-out error,
// computed from the moments, can round below zero. A NaN or infinite mean
// error (data whose squares overflow float64) is an error naming its
// alpha, never a choice: NaN compares false with everything, and would
// otherwise leave no point within the limit.
func chooseAlpha(curve []CVPoint) (int, error) {
	minMSE := math.Inf(1)
	for _, p := range curve {
		if math.IsNaN(p.MSE) || math.IsInf(p.MSE, 0) {
			return 0, fmt.Errorf("the mean held-out error at alpha = %g is %g (do the data's squares overflow?)", p.Alpha, p.MSE)
		}
		minMSE = math.Min(minMSE, p.MSE)
	}
	limit := minMSE + float64(math.Abs(minMSE)*cvTieRel)
	for i, p := range curve {
		if p.MSE <= limit {
			return i, nil
		}
	}
	// Only an empty curve gets here: the minimum itself is within the limit.
	return 0, errors.New("no points on the cross-validation curve")
}

// maxGridExtensions bounds how many times the default CV grid is extended
// below its smallest alpha (see CrossValidate).
const maxGridExtensions = 4

// CrossValidate chooses alpha by K-fold cross-validation over folds given
// as per-fold moments (see ComputeMoments with GroupFolds), then fits the
// union of all folds with the chosen alpha. For each fold, the path of
// alphas (largest first) is solved with warm starts on the other folds'
// statistics and scored by held-out mean squared error; the chosen alpha
// minimises the mean over folds; alphas within a relative 1e-6 of the
// minimum count as ties and the largest of them is chosen.
//
// With the default grid, when the minimum falls on the smallest alpha the
// grid is extended downwards with the same log step, NAlphas values at a
// time (at most 4 times): raw learning-to-rank features span many orders of
// magnitude, and a fixed three-decade grid can end far above the useful
// penalties. Explicit Alphas are used as given. Folds are solved in
// parallel; the result does not depend on scheduling.
func CrossValidate(ctx context.Context, folds []*Moments, o Options) (*Result, error) {
	if o.CV == nil {
		o.CV = &CVOptions{}
	}
	cv := *o.CV
	if err := o.defaults(); err != nil {
		return nil, err
	}
	if len(folds) < 2 {
		return nil, fmt.Errorf("lasso: cross-validation needs at least 2 folds, got %d", len(folds))
	}
	all := MergeAll(folds, -1)
	if all.N == 0 {
		return nil, errors.New("lasso: no rows")
	}
	alphas := slices.Clone(cv.Alphas)
	explicit := len(alphas) > 0
	var step float64 // log10 step of the default grid
	if !explicit {
		if cv.NAlphas == 0 {
			cv.NAlphas = DefaultAlphas
		}
		if cv.Eps == 0 {
			cv.Eps = DefaultEps
		}
		if cv.NAlphas < 2 || cv.Eps <= 0 || cv.Eps >= 1 {
			return nil, fmt.Errorf("lasso: bad CV grid (%d alphas, eps %g): need at least 2 alphas and 0 < eps < 1", cv.NAlphas, cv.Eps)
		}
		g := newGram(all, o.FitIntercept)
		amax := g.alphaMax(o.Positive)
		if amax == 0 {
			return nil, fmt.Errorf("%w: X^T y = 0, no alpha gives a non-zero fit", ErrDegenerate)
		}
		lo := g.alphaMin(o.Positive) * cv.Eps
		alphas = LogGrid(amax, lo, cv.NAlphas)
		step = fmath.Log10(amax/lo) / float64(cv.NAlphas-1)
	}
	for _, a := range alphas {
		if a <= 0 || math.IsNaN(a) || math.IsInf(a, 0) {
			return nil, fmt.Errorf("lasso: CV alpha %v must be positive", a)
		}
	}
	sort.Sort(sort.Reverse(sort.Float64Slice(alphas)))
	k := len(folds)
	// Per-fold state, kept across grid extensions for warm starts.
	type foldState struct {
		train *Moments
		g     *gram
		w     []float64
		mse   []float64
	}
	states := make([]*foldState, k)
	for f := range states {
		train := MergeAll(folds, f)
		states[f] = &foldState{train: train, g: newGram(train, o.FitIntercept)}
	}
	solvePath := func(path []float64) {
		var wg sync.WaitGroup
		sem := make(chan struct{}, runtime.GOMAXPROCS(0))
		for f := 0; f < k; f++ {
			wg.Add(1)
			go func(f int) {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				st := states[f]
				for _, a := range path {
					if ctx.Err() != nil {
						return
					}
					res := st.g.solve(a, o.Positive, o.Tol, o.MaxIter, st.w)
					st.w = res.w
					var b float64
					if o.FitIntercept {
						b = intercept(st.train, st.w)
					}
					st.mse = append(st.mse, heldOutMSE(folds[f], st.w, b))
				}
			}(f)
		}
		wg.Wait()
	}
	var curve []CVPoint
	best := 0
	path := alphas
	for ext := 0; ; ext++ {
		solvePath(path)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("lasso: cross-validation: %w", err)
		}
		for ai := len(curve); ai < len(alphas); ai++ {
			pt := CVPoint{Alpha: alphas[ai], FoldMSE: make([]float64, k)}
			for f := 0; f < k; f++ {
				pt.FoldMSE[f] = states[f].mse[ai]
				pt.MSE += states[f].mse[ai]
			}
			pt.MSE /= float64(k)
			var ss float64
			for f := 0; f < k; f++ {
				ss += float64((states[f].mse[ai] - pt.MSE) * (states[f].mse[ai] - pt.MSE))
			}
			pt.SE = math.Sqrt(ss/float64(k-1)) / math.Sqrt(float64(k))
			curve = append(curve, pt)
		}
		var err error
		if best, err = chooseAlpha(curve); err != nil {
			return nil, fmt.Errorf("lasso: cross-validation: %w", err)
		}
		if explicit || best != len(alphas)-1 || ext == maxGridExtensions {
			break
		}
		last := alphas[len(alphas)-1]
		path = make([]float64, cv.NAlphas)
		for i := range path {
			path[i] = last * fmath.Pow(10, -step*float64(i+1))
		}
		alphas = append(alphas, path...)
	}
	fo := o
	fo.CV = nil
	fo.Alpha = alphas[best]
	r, err := FitMoments(all, fo)
	if r != nil {
		r.CV = curve
		r.Folds = k
	}
	if err != nil {
		return r, fmt.Errorf("lasso: cross-validation chose alpha = %g: %w", fo.Alpha, err)
	}
	return r, nil
}
