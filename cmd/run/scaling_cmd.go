package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/outputs/scaling"
)

// ScalingCmd is `run scaling`.
type ScalingCmd struct {
	Dir   string `arg:"" type:"existingdir" help:"Sweep output directory holding runs.arrow: a sweep over M with fedlinucb among its algorithms (e.g. sweeps/scaling-m.toml)."`
	Title string `help:"Figure title." default:"Privacy cost against the number of silos"`
}

// Run fits and prints the exponents and writes DIR/scaling.png and .svg.
func (c *ScalingCmd) Run() error {
	runs, err := outputs.ReadRuns(filepath.Join(c.Dir, outputs.RunsFile))
	if err != nil {
		return err
	}
	fits, err := scaling.Fits(runs)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(os.Stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "configuration\tM: mean cost +- SE (seeds)\texponent [95% CI]\tR^2")
	for _, f := range fits {
		pts := ""
		for _, p := range f.Points {
			if p.Seeds < 2 {
				pts += fmt.Sprintf("%d: %.4g (n=%d, no SE)  ", p.M, p.Mean, p.Seeds)
			} else {
				pts += fmt.Sprintf("%d: %.4g +- %.2g (%d)  ", p.M, p.Mean, p.SE, p.Seeds)
			}
		}
		exp := "- (fewer than 3 positive mean costs)"
		if !math.IsNaN(f.Exponent) {
			exp = fmt.Sprintf("%.3f [%.3f, %.3f]", f.Exponent, f.Lo, f.Hi)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.3f\n", f.Label, pts, exp, f.R2)
	}
	tw.Flush()
	fmt.Printf("\ncost = pseudo-regret R_M(T) minus %s's at the same M and seed; exponent: least squares of log mean cost on log M, t-interval.\n", scaling.Baseline)
	paths, err := scaling.Save(c.Dir, fits, c.Title)
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Printf("plot:   %s\n", p)
	}
	return nil
}
