package registry

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"

	"github.com/fedbandit/fedbandit/bco"
	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/mab"
)

// Audit is what `run audit` needs of a family's empirical privacy audit:
// the flags it reads and their bounds, so that the command checks and
// dispatches through the entry and never names a family.
type Audit struct {
	// Flags are the flags of `run audit` (without "--") the audit reads;
	// any other given with one of the family's algorithms would be
	// silently ignored, so it is an error (attack round 3, W6).
	Flags []string
	// MinTrials is the fewest --trials the audit takes, its own bound
	// (attack round 4, R4-31).
	MinTrials int
	// Sweep: the audit takes --sweep (every private configuration of a
	// sweep file) and --out (audit.arrow holds its rows), and runs in
	// `run audit` itself; otherwise Run audits one algorithm.
	Sweep bool
	// Batch: the audit reads --B, a batch of users, and --T is the
	// horizon of a run with that batch, B..10^9; otherwise --T is 1..10^9.
	Batch bool
	// OptionalT: without --T the audited horizon is B (a mab audit's
	// batch is then the run's last), so --T is checked only when given.
	OptionalT bool
	// CheckPreset, when set, refuses a --preset (given) the family's
	// audit of algorithm a does not take.
	CheckPreset func(a *Algorithm, preset string) error
	// Run audits one algorithm (an audit without Sweep), printing what it
	// audited and the verdict to w. A failed audit returns an error
	// wrapping ErrAuditFailed, an inconclusive one ErrAuditInconclusive,
	// a value the family refuses an *AuditValueError.
	Run func(r AuditRequest, w io.Writer) error
}

// AuditRequest is a `run audit` of one algorithm: its flags' values.
type AuditRequest struct {
	Algorithm  string
	Eps, Delta float64
	B, T       int
	TGiven     bool // --T was given
	Trials     int
	MaxTrials  int // the most --trials takes (for a message)
	Seed       uint64
	Alpha      float64
	SigmaScale float64
	Preset     string
	Analytic   int
}

// ErrAuditFailed is the exit of an audit that found a leak or a wrong
// noise scale (the table says which).
var ErrAuditFailed = errors.New("run audit: the audit failed (see the verdict)")

// ErrAuditInconclusive is the exit of an audit (any family's) whose claim
// is above what its trials can refute: never a pass.
var ErrAuditInconclusive = errors.New("run audit: inconclusive (the claim is above what these trials can refute; see the message)")

// AuditValueError is a value the family's audit refuses, in the family's
// words ("eps = 1e-07: need ..."), which `run audit` maps to its flag.
type AuditValueError struct{ Err error }

func (e *AuditValueError) Error() string { return e.Err.Error() }
func (e *AuditValueError) Unwrap() error { return e.Err }

// The audits of the families (Family.Audit).
var (
	linearAudit = &Audit{
		Flags: []string{"sweep", "algorithm", "eps", "delta", "B", "M", "T", "preset", "relation", "protocol", "noise", "learner", "pair",
			"trials", "seed", "alpha", "sigma-scale", "out", "ignore-memory-check"},
		MinTrials: federate.MinAuditTrials, Sweep: true, Batch: true,
	}
	mabAudit = &Audit{
		Flags:     []string{"algorithm", "eps", "delta", "B", "T", "trials", "seed", "alpha", "sigma-scale", "preset"},
		MinTrials: mab.MinAuditTrials, Batch: true, OptionalT: true,
		CheckPreset: func(a *Algorithm, preset string) error {
			// A mab entry with a paper parameterisation declares paper_eps.
			if _, ok := a.Param("paper_eps"); !ok || preset == "reference-code" {
				return fmt.Errorf("--preset %s: a mab audit takes --preset exact (eps is the target) or, for an entry with the paper's Renyi / zCDP parameter (paper_eps), --preset paper; %s has no such preset", preset, a.Name)
			}
			return nil
		},
		Run: runMABAudit,
	}
	bcoAudit = &Audit{
		Flags:     []string{"algorithm", "eps", "delta", "T", "trials", "seed", "sigma-scale", "analytic"},
		MinTrials: bco.MinAuditTrials,
		Run:       runBCOAudit,
	}
)

// runMABAudit audits a private entry of the multi-armed family
// (mab.Audit: the worst-case batch pair, one user's reward 0 against 1,
// through the real encode-noise-modular-sum-decode path, with B users in
// the batch) and prints the verdict. --sigma-scale is the mutation
// control: the SecAgg mechanisms' noise is integer, so it must be 1/k
// (the noise's scale divided by k).
func runMABAudit(r AuditRequest, w io.Writer) error {
	k := math.Round(1 / r.SigmaScale)
	if k < 1 || math.Abs(float64(k*r.SigmaScale)-1) > 1e-9 {
		return fmt.Errorf("--sigma-scale %v: a SecAgg mechanism's noise is integer; use 1/k for a whole k (0.5, 0.25, ...)", r.SigmaScale)
	}
	// --preset paper: the Renyi and concentrated entries' eps is the
	// paper's parameter (paper_eps = 1), as in the figure sweeps.
	var params map[string]float64
	if r.Preset == "paper" {
		params = map[string]float64{"paper_eps": 1}
	}
	// The audited run's horizon: --T, or B (its last batch) without it.
	horizon := r.B
	if r.TGiven {
		horizon = r.T
	}
	res, err := mab.Audit(mab.AuditSpec{Algorithm: r.Algorithm, Eps: r.Eps, Delta: r.Delta, N: r.B, T: horizon, Trials: r.Trials,
		Seed: r.Seed, Alpha: r.Alpha, NoiseDivisor: uint64(k), Params: params})
	if err != nil {
		return &AuditValueError{err}
	}
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "algorithm\tbatch users x arms\tnoise x\tclaimed eps (at delta)\trelease\teps lower bound (confidence 1 - alpha)\treachable at most\tverdict")
	for _, rel := range res.Releases {
		fmt.Fprintf(tw, "%s\t%d x 2\t%g\t%.4g (%g)\t%s\t%.4g\t%.4g\t\n", r.Algorithm, r.B, r.SigmaScale, res.Claimed, res.Delta, rel.Name, rel.LowerEps, res.Ceiling)
	}
	fmt.Fprintf(tw, "%s\t%d x 2\t%g\t%.4g (%g)\t%s\t%.4g\t%.4g\t%s\n", r.Algorithm, r.B, r.SigmaScale, res.Claimed, res.Delta, "all (largest)", res.LowerEps, res.Ceiling, res.Verdict)
	tw.Flush()
	if !res.Certified {
		fmt.Fprintln(w, "The run's claim is not certified (see its calibration note); audited against the bound of its mechanism in exact arithmetic.")
	}
	switch res.Verdict {
	case mab.VerdictInconclusive:
		fmt.Fprintf(w, "Inconclusive: the claim %.4g is at or above %.4g, the largest lower bound %d trials can give at this alpha; it cannot be refuted. "+
			"At least %d trials (--trials) are needed before the audit can reject anything, and more for power.\n", res.Claimed, res.Ceiling, r.Trials, res.TrialsNeeded)
		return ErrAuditInconclusive
	case mab.VerdictViolation:
		return ErrAuditFailed
	}
	return nil
}

// bcoAuditInstance is the convex instance of `run audit` for the bco
// wrappers: the ratio of the report's sensitivity to its noise, which the
// audit measures, does not depend on the instance (sigma is calibrated to
// the sensitivity).
var bcoAuditInstance = bco.Instance{D: 10, Radius: 1, Loss: bco.LossAbsolute, Noise: 0.3, Sequence: bco.Stochastic, Seed: 1}

// runBCOAudit audits a local randomiser of the convex family (bco.Audit:
// the worst-case report pair through the production randomiser) against
// the claim its run records, and prints what it audited and the verdict.
// It fails closed: a violation or a wrong noise scale is ErrAuditFailed,
// a claim above what --trials can distinguish ErrAuditInconclusive, and
// a not-certified run that states no bound an error saying there is
// nothing to certify.
func runBCOAudit(r AuditRequest, w io.Writer) error {
	s := bco.Spec{Algorithm: r.Algorithm, Instance: bcoAuditInstance, Eps: r.Eps, Delta: r.Delta,
		Params: map[string]float64{"analytic": float64(r.Analytic)},
		M:      1, B: 1, T: max(r.T, 1), Every: max(r.T, 1), Seed: r.Seed}
	res, err := bco.Audit(s, r.Trials, r.SigmaScale)
	if errors.Is(err, bco.ErrNothingToCertify) {
		return fmt.Errorf("run audit: %w; --analytic 1 audits the certified calibration of --eps %g", err, r.Eps)
	}
	if err != nil {
		return &AuditValueError{err}
	}
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "algorithm\tanalytic\tnoise x\tclaim eps (delta)\tclaim mu\tlargest mu testable\tempirical mu +- SE\tsigma recorded\tsigma measured\tverdict")
	fmt.Fprintf(tw, "%s\t%d\t%g\t%.4g (%g)\t%.4g\t%.4g\t%.4g +- %.2g\t%.4g\t%.4g\t%s\n", r.Algorithm, r.Analytic, r.SigmaScale,
		res.ClaimEps, res.ClaimDelta, res.MuClaim, res.MuMax, res.MuEmp, res.MuSE, res.Sigma, res.SigmaEmp, res.Verdict)
	tw.Flush()
	if res.Claim.Certified {
		fmt.Fprintf(w, "\nAudited against the run's certified claim: delivered (eps, delta) = (%.4g, %g) for the target (%g, %g).\n",
			res.ClaimEps, res.ClaimDelta, res.Claim.TargetEps, res.Claim.TargetDelta)
	} else {
		fmt.Fprintf(w, "\nnot certified: %s\nAudited against the bound the run's accountant states for this noise: eps %.4g at delta %g (the target eps %g is not claimed; --analytic 1 calibrates a certified sigma).\n",
			bco.NotCertifiedReason(res.Claim), res.ClaimEps, res.ClaimDelta, res.Claim.TargetEps)
	}
	fmt.Fprintf(w, "%d releases per dataset, seed %d, noise x %g; each check at one-sided z = %g (false-alarm rate 1e-5). mu is Gaussian DP's (docs/bco.md, Privacy).\n",
		res.Trials, r.Seed, r.SigmaScale, bco.AuditZ)
	switch res.Verdict {
	case bco.VerdictViolation, bco.VerdictNoiseScale:
		return ErrAuditFailed
	case bco.VerdictInconclusive:
		fmt.Fprintf(w, "Inconclusive: the claim's mu %.4g is at or above %.4g, the largest mu %d trials per dataset can distinguish; "+
			"it needs at least %s trials (--trials, at most %d here).\n", res.MuClaim, res.MuMax, res.Trials, trialsText(res.TrialsNeeded), r.MaxTrials)
		return ErrAuditInconclusive
	}
	return nil
}

// trialsText prints a number of trials: whole below 10^15, else in
// scientific notation (it can exceed any integer type).
func trialsText(n float64) string {
	if n < 1e15 {
		return fmt.Sprintf("%.0f", n)
	}
	return fmt.Sprintf("%.4g", n)
}

// AuditOf returns the family whose audit `run audit --algorithm name`
// runs (its Audit is set): the family of a private algorithm, else the
// one whose audit takes --sweep (whose checks then say what is wrong
// with name).
func AuditOf(name string) Family {
	if a, err := Lookup(name); err == nil && a.Private() {
		if f, ok := LookupFamily(a.Family); ok && f.Audit != nil {
			return f
		}
	}
	for _, f := range families {
		if f.Audit != nil && f.Audit.Sweep {
			return f
		}
	}
	panic("registry: no family's audit takes --sweep")
}

// AuditFamilies returns the names of the families whose audit reads the
// flag (without "--"), in display order.
func AuditFamilies(flag string) []string {
	var out []string
	for _, f := range families {
		if f.Audit != nil && slices.Contains(f.Audit.Flags, flag) {
			out = append(out, f.Name)
		}
	}
	return out
}
