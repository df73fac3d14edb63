package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/alecthomas/kong"

	"github.com/fedbandit/fedbandit/features"
	"github.com/fedbandit/fedbandit/lasso"
	"github.com/fedbandit/fedbandit/partition"
	"github.com/fedbandit/fedbandit/prepare"
)

// FitCmd is `prep fit`: fit theta* of a bandit instance and store it in the
// dataset directory.
type FitCmd struct {
	Dataset  string `arg:"" name:"DATASET_DIR" type:"existingdir" help:"Prepared dataset directory (from prep ingest)."`
	Features string `required:"" short:"f" placeholder:"SET" help:"Feature set: title (MSLR, d=57), body (MSLR, d=78), all (MSLR 1..133 or every LETOR feature), or a column list such as 1-5,7,126-131."`
	Model    string `default:"reference" enum:"reference,well-specified" help:"Reward model: reference (fit on raw features, theta* unscaled; the paper's instance) or well-specified (fit on the learner's normalised features, ||theta*|| <= 1). Default: ${default}."`

	Alpha   *float64  `xor:"alpha" placeholder:"A" help:"Lasso penalty alpha > 0 of (1/(2n))||y - Xw||^2 + alpha ||w||_1 (the reference used 1.0 on MSLR)."`
	CV      bool      `xor:"alpha" help:"Choose alpha by K-fold cross-validation grouped by query."`
	Folds   int       `default:"5" placeholder:"K" help:"CV folds (default ${default})."`
	Alphas  []float64 `sep:"," placeholder:"A" help:"Explicit CV grid, used as given (default: --n-alphas values log-spaced from alpha_max down to --eps times the smallest per-feature entry point min_j |X_j^T y|/n, extended downwards while the best alpha is the smallest)."`
	NAlphas int       `default:"10" placeholder:"N" help:"Size of the default CV grid (default ${default})."`
	Eps     float64   `default:"1e-3" placeholder:"E" help:"Bottom of the default CV grid relative to min_j |X_j^T y|/n (default ${default})."`

	Intercept    float64 `default:"0.01" placeholder:"V" help:"Value of the constant intercept feature 0 of every document, 0 <= V <= 1e6; 0 means no intercept feature, as --no-intercept (default ${default})."`
	NoIntercept  bool    `help:"No constant intercept feature (artifact name gets -i0)."`
	FitIntercept bool    `help:"Also fit an unpenalised intercept b, centering X and y as scikit-learn does (the reference does not)."`
	Positive     bool    `help:"Constrain coefficients to be >= 0."`
	Tol          float64 `default:"1e-4" placeholder:"T" help:"scikit-learn's tol, 0 < T < 1: stop when the duality gap is below tol * ||y||^2 / n (default ${default})."`
	MaxIter      int     `default:"10000" placeholder:"N" help:"Maximum coordinate-descent sweeps, 1 <= N <= 10^9 (default ${default})."`
	Workers      *int    `placeholder:"N" help:"Goroutines reading the data, 1 <= N <= 1024 (default: number of CPUs)."`

	AllowUnconverged bool `help:"Keep a fit that stops at --max-iter above its tolerance (refused otherwise): its artifact name ends in -unconverged, and sweeps on it say so in their summary and calibration_note."`

	// key names a setting in errors: the flag ("--tol") by default, the
	// config key ("fit[0].tol") for prep all's config.
	key func(flag string) string `kong:"-"`
	// interceptGiven reports that --intercept (a config's intercept) was
	// given, not taken from its default.
	interceptGiven bool `kong:"-"`
}

// BeforeApply records which flags the command line gave (kong calls it
// before Validate): a flag at its default and one given are different
// things (--intercept with --no-intercept is an error, not a default).
func (c *FitCmd) BeforeApply(kctx *kong.Context) error {
	c.interceptGiven = flagGiven(kctx, "intercept")
	return nil
}

// flagGiven reports whether the command line gave the flag called name.
func flagGiven(kctx *kong.Context, name string) bool {
	for _, p := range kctx.Path {
		if p.Flag != nil && p.Flag.Name == name {
			return true
		}
	}
	return false
}

// Help is shown by `prep fit --help` after the flags.
func (c *FitCmd) Help() string {
	return `Fits scikit-learn's Lasso (same objective, cyclic coordinate descent, same
duality-gap stopping rule; coefficients match scikit-learn to 1e-6) on the
documents of DATASET_DIR: target = relevance label, features = the chosen
set with a constant 0.01 intercept feature in front. The data is read once
(both cores) into the Gram statistics; the solve itself works on those.

An all-zero fit (alpha >= alpha_max, e.g. alpha=1 on MQ2008's [0,1]
features) is an error: every document would get the same reward and regret
would be identically zero. Use --cv or a smaller alpha.

A fit that stops at --max-iter with its duality gap above the tolerance is
refused (raise --max-iter), unless --allow-unconverged.

Writes DATASET_DIR/instances/<set>-<model>-<fit>.theta.json (atomically),
<fit> being a<alpha>, cv<K>-n<N>-e<eps> or cv<K>-g<hash> (explicit grid),
then -fi (--fit-intercept), -pos (--positive), -tol<T> (a --tol other than
1e-4), -unconverged (-maxiter<N>-unconverged at a --max-iter other than
10000): fits with other settings never replace each other. The file holds theta*, the lasso
settings, R^2, MSE, non-zeros, duality gap, iterations, converged, the CV
curve, and the dataset's data_sha256. Files named
<set>-<model>.theta.json (written before) still load.

Examples:
  prep fit data/mslr10k --features title --alpha 1          # the paper's instance
  prep fit data/mslr10k --features title --model well-specified --cv
  prep fit data/mq2008 --features all --cv --folds 5 --n-alphas 20
  prep fit data/mq2008 --features 1-10,40-46 --alpha 1e-3 --fit-intercept`
}

// Validate checks the flags as given (kong calls it after parsing).
func (c *FitCmd) Validate() error {
	_, err := c.options()
	return err
}

// name returns how errors name the setting of flag (without its dashes).
func (c *FitCmd) name(flag string) string {
	if c.key != nil {
		return c.key(flag)
	}
	return "--" + flag
}

// short is name without the config file it may start with ("fit[0].cv"
// of "CONFIG: fit[0].cv"), for a second setting in one message.
func (c *FitCmd) short(flag string) string {
	n := c.name(flag)
	if i := strings.LastIndex(n, ": "); i >= 0 {
		return n[i+2:]
	}
	return n
}

// options validates the flags as given (a flag the user set to 0 is an
// error where 0 is not a valid value, never a silent default) and returns
// the fit options. Errors name the flag, or the config key for prep all.
func (c *FitCmd) options() (lasso.FitOptions, error) {
	finitePos := func(x float64) bool { return x > 0 && !math.IsInf(x, 0) }
	fail := func(format string, a ...any) (lasso.FitOptions, error) {
		return lasso.FitOptions{}, fmt.Errorf(format, a...)
	}
	if err := checkFeatureSet(c.name("features"), c.Features); err != nil {
		return fail("%w", err)
	}
	switch {
	case !c.CV && c.Alpha == nil:
		return fail("give %s A or %s", c.name("alpha"), c.name("cv"))
	case c.CV && c.Alpha != nil:
		return fail("%s and %s can't be used together: give alpha, or cross-validate to choose it", c.name("alpha"), c.short("cv"))
	case c.NoIntercept && c.interceptGiven:
		return fail("%s and %s can't be used together: %s 0 is no intercept feature", c.name("intercept"), c.short("no-intercept"), c.short("intercept"))
	case c.Model != lasso.ModelReference && c.Model != lasso.ModelWellSpecified:
		return fail("%s %q: want %s or %s", c.name("model"), c.Model, lasso.ModelReference, lasso.ModelWellSpecified)
	case c.Alpha != nil && !finitePos(*c.Alpha):
		return fail("%s %v: want a penalty > 0 (alpha = 0 is least squares, which the lasso solver does not do; use a small alpha or %s)", c.name("alpha"), *c.Alpha, c.name("cv"))
	case c.Folds < 2 || c.Folds > maxFolds:
		return fail("%s %d: want 2 <= K <= %d cross-validation folds", c.name("folds"), c.Folds, maxFolds)
	case c.NAlphas < 1 || c.NAlphas > maxNAlphas:
		return fail("%s %d: want 1 <= N <= %d grid points", c.name("n-alphas"), c.NAlphas, maxNAlphas)
	case !finitePos(c.Eps) || c.Eps >= 1:
		return fail("%s %v: want 0 < eps < 1", c.name("eps"), c.Eps)
	case !(c.Intercept >= 0 && c.Intercept <= maxAbsValue):
		return fail("%s %v: want 0 (no intercept feature) or 0 < V <= %g", c.name("intercept"), c.Intercept, maxAbsValue)
	case !finitePos(c.Tol) || c.Tol >= 1:
		return fail("%s %v: want 0 < tol < 1", c.name("tol"), c.Tol)
	case c.MaxIter < 1 || c.MaxIter > maxIter:
		return fail("%s %d: want 1 <= N <= %d", c.name("max-iter"), c.MaxIter, maxIter)
	}
	if err := checkOptInt(c.name("workers"), c.Workers, 1, maxWorkers, "goroutines reading the data"); err != nil {
		return fail("%w", err)
	}
	for i, a := range c.Alphas {
		if !finitePos(a) {
			return fail("%s: value %d is %v, want > 0", c.name("alphas"), i+1, a)
		}
	}
	var alpha float64
	if c.Alpha != nil {
		alpha = *c.Alpha
	}
	o := lasso.FitOptions{
		Features: c.Features, Intercept: c.Intercept, NoIntercept: c.NoIntercept, Model: c.Model, Workers: optInt(c.Workers),
		AllowUnconverged: c.AllowUnconverged,
		Lasso:            lasso.Options{Alpha: alpha, FitIntercept: c.FitIntercept, Positive: c.Positive, Tol: c.Tol, MaxIter: c.MaxIter},
	}
	if c.Intercept == 0 {
		o.NoIntercept = true
	}
	if c.CV {
		o.Lasso.CV = &lasso.CVOptions{Folds: c.Folds, Alphas: c.Alphas, NAlphas: c.NAlphas, Eps: c.Eps}
	}
	return o, nil
}

// Run executes `prep fit`.
func (c *FitCmd) Run() error {
	o, err := c.options()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	th, err := lasso.FitDataset(ctx, c.Dataset, o)
	if err != nil {
		return err
	}
	printTheta(c.Dataset, th)
	return nil
}

func printTheta(dir string, th *lasso.Theta) {
	f := th.Fit
	for _, p := range f.CV {
		fmt.Printf("  cv alpha %-12.6g mse %.6g ± %.3g\n", p.Alpha, p.MSE, p.SE)
	}
	fmt.Printf("%s: %s, model %s, alpha %g: R^2 %.4f, MSE %.6g, %d/%d non-zero, duality gap %.3g (tol %.3g), %d iterations -> %s\n",
		dir, th.Features.String(), th.Model, f.Alpha, f.R2, f.MSE, f.NonZero, len(f.Coef), f.Gap, f.Tol, f.Iterations,
		lasso.ThetaFile(dir, th))
	if !th.Converged() {
		fmt.Printf("NOT CONVERGED (kept with --allow-unconverged): sweeps on this theta* say so in their summary and calibration_note\n")
	}
}

// PartitionCmd is `prep partition`: split a dataset's queries across silos
// and store the partition in the dataset directory.
type PartitionCmd struct {
	Dataset  string `arg:"" name:"DATASET_DIR" type:"existingdir" help:"Prepared dataset directory (from prep ingest)."`
	Silos    int    `required:"" short:"m" placeholder:"M" help:"Number of silos M (1 <= M <= number of queries)."`
	Strategy string `default:"contiguous" enum:"contiguous,random,by-size,by-relevance" help:"contiguous (the reference: equal blocks in file order), random (seeded), by-size or by-relevance (non-IID). Default: ${default}."`
	Seed     uint64 `placeholder:"N" help:"Seed of the random strategy."`
}

// Help is shown by `prep partition --help` after the flags.
func (c *PartitionCmd) Help() string {
	return `Every strategy gives each silo floor(Q/M) queries, as the reference code
does; the Q mod M left over are listed as unused.

  contiguous    silo i gets queries [i*s, (i+1)*s) in file order; the last
                Q mod M queries are unused (the paper's setting)
  random        a seeded random permutation, then equal blocks (IID silos)
  by-size       queries sorted by number of documents: silo 0 has the
                smallest, silo M-1 the largest (non-IID action counts)
  by-relevance  queries sorted by mean label: silo 0 sees the least
                relevant result lists (non-IID reward levels)

Writes DATASET_DIR/partitions/<strategy>-M<M>[-s<seed>].json (atomically)
with the dataset's data_sha256 and the partition's own hash. Runs
compute the same partition themselves and check it against this file.

Examples:
  prep partition data/mslr10k --silos 10
  prep partition data/mslr10k -m 100 --strategy random --seed 7`
}

// Validate checks the flags as given (kong calls it after parsing).
func (c *PartitionCmd) Validate() error {
	return checkInt("--silos", c.Silos, 1, maxSilos, "silos")
}

// Run executes `prep partition`.
func (c *PartitionCmd) Run() error {
	return writePartition(c.Dataset, c.Strategy, c.Silos, c.Seed)
}

func writePartition(dir, strategy string, m int, seed uint64) error {
	p, man, err := partition.ForDataset(dir, strategy, m, seed)
	if err != nil {
		return err
	}
	path, err := partition.WriteArtifact(dir, man.DataHash, p)
	if err != nil {
		return err
	}
	printPartition(dir, p, path)
	return nil
}

func printPartition(dir string, p *partition.Partition, path string) {
	fmt.Printf("%s: %d queries -> %d silos of %d (%s), %d unused -> %s\n", dir, p.Queries, p.Silos, len(p.Assign[0]), p.Strategy, len(p.Unused), path)
}

// AllCmd is `prep all`: ingest, fit and partition in one go, from flags or
// a TOML config.
type AllCmd struct {
	Config string `arg:"" optional:"" name:"CONFIG" type:"existingfile" help:"TOML config (see below). It replaces the flags: any of --input, --out, --force, --features, --model, --alpha, --silos, --strategy and --seed given with it is an error."`

	Inputs   []string `name:"input" short:"i" placeholder:"PATH" help:"Input files, directory or zip (as for prep ingest; repeatable)."`
	Out      string   `short:"o" placeholder:"DATASET_DIR" help:"Dataset directory. An existing prepared dataset is reused if it was made from the same inputs (an error otherwise), unless --force."`
	Force    bool     `help:"Re-ingest even if DATASET_DIR exists."`
	Features []string `sep:"," default:"title" placeholder:"SET" help:"Feature sets to fit (default ${default})."`
	Model    []string `sep:"," default:"reference" placeholder:"MODEL" help:"Reward models to fit (default ${default})."`
	Alpha    *float64 `placeholder:"A" help:"Lasso alpha > 0 (without it: cross-validation)."`
	Silos    []int    `sep:"," default:"10" placeholder:"M" help:"Silo counts to partition for (default ${default})."`
	Strategy string   `default:"contiguous" enum:"contiguous,random,by-size,by-relevance" help:"Partition strategy (default ${default})."`
	Seed     uint64   `placeholder:"N" help:"Seed of the random partition strategy."`

	// given lists the flags the command line gave (BeforeApply).
	given []string `kong:"-"`
}

// allFlags are prep all's flags that a CONFIG replaces.
var allFlags = []string{"input", "out", "force", "features", "model", "alpha", "silos", "strategy", "seed"}

// BeforeApply records which of allFlags the command line gave (kong
// calls it before Validate), defaults excluded.
func (c *AllCmd) BeforeApply(kctx *kong.Context) error {
	c.given = nil
	for _, f := range allFlags {
		if flagGiven(kctx, f) {
			c.given = append(c.given, f)
		}
	}
	return nil
}

// Help is shown by `prep all --help` after the flags.
func (c *AllCmd) Help() string {
	return `Runs prep ingest (unless DATASET_DIR already holds a prepared dataset),
then prep fit for every feature set x model, then prep partition for every
silo count. Example config (prep all mslr10k.toml):

  inputs = ["~/data/MSLR-WEB10K.zip"]
  out    = "data/mslr10k"
  force  = false

  [[fit]]                      # one table per theta* to fit
  features = "title"
  model    = "reference"
  alpha    = 1.0               # omit alpha (or set cv = true) for cross-validation

  [[fit]]
  features = "title"
  model    = "well-specified"
  cv       = true
  folds    = 5

  [[partition]]                # one table per partition
  silos    = 10
  strategy = "contiguous"

  [[partition]]
  silos    = 100
  strategy = "random"
  seed     = 7

Fit tables also take intercept, no_intercept, fit_intercept, positive, tol,
max_iter, alphas, n_alphas, eps, allow_unconverged (as the prep fit flags).

Same with flags:
  prep all -i ~/data/MSLR-WEB10K.zip -o data/mslr10k --features title --alpha 1 --silos 10,100`
}

// Validate checks the flags as given (kong calls it after parsing); a
// config's keys are checked when it is read, naming the key.
func (c *AllCmd) Validate() error {
	if c.Config != "" && len(c.given) > 0 {
		// The config replaces the flags: one given as well would be
		// silently ignored.
		return fmt.Errorf("--%s with CONFIG %s: the config replaces the flags (%s); put it in the config (see prep all --help)", c.given[0], c.Config, "--"+strings.Join(allFlags, ", --"))
	}
	for _, in := range c.Inputs {
		if err := checkText("--input", in); err != nil {
			return err
		}
	}
	if err := checkText("--out", c.Out); err != nil {
		return err
	}
	for _, f := range c.Features {
		if err := checkFeatureSet("--features", f); err != nil {
			return err
		}
	}
	for _, m := range c.Model {
		if m != lasso.ModelReference && m != lasso.ModelWellSpecified {
			return fmt.Errorf("--model %q: want %s or %s", m, lasso.ModelReference, lasso.ModelWellSpecified)
		}
	}
	if c.Alpha != nil && !(*c.Alpha > 0 && !math.IsInf(*c.Alpha, 0)) {
		return fmt.Errorf("--alpha %v: want a penalty > 0 (leave it out for cross-validation)", *c.Alpha)
	}
	for _, m := range c.Silos {
		if err := checkInt("--silos", m, 1, maxSilos, "silos"); err != nil {
			return err
		}
	}
	return nil
}

// allConfig is the TOML layout of `prep all CONFIG`.
type allConfig struct {
	Inputs    []string          `toml:"inputs"`
	Out       string            `toml:"out"`
	Force     bool              `toml:"force"`
	Fit       []fitConfig       `toml:"fit"`
	Partition []partitionConfig `toml:"partition"`
}

// fitConfig is one [[fit]] table; a key left out takes prep fit's default,
// a key given is validated as given.
type fitConfig struct {
	Features     string    `toml:"features"`
	Model        string    `toml:"model"`
	Alpha        *float64  `toml:"alpha"`
	CV           bool      `toml:"cv"`
	Folds        *int      `toml:"folds"`
	Alphas       []float64 `toml:"alphas"`
	NAlphas      *int      `toml:"n_alphas"`
	Eps          *float64  `toml:"eps"`
	Intercept    *float64  `toml:"intercept"`
	NoIntercept  bool      `toml:"no_intercept"`
	FitIntercept bool      `toml:"fit_intercept"`
	Positive     bool      `toml:"positive"`
	Tol          *float64  `toml:"tol"`
	MaxIter      *int      `toml:"max_iter"`
	// AllowUnconverged is --allow-unconverged.
	AllowUnconverged bool `toml:"allow_unconverged"`
}

// or returns *p, or def when p is nil.
func or[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

type partitionConfig struct {
	Silos    int    `toml:"silos"`
	Strategy string `toml:"strategy"`
	// Seed is int64 so that a negative seed is an error, not wrapped to
	// a uint64 (attack round 3, W5).
	Seed int64 `toml:"seed"`
}

func (c *AllCmd) config() (*allConfig, error) {
	if c.Config == "" {
		cfg := &allConfig{Inputs: c.Inputs, Out: c.Out, Force: c.Force}
		for _, f := range c.Features {
			for _, m := range c.Model {
				cfg.Fit = append(cfg.Fit, fitConfig{Features: f, Model: m, Alpha: c.Alpha, CV: c.Alpha == nil})
			}
		}
		for _, m := range c.Silos {
			cfg.Partition = append(cfg.Partition, partitionConfig{Silos: m, Strategy: c.Strategy, Seed: int64(c.Seed)})
		}
		return cfg, nil
	}
	var cfg allConfig
	md, err := toml.DecodeFile(c.Config, &cfg)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", c.Config, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("config %s: unknown key %q", c.Config, und[0].String())
	}
	// Relative paths in a config are relative to the config file.
	base := filepath.Dir(c.Config)
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		if len(p) > 1 && p[:2] == "~/" {
			if home, err := os.UserHomeDir(); err == nil {
				return filepath.Join(home, p[2:])
			}
		}
		return filepath.Join(base, p)
	}
	for i := range cfg.Inputs {
		cfg.Inputs[i] = rel(cfg.Inputs[i])
	}
	cfg.Out = rel(cfg.Out)
	return &cfg, nil
}

// Run executes `prep all`.
func (c *AllCmd) Run() error {
	cfg, err := c.config()
	if err != nil {
		return err
	}
	if cfg.Out == "" {
		return errors.New("no dataset directory: give --out or out = \"...\" in the config")
	}
	o := prepare.Options{Inputs: cfg.Inputs, Out: cfg.Out, Force: cfg.Force, Log: slog.Default()}
	for i, f := range cfg.Fit {
		fc := FitCmd{
			Dataset: cfg.Out, Features: f.Features, Model: f.Model, Alpha: f.Alpha, CV: f.CV || f.Alpha == nil, interceptGiven: f.Intercept != nil,
			Folds: or(f.Folds, 5), Alphas: f.Alphas, NAlphas: or(f.NAlphas, 10), Eps: or(f.Eps, 1e-3),
			Intercept: or(f.Intercept, features.DefaultIntercept), NoIntercept: f.NoIntercept,
			FitIntercept: f.FitIntercept, Positive: f.Positive, Tol: or(f.Tol, 1e-4), MaxIter: or(f.MaxIter, 10000),
			AllowUnconverged: f.AllowUnconverged,
		}
		if fc.Model == "" {
			fc.Model = lasso.ModelReference
		}
		if c.Config != "" {
			fc.key = func(flag string) string {
				return fmt.Sprintf("%s: fit[%d].%s", c.Config, i, strings.ReplaceAll(flag, "-", "_"))
			}
		}
		fo, err := fc.options()
		if err != nil {
			return err
		}
		o.Fits = append(o.Fits, fo)
	}
	for i, p := range cfg.Partition {
		if c.Config != "" {
			if err := checkInt(fmt.Sprintf("%s: partition[%d].silos", c.Config, i), p.Silos, 1, maxSilos, "silos"); err != nil {
				return err
			}
			if p.Seed < 0 {
				return fmt.Errorf("%s: partition[%d].seed: %d, want a seed >= 0", c.Config, i, p.Seed)
			}
		}
		o.Partitions = append(o.Partitions, prepare.Partition{Strategy: p.Strategy, Silos: p.Silos, Seed: uint64(p.Seed)})
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := prepare.Run(ctx, o)
	if err != nil {
		return err
	}
	if m := res.Manifest; res.Ingested {
		fmt.Printf("%s: %d rows, %d queries, %d features, data_sha256 %s\n", cfg.Out, m.Rows, m.Queries, m.Features, m.DataHash)
	}
	for _, th := range res.Thetas {
		printTheta(cfg.Out, th)
	}
	for i, p := range res.Partitions {
		printPartition(cfg.Out, p, res.PartitionPaths[i])
	}
	return nil
}
