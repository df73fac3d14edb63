package main

import (
	"errors"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/fedbandit/fedbandit/bco"
)

// bcoAudit audits a local randomiser of the convex family (bco.Audit:
// the worst-case report pair through the production randomiser) against
// the claim its run records, and prints what it audited and the verdict.
// It fails closed: a violation or a wrong noise scale exits with
// errAuditFailed, a claim above what --trials can distinguish with
// errAuditInconclusive, and a not-certified run that states no bound
// with an error saying there is nothing to certify.
func (c *AuditCmd) bcoAudit() error {
	s := bco.Spec{Algorithm: c.Algorithm, Instance: bcoAuditInstance, Eps: c.Eps, Delta: c.Delta,
		Params: map[string]float64{"analytic": float64(c.Analytic)},
		M:      1, B: 1, T: max(c.T, 1), Every: max(c.T, 1), Seed: uint64(c.Seed)}
	r, err := bco.Audit(s, c.Trials, c.SigmaScale)
	if errors.Is(err, bco.ErrNothingToCertify) {
		return fmt.Errorf("run audit: %w; --analytic 1 audits the certified calibration of --eps %g", err, c.Eps)
	}
	if err != nil {
		return auditFlagError(err)
	}
	tw := tabwriter.NewWriter(os.Stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "algorithm\tanalytic\tnoise x\tclaim eps (delta)\tclaim mu\tlargest mu testable\tempirical mu +- SE\tsigma recorded\tsigma measured\tverdict")
	fmt.Fprintf(tw, "%s\t%d\t%g\t%.4g (%g)\t%.4g\t%.4g\t%.4g +- %.2g\t%.4g\t%.4g\t%s\n", c.Algorithm, c.Analytic, c.SigmaScale,
		r.ClaimEps, r.ClaimDelta, r.MuClaim, r.MuMax, r.MuEmp, r.MuSE, r.Sigma, r.SigmaEmp, r.Verdict)
	tw.Flush()
	if r.Claim.Certified {
		fmt.Printf("\nAudited against the run's certified claim: delivered (eps, delta) = (%.4g, %g) for the target (%g, %g).\n",
			r.ClaimEps, r.ClaimDelta, r.Claim.TargetEps, r.Claim.TargetDelta)
	} else {
		fmt.Printf("\nnot certified: %s\nAudited against the bound the run's accountant states for this noise: eps %.4g at delta %g (the target eps %g is not claimed; --analytic 1 calibrates a certified sigma).\n",
			bco.NotCertifiedReason(r.Claim), r.ClaimEps, r.ClaimDelta, r.Claim.TargetEps)
	}
	fmt.Printf("%d releases per dataset, seed %d, noise x %g; each check at one-sided z = %g (false-alarm rate 1e-5). mu is Gaussian DP's (docs/bco.md, Privacy).\n",
		r.Trials, c.Seed, c.SigmaScale, bco.AuditZ)
	switch r.Verdict {
	case bco.VerdictViolation, bco.VerdictNoiseScale:
		return errAuditFailed
	case bco.VerdictInconclusive:
		fmt.Printf("Inconclusive: the claim's mu %.4g is at or above %.4g, the largest mu %d trials per dataset can distinguish; "+
			"it needs at least %s trials (--trials, at most %d here).\n", r.MuClaim, r.MuMax, r.Trials, trialsText(r.TrialsNeeded), maxAuditTrials)
		return errAuditInconclusive
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
