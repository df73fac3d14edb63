package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/alecthomas/kong"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/internal/cliconv"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/outputs/figure"
	"github.com/fedbandit/fedbandit/registry"
	"github.com/fedbandit/fedbandit/runner"
)

// AuditCmd is `run audit`.
type AuditCmd struct {
	Sweep      string   `help:"Audit every private configuration of this sweep file (TOML) instead of the one the flags below describe; each is audited with the learner the file gives it." type:"existingfile"`
	Algorithm  string   `help:"Private algorithm to audit: of the linear family ldp, sdp-amp, sdp-vec, super-agent, feducb (ldp-linucb noises each report and is checked by federate.TestLDPLinUCBNoise instead); a private entry of the multi-armed family (dp-se, cdp-se, ldp-se, dist-dp-se, dist-rdp-se, dist-cdp-se: the last batch, of --B users on each of two arms, of a run of horizon B, in every mode the entry offers; dp-ucb: the tree nodes holding one user's reward in runs of horizon B); a local randomiser of the convex family (ldp-one-point, ldp-two-point). Every audit prints its verdict and exits 1 when it fails (VIOLATION, NOISE SCALE, DEPENDENCE: any configuration's, --sweep included) or is inconclusive (its claim above what --trials can refute; the message says how many trials would settle it)." default:"ldp"`
	Eps        float64  `help:"Target eps, in (0, 100]." default:"1"`
	Delta      float64  `help:"Target delta, in (0, 1)." default:"0.1"`
	B          int      `name:"B" help:"Batch size: the first release covers B users, 1..100000." default:"25"`
	M          int      `name:"M" help:"Silos of the run whose calibration is audited (one silo is simulated), 1..100000." default:"1"`
	T          int      `name:"T" help:"Horizon of the run whose calibration is audited, B..10^9 (1..10^9 for a bco audit): its tree has 1 + floor(log2(T/B)) levels, of which the action pair audits up to three (T = 4B: the whole transcript). A mab audit: the horizon of the run whose batch of --B users is audited, B..10^9, --B one of its batch sizes (without --T: B, the batch is the run's last; the ledger's calibration depends on the horizon)." default:"100"`
	Preset     string   `help:"Calibration preset (exact, paper, reference-code). mab: paper makes eps the paper's Renyi / zCDP parameter of dist-rdp-se and dist-cdp-se (paper_eps = 1); exact (the default) makes it the target (eps, delta)-DP." enum:"exact,paper,reference-code" default:"exact"`
	Relation   string   `help:"Neighbouring relation (add-remove, replace-one; default add-remove, or the one the algorithm is stated for)." enum:",add-remove,replace-one" default:""`
	Protocol   string   `help:"Protocol (P, P_alt; default: the algorithm's)." enum:",P,P_alt" default:""`
	Noise      string   `help:"Sampler of the Gaussian noise (gaussian: floating point, the default; discrete: the exact discrete Gaussian on a grid, docs/privacy.md 2.4)." enum:",gaussian,discrete" default:""`
	Learner    []string `help:"Learners to audit: eager, lazy. Default: the algorithm's (eager for feducb, lazy for super-agent, both otherwise)."`
	Pair       string   `help:"Neighbouring datasets: action (the first user's context and reward against an absent or replaced user; release: every published node containing her, up to three tree levels), reward (her rewards 1 vs 0; release: the first node) or schedule (her context norm 1 vs 1/2; release: the round of the first synchronisation). Default: schedule for an algorithm whose schedule depends on the data (feducb), reward for the eager learner, action otherwise." enum:",action,reward,schedule" default:""`
	Trials     int      `help:"Releases drawn under each of the two neighbouring datasets: 10..1000000 for a linear audit, 100..1000000 for a mab or bco audit (16 bytes each are kept per configuration)." default:"4000"`
	Seed       seedFlag `help:"Seed of the audit's noise streams, 0..2^64-1 (0 included); each configuration draws from its own streams derived from this seed and its label." default:"1"`
	Alpha      float64  `help:"False-alarm rate of the whole invocation, in (0, 0.5): each of n configurations is audited at alpha/n (Bonferroni), so a correct release passes them all with probability at least 1 - alpha." default:"0.01"`
	SigmaScale float64  `name:"sigma-scale" help:"Multiply the noise actually drawn, in (0, 1000] (mutation control: 0.5 must be flagged as a violation, 2 as a wrong noise scale; a noiseless release, 0, has no privacy to measure and is refused)." default:"1"`
	Analytic   int      `help:"A bco audit: the algorithm's analytic key (1: the analytic Gaussian's sigma, certified at every eps; 0: the slides' sigma, which the run records not certified above about eps 7, and the audit then tests the bound the accountant states for it)." default:"0"`
	Out        string   `help:"Write the results here: audit.arrow (one row per configuration, releases included; schema in outputs/README.md) and the plot audit.png / audit.svg (a new or empty directory, or one run wrote before)." type:"path"`
	memoryFlag

	// given lists the flags of the command the command line gave
	// (BeforeApply), defaults excluded.
	given []string
}

// BeforeApply records which of the command's flags the command line gave
// (kong calls it before Validate).
func (c *AuditCmd) BeforeApply(kctx *kong.Context) error {
	c.given = nil
	own := map[string]bool{}
	if n := kctx.Selected(); n != nil {
		for _, f := range n.Flags {
			own[f.Name] = true
		}
	}
	for _, p := range kctx.Path {
		if p.Flag != nil && own[p.Flag.Name] && !slices.Contains(c.given, p.Flag.Name) {
			c.given = append(c.given, p.Flag.Name)
		}
	}
	return nil
}

// auditableNames lists the private algorithms of every family, which
// --algorithm takes.
func auditableNames() string {
	var names []string
	for _, a := range registry.Algorithms() {
		if a.Private() {
			names = append(names, a.Name)
		}
	}
	return strings.Join(names, ", ")
}

// Bounds of the audit's flags (documented in their help).
const (
	maxAuditEps    = 100
	maxAuditB      = 100000
	maxAuditM      = 100000
	maxAuditT      = 1000000000
	maxAuditTrials = 1000000
	maxSigmaScale  = 1000
)

// auditArticle names a family's audit for a message: "a linear", "a mab".
func auditArticle(f registry.Family) string { return "a " + f.Name }

// seedFlag is a uint64 flag whose error states its range (attack round 4,
// R4-31: "-1" gave kong's "expected a valid 64 bit uint" or, read as a
// short flag, a hint to quote it).
type seedFlag uint64

// Decode reads the flag's value (kong.MapperValue): a decimal 0..2^64-1.
func (s *seedFlag) Decode(ctx *kong.DecodeContext) error {
	t := ctx.Scan.Pop()
	v := t.String()
	if t.IsEOL() {
		v = ""
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return fmt.Errorf("%q: want a seed 0..2^64-1 (0 to 18446744073709551615)", v)
	}
	*s = seedFlag(n)
	return nil
}

// Validate checks every flag before anything runs: each error names its
// flag. What a family's audit reads and takes is its registry entry's
// (registry.Family.Audit).
func (c *AuditCmd) Validate() error {
	fam := registry.AuditOf(c.Algorithm)
	au := fam.Audit
	if !au.Sweep {
		for _, f := range c.given {
			if !slices.Contains(au.Flags, f) {
				return fmt.Errorf("--%s: a %s audit does not use it (it reads --%s): leave it out", f, fam.Name, strings.Join(au.Flags, ", --"))
			}
		}
		if c.Sweep != "" {
			return fmt.Errorf("--algorithm %s: --sweep audits the %s family's configurations; audit a %s algorithm with the flags", c.Algorithm, sweepFamily().Name, fam.Name)
		}
		if c.Out != "" {
			return fmt.Errorf("--out: audit.arrow holds the %s family's audits; a %s audit prints its verdict", sweepFamily().Name, fam.Name)
		}
	} else if a, err := registry.Lookup(c.Algorithm); err != nil {
		return fmt.Errorf("--algorithm: unknown algorithm %q: want a private algorithm of any family: %s", c.Algorithm, auditableNames())
	} else if c.Sweep == "" && !a.Private() {
		return fmt.Errorf("--algorithm %s: not private, nothing to audit (the private algorithms: %s)", c.Algorithm, auditableNames())
	} else if _, err := federate.LookupAlgorithm(c.Algorithm); err != nil {
		return fmt.Errorf("--algorithm: %w", err)
	} else {
		for _, f := range c.given {
			if !slices.Contains(au.Flags, f) {
				return fmt.Errorf("--%s: a %s audit's key; the %s family does not use it: leave it out", f, strings.Join(registry.AuditFamilies(f), " or "), fam.Name)
			}
		}
	}
	if au.CheckPreset != nil && slices.Contains(c.given, "preset") {
		a, _ := registry.Lookup(c.Algorithm)
		if err := au.CheckPreset(a, c.Preset); err != nil {
			return err
		}
	}
	if c.Analytic != 0 && c.Analytic != 1 {
		return fmt.Errorf("--analytic %d: want 0 or 1", c.Analytic)
	}
	if !(c.Eps > 0 && c.Eps <= maxAuditEps) {
		return fmt.Errorf("--eps %v: want a target eps in (0, %d]", c.Eps, maxAuditEps)
	}
	if !(c.Delta > 0 && c.Delta < 1) {
		return fmt.Errorf("--delta %v: want a target delta in (0, 1)", c.Delta)
	}
	if c.B < 1 || c.B > maxAuditB {
		return fmt.Errorf("--B %d: want a batch size 1..%d", c.B, maxAuditB)
	}
	if c.M < 1 || c.M > maxAuditM {
		return fmt.Errorf("--M %d: want 1..%d silos", c.M, maxAuditM)
	}
	// A batch audit's run needs T >= B (the linear family's tree; a mab
	// run whose batch of B users is audited, when --T is given: without
	// it the audited run's horizon is B); an audit without a batch reads
	// no B (attack round 3, U10).
	switch {
	case au.Batch && (!au.OptionalT || slices.Contains(c.given, "T")) && (c.T < c.B || c.T > maxAuditT):
		return fmt.Errorf("--T %d: want a horizon of B = %d..%d rounds", c.T, c.B, maxAuditT)
	case au.Batch:
	case c.T < 1 || c.T > maxAuditT:
		return fmt.Errorf("--T %d: want a horizon of 1..%d rounds", c.T, maxAuditT)
	}
	for _, l := range c.Learner {
		if l != "eager" && l != "lazy" {
			return fmt.Errorf("--learner %q: want eager or lazy", l)
		}
	}
	if min := au.MinTrials; c.Trials < min || c.Trials > maxAuditTrials {
		return fmt.Errorf("--trials %d: want %d..%d releases per dataset for %s audit", c.Trials, min, maxAuditTrials, auditArticle(fam))
	}
	if !(c.Alpha > 0 && c.Alpha < 0.5) {
		return fmt.Errorf("--alpha %v: want a false-alarm rate in (0, 0.5)", c.Alpha)
	}
	if !(c.SigmaScale > 0 && c.SigmaScale <= maxSigmaScale) {
		return fmt.Errorf("--sigma-scale %v: want a noise multiplier in (0, %d] (0 would release without noise: no privacy to audit)", c.SigmaScale, maxSigmaScale)
	}
	return nil
}

// auditBytes estimates an audit's peak memory: the releases kept per
// configuration (two float64 per trial) and about 1 MiB of state each.
func auditBytes(jobs, trials int) int64 {
	return int64(jobs) * (16*int64(trials) + 1<<20)
}

// auditJob is one configuration to audit.
type auditJob struct {
	label string
	spec  federate.Spec
}

// Run audits each configuration, prints the table and writes the outputs.
func (c *AuditCmd) Run(ctx context.Context) error {
	if au := registry.AuditOf(c.Algorithm).Audit; !au.Sweep {
		err := au.Run(registry.AuditRequest{Algorithm: c.Algorithm, Eps: c.Eps, Delta: c.Delta, B: c.B, T: c.T, TGiven: slices.Contains(c.given, "T"),
			Trials: c.Trials, MaxTrials: maxAuditTrials, Seed: uint64(c.Seed), Alpha: c.Alpha, SigmaScale: c.SigmaScale, Preset: c.Preset, Analytic: c.Analytic}, os.Stdout)
		if ve := (*registry.AuditValueError)(nil); errors.As(err, &ve) {
			return auditFlagError(ve.Err)
		}
		return err
	}
	jobs, skipped, err := c.jobs()
	if err != nil {
		return err
	}
	for _, s := range skipped {
		fmt.Fprintln(os.Stderr, "not audited:", s)
	}
	if len(jobs) == 0 {
		// --sweep audits the linear family's configurations; a mab or
		// bco algorithm is audited with --algorithm (U11).
		return fmt.Errorf("run audit: nothing to audit: --sweep audits the linear family's private configurations; audit a mab or bco algorithm with --algorithm NAME (each listed above)")
	}
	if err := c.memoryFlag.check("run audit", auditBytes(len(jobs), c.Trials)); err != nil {
		return err
	}
	if c.Out != "" {
		if err := runner.CheckOwned(c.Out); errors.Is(err, runner.ErrNotOwned) {
			return err
		}
	}
	var bar *mpb.Bar
	var prog *mpb.Progress
	if isTerminal(os.Stderr) {
		prog = mpb.New(mpb.WithOutput(os.Stderr), mpb.WithWidth(32), mpb.WithAutoRefresh())
		bar = prog.AddBar(int64(len(jobs)*c.Trials),
			mpb.PrependDecorators(decor.Name("trials ", decor.WCSyncSpaceR), decor.CountersNoUnit("%d/%d", decor.WCSyncWidth)),
			mpb.AppendDecorators(decor.Name("ETA "), decor.AverageETA(decor.ET_STYLE_GO)))
	}
	var rows []outputs.AuditRow
	for _, j := range jobs {
		if ctx.Err() != nil {
			if prog != nil {
				bar.Abort(false)
				prog.Wait()
			}
			return fmt.Errorf("audit interrupted, nothing written (%w); rerun the same command to start again", context.Cause(ctx))
		}
		o := federate.AuditOptions{Trials: c.Trials, Seed: uint64(c.Seed), Config: j.label, SigmaScale: c.SigmaScale,
			Alpha: c.Alpha / float64(len(jobs)), Pair: c.Pair}
		if bar != nil {
			o.Progress = func() { bar.Increment() }
		}
		r, err := federate.Audit(ctx, j.spec, o)
		if err != nil {
			if prog != nil {
				bar.Abort(false)
				prog.Wait()
			}
			if ctx.Err() != nil {
				return fmt.Errorf("audit interrupted, nothing written (%w); rerun the same command to start again", context.Cause(ctx))
			}
			return fmt.Errorf("%s: %w", j.label, err)
		}
		rows = append(rows, auditRow(j, r, c))
	}
	if prog != nil {
		prog.Wait()
	}
	printAudit(rows, c.Alpha)
	if c.Out != "" {
		if err := runner.ClaimDir(c.Out); err != nil {
			return err
		}
		table := filepath.Join(c.Out, outputs.AuditFile)
		if err := outputs.WriteAudit(table, rows); err != nil {
			return err
		}
		paths, err := figure.SaveAudit(c.Out, rows)
		if err != nil {
			return err
		}
		fmt.Printf("\naudit: %s\nplot:  %s\n", table, strings.Join(paths, ", "))
	}
	return linearVerdict(rows)
}

// linearVerdict is the exit of a linear audit, --sweep included, as for
// the other families: errAuditFailed when any configuration's verdict is
// VIOLATION, NOISE SCALE or DEPENDENCE, else errAuditInconclusive when
// any is inconclusive (each printed with its statistic and the trials
// that would settle it), nil when every one passes.
func linearVerdict(rows []outputs.AuditRow) error {
	var failed, open []string
	for _, r := range rows {
		switch {
		case r.Verdict == federate.VerdictPass:
		case strings.HasPrefix(r.Verdict, federate.VerdictInconclusive):
			open = append(open, r.Config)
		default:
			failed = append(failed, r.Config)
		}
	}
	switch {
	case len(failed) > 0:
		return fmt.Errorf("%w: %d of %d configurations (%s)", errAuditFailed, len(failed), len(rows), strings.Join(failed, "; "))
	case len(open) > 0:
		return fmt.Errorf("%w: %d of %d configurations (%s)", errAuditInconclusive, len(open), len(rows), strings.Join(open, "; "))
	}
	return nil
}

// jobs lists the configurations: the sweep file's private ones, or the
// flags' spec once per learner. skipped says which were left out and why.
func (c *AuditCmd) jobs() (jobs []auditJob, skipped []string, err error) {
	if c.Sweep == "" {
		alg, err := federate.LookupAlgorithm(c.Algorithm)
		if err != nil {
			return nil, nil, fmt.Errorf("--algorithm: %w", err)
		}
		learners := c.Learner
		if len(learners) == 0 {
			switch {
			case alg.AdaptiveSchedule:
				learners = []string{"eager"} // FedUCB has no lazy learner
			case alg.EveryRound:
				learners = []string{"lazy"} // the super agent acts on private statistics only
			default:
				learners = []string{"eager", "lazy"}
			}
		}
		seen := map[string]bool{}
		for _, l := range learners {
			if l != "eager" && l != "lazy" {
				return nil, nil, fmt.Errorf("--learner %q: want eager or lazy", l)
			}
			s := federate.Spec{Algorithm: c.Algorithm, Eps: c.Eps, Delta: c.Delta, B: c.B, M: c.M, T: c.T, Preset: c.Preset,
				Relation: c.Relation, Protocol: c.Protocol, Lazy: l == "lazy", Noise: c.Noise}
			s.Noise = s.Canonical().Noise
			// Labelled as the audit sees it (defaults filled: the
			// algorithm's protocol, B = 1 for the super agent).
			label := auditLabel(s)
			if !seen[label] {
				seen[label] = true
				jobs = append(jobs, auditJob{label: label, spec: s})
			}
		}
		return jobs, nil, nil
	}
	cfg, err := runner.LoadConfig(c.Sweep)
	if err != nil {
		return nil, nil, err
	}
	specs, err := cfg.Configurations()
	if err != nil {
		return nil, nil, err
	}
	for _, a := range cfg.Algorithms {
		if fam := registry.AuditOf(a.Name); !fam.Audit.Sweep && !slices.Contains(skipped, a.Name) {
			skipped = append(skipped, fmt.Sprintf("%s: of the %s family, audited one algorithm at a time: run audit --algorithm %s --%s", a.Name, fam.Name, a.Name, strings.Join(fam.Audit.Flags[1:], " ... --")+" ..."))
		}
	}
	seen := map[string]bool{}
	for _, s := range specs {
		alg, err := federate.LookupAlgorithm(s.Algorithm)
		if err != nil {
			return nil, nil, err
		}
		label := auditLabel(s)
		if seen[label] {
			continue
		}
		seen[label] = true
		switch {
		case !alg.Private():
			skipped = append(skipped, label+": not private")
		case alg.LocalNoise:
			skipped = append(skipped, label+": noises each user's report, not a tree node (its Gaussian mechanism is checked by federate.TestLDPLinUCBNoise)")
		default:
			jobs = append(jobs, auditJob{label: label, spec: s})
		}
	}
	return jobs, skipped, nil
}

// auditLabel names a configuration: the one label of a configuration
// (registry.Label) of the spec with defaults, at the M and T its audit
// row records, without an instance (the audit's is its own).
func auditLabel(s federate.Spec) string {
	s = s.WithDefaults()
	s.M, s.T = max(s.M, 1), max(s.T, s.B)
	return registry.Label(registry.FromSpec(s, "", ""))
}

func auditRow(j auditJob, r *federate.AuditResult, c *AuditCmd) outputs.AuditRow {
	s := j.spec
	learner := "eager"
	if s.Lazy {
		learner = "lazy"
	}
	return outputs.AuditRow{
		Config: j.label, Algorithm: r.Spec.Algorithm, Learner: learner, Preset: r.Spec.Preset, Protocol: r.Spec.Protocol,
		Relation: r.Spec.Relation, Eps: r.Spec.Eps, Delta: r.Spec.Delta, B: r.Spec.B, M: max(s.M, 1), T: max(s.T, r.Spec.B),
		Pair: r.Kind, PairDoc: r.Pair, Trials: r.Trials, Seed: uint64(c.Seed), SigmaScale: c.SigmaScale,
		ClaimMu: r.ClaimMu, ClaimEps: r.ClaimEps, ExactMu: r.ExactMu, Mu: r.Mu, MuLo: r.MuLo, MuHi: r.MuHi,
		SD: r.SD, SDLo: r.SDLo, SDHi: r.SDHi, P0: r.P0, P1: r.P1, EpsLo: r.EpsLo, Verdict: r.Verdict,
		Released0: r.Released0, Released1: r.Released1,
	}
}

func printAudit(rows []outputs.AuditRow, alpha float64) {
	tw := tabwriter.NewWriter(os.Stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "configuration\tpair\tclaimed mu (eps)\texact mu of the pair\tempirical mu [CI]\tnoise sd [CI]\tP(sync at 1) norm 1 / 1/2\teps lower bound\tverdict")
	f := func(format string, v ...float64) string {
		for _, x := range v {
			if math.IsNaN(x) {
				return "-"
			}
		}
		return fmt.Sprintf(format, anys(v)...)
	}
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s (%.3g)\t%s\t%s\t%s\t%s\t%.3g\t%s\n", r.Config, r.Pair,
			f("%.3f", r.ClaimMu), r.ClaimEps, f("%.3f", r.ExactMu), f("%.3f [%.3f, %.3f]", r.Mu, r.MuLo, r.MuHi),
			f("%.3f [%.3f, %.3f]", r.SD, r.SDLo, r.SDHi), f("%.3f / %.3f", r.P1, r.P0), r.EpsLo, r.Verdict)
	}
	tw.Flush()
	if len(rows) > 0 {
		r := rows[0]
		fmt.Printf("\n%d releases per dataset, seed %d, noise x %g. One silo; M and T choose the calibration.\n", r.Trials, r.Seed, r.SigmaScale)
		a := alpha / float64(len(rows))
		fmt.Printf("Each configuration is decided at false-alarm rate %.3g (--alpha %g over %d configurations): the intervals and bounds are at level 1 - %.3g each.\n",
			a, alpha, len(rows), a/5)
	}
	pairs := map[string]bool{}
	for _, r := range rows {
		if !pairs[r.PairDoc] {
			pairs[r.PairDoc] = true
			fmt.Printf("Pair %s: %s.\n", r.Pair, r.PairDoc)
		}
	}
	fmt.Println("mu is Gaussian-DP's: the claim is the run's guarantee restricted to the audited tree levels. A violation means the release leaks more than the run claims (docs/privacy.md 2.1, 2.1b, 2.2).")
}

func anys(v []float64) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = x
	}
	return out
}

// auditFlags maps the key a family's audit error starts with ("eps =
// 1e-07: ...") to the flag that set it.
var auditFlags = map[string]string{"eps": "--eps", "delta": "--delta", "trials": "--trials", "sigma scale": "--sigma-scale", "N": "--B"}

// auditFlagError is a family audit's error, naming the flag at fault
// where the family names its key ("run audit: --eps: eps = 1e-07: need a
// value in [2^-20, 2^20]"): then a usage error (exit 2), a flag's value
// the family refuses.
func auditFlagError(err error) error {
	if key, _, ok := strings.Cut(err.Error(), " = "); ok {
		if flag, ok := auditFlags[key]; ok {
			return cliconv.Usage(fmt.Errorf("run audit: %s: %w", flag, err))
		}
	}
	return fmt.Errorf("run audit: %w", err)
}

// errAuditInconclusive and errAuditFailed are the exits of an audit,
// any family's (registry.ErrAuditInconclusive, registry.ErrAuditFailed).
var (
	errAuditInconclusive = registry.ErrAuditInconclusive
	errAuditFailed       = registry.ErrAuditFailed
)

// sweepFamily is the family whose audit takes --sweep.
func sweepFamily() registry.Family { return registry.AuditOf("") }
