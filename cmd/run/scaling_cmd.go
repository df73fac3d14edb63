package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/outputs/figure"
	"github.com/fedbandit/fedbandit/outputs/scaling"
	"github.com/fedbandit/fedbandit/registry"
)

// ScalingCmd is `run scaling`.
type ScalingCmd struct {
	Dir   string `arg:"" type:"existingdir" help:"Sweep output directory holding runs.arrow: a sweep over M with fedlinucb among its algorithms (e.g. sweeps/scaling-m.toml), or a sweep over T or eps (e.g. sweeps/bco-rates.toml)."`
	Over  string `help:"The key fitted over: M (the privacy cost against FedLinUCB), T or eps (the mean pseudo-regret)." enum:"M,T,eps" default:"M"`
	Title string `help:"Figure title (default: by --over)."`
	// Baseline turns a fit over T or eps into one of the privacy cost.
	Baseline string `help:"With --over T or eps: fit the privacy cost instead, each run's pseudo-regret minus that of this algorithm's run with the same instance, M, B, T and seed (e.g. one-point for ldp-one-point in sweeps/bco-slides.toml)."`
}

// Validate checks --baseline: a registered algorithm, with --over T or
// eps.
func (c *ScalingCmd) Validate() error {
	if c.Baseline == "" {
		return nil
	}
	if _, err := registry.Lookup(c.Baseline); err != nil {
		return fmt.Errorf("--baseline %q: %w", c.Baseline, err)
	}
	if c.Over == scaling.OverM {
		return fmt.Errorf("--baseline %s: only with --over T or eps (over M the cost is against %s)", c.Baseline, scaling.Baseline)
	}
	return nil
}

// Run fits and prints the exponents and writes DIR/scaling.png and .svg.
func (c *ScalingCmd) Run() error {
	runs, err := outputs.ReadRuns(filepath.Join(c.Dir, outputs.RunsFile))
	if err != nil {
		return err
	}
	var fits []scaling.Fit
	if c.Baseline != "" {
		fits, err = scaling.CostsOver(runs, c.Over, c.Baseline)
	} else {
		fits, err = scaling.FitsOver(runs, c.Over)
	}
	if err != nil {
		return err
	}
	what := "mean cost"
	if c.Over != scaling.OverM && c.Baseline == "" {
		what = "mean pseudo-regret"
	}
	tw := tabwriter.NewWriter(os.Stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "configuration\t%s: %s +- SE (seeds)\texponent [95%% CI]\tR^2\n", c.Over, what)
	for _, f := range fits {
		pts := ""
		for _, p := range f.Points {
			if p.Seeds < 2 {
				pts += fmt.Sprintf("%g: %.4g (n=%d, no SE)  ", p.X, p.Mean, p.Seeds)
			} else {
				pts += fmt.Sprintf("%g: %.4g +- %.2g (%d)  ", p.X, p.Mean, p.SE, p.Seeds)
			}
		}
		exp := "- (fewer than 3 positive mean costs)"
		if !math.IsNaN(f.Exponent) {
			exp = fmt.Sprintf("%.3f [%.3f, %.3f]", f.Exponent, f.Lo, f.Hi)
		}
		r2 := "-"
		if !math.IsNaN(f.R2) {
			r2 = fmt.Sprintf("%.3f", f.R2)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Label, pts, exp, r2)
	}
	tw.Flush()
	title := c.Title
	switch {
	case c.Over == scaling.OverM:
		fmt.Printf("\ncost = pseudo-regret R_M(T) minus %s's at the same M and seed; exponent: least squares of log mean cost on log M, t-interval.\n", scaling.Baseline)
		if title == "" {
			title = "Privacy cost against the number of silos"
		}
	default:
		if c.Baseline != "" {
			fmt.Printf("\ncost = pseudo-regret minus %s's at the same instance, M, B, T and seed (paired).", c.Baseline)
			what = "cost"
		} else {
			what = "pseudo-regret R(T)"
		}
		fmt.Printf("\nexponent: least squares of log mean %s (over the seeds) on log %s, 95%% t-interval (points - 2 degrees of freedom).\n", what, c.Over)
		fmt.Printf("\nlocal exponents between consecutive values of %s: ln(mean ratio) / ln(%s ratio), 95%% interval by the delta method (t, min(seeds) - 1 degrees of freedom)\n", c.Over, c.Over)
		for _, f := range fits {
			fmt.Fprintf(tw, "%s", f.Label)
			for _, s := range f.Local {
				switch {
				case math.IsNaN(s.Exponent):
					fmt.Fprintf(tw, "\t%g-%g: - (a mean not positive)", s.From, s.To)
				case math.IsNaN(s.Lo):
					fmt.Fprintf(tw, "\t%g-%g: %.3f (n=1, no interval)", s.From, s.To, s.Exponent)
				default:
					fmt.Fprintf(tw, "\t%g-%g: %.3f [%.3f, %.3f]", s.From, s.To, s.Exponent, s.Lo, s.Hi)
				}
			}
			if len(f.Local) == 0 {
				fmt.Fprintf(tw, "\t- (one value of %s)", c.Over)
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
		if title == "" {
			title = "Pseudo-regret against " + c.Over
			if c.Baseline != "" {
				title = "Privacy cost against " + c.Over
			}
		}
	}
	paths, err := scaling.SaveOver(c.Dir, fits, title, c.Over)
	if errors.Is(err, figure.ErrNothingToDraw) {
		fmt.Printf("plot:   none (%v)\n", err)
		return nil
	}
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Printf("plot:   %s\n", p)
	}
	return nil
}
