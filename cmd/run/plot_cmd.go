package main

import (
	"fmt"

	"gonum.org/v1/plot/vg"

	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/outputs/figure"
)

// PlotCmd is `run plot`.
type PlotCmd struct {
	Dir      string  `arg:"" type:"existingdir" help:"Sweep output directory holding runs.arrow and curves.arrow (run collect first if they are missing)."`
	Metric   string  `help:"Curve metric to plot, by name (listed below, with their columns and meanings): pseudo (time-average regret of the means), realised (of the observed rewards, as the published code), or another metric the runs produce." default:"pseudo"`
	LogX     bool    `help:"Logarithmic round axis (the default when the horizons span two decades or more)." xor:"xscale"`
	LinearX  bool    `help:"Linear round axis, even when the horizons span two decades or more." xor:"xscale"`
	LogY     bool    `help:"Logarithmic regret axis."`
	Over     string  `help:"What a curve averages over: seed (one curve per configuration, mean and standard error over its seeds; DIR/regret.png), instance (the MAB paper's figures: the instances that differ only in their seed pooled, mean over instances of each instance's seed mean, band of one standard error over instances; a panel per eps; DIR/regret-instances.png), or auto: instance when the directory holds instances that differ only in their seed, else seed." enum:"auto,seed,instance" default:"auto"`
	Title    string  `help:"Figure title (default: the names of every sweep in the directory, one a line)."`
	WidthCm  float64 `help:"Width of each panel in cm, its legend included, 2..100." default:"16"`
	HeightCm float64 `help:"Height of each panel in cm, 2..100." default:"10"`
}

// Help lists the curve metrics.
func (c *PlotCmd) Help() string {
	return "With --metric NAME, the figure of that metric, in its plot files (below).\n\n" + metricsHelp()
}

// Bounds of the figure size in cm: smaller leaves no room for the axes,
// larger makes a PNG of hundreds of megabytes.
const minFigureCm, maxFigureCm float64 = 2, float64(figure.MaxSide / vg.Centimeter)

// Validate checks the figure size.
func (c *PlotCmd) Validate() error {
	for _, f := range []struct {
		flag string
		v    float64
	}{{"--width-cm", c.WidthCm}, {"--height-cm", c.HeightCm}} {
		if !(f.v >= minFigureCm && f.v <= maxFigureCm) {
			return fmt.Errorf("%s %v: want a size in cm, %g..%g", f.flag, f.v, minFigureCm, maxFigureCm)
		}
	}
	if _, err := outputs.LookupMetric(c.Metric); err != nil {
		return fmt.Errorf("--metric: %w", err)
	}
	return nil
}

// plotOptions are the options shared with the sweep and the main job.
type plotOptions = figure.Options

// Run draws the figure.
func (c *PlotCmd) Run() error {
	over := c.Over
	if over == "auto" {
		over = ""
	}
	return drawPlots(c.Dir, figure.Options{
		Metric: c.Metric, Over: over, LogX: c.LogX, LinearX: c.LinearX, LogY: c.LogY, Title: c.Title,
		Width: vgCm(c.WidthCm), Height: vgCm(c.HeightCm),
	})
}

// drawPlots writes the figure files and prints their paths.
func drawPlots(dir string, o figure.Options) error {
	paths, err := figure.SaveDir(dir, o)
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Printf("plot:   %s\n", p)
	}
	if m, _ := outputs.LookupMetric(o.Metric); !m.Regret() { // a regret metric: every run has it
		runs, curves, err := outputs.ReadTables(dir)
		if err != nil {
			return err
		}
		if lack := m.LackingText(runs, curves); lack != "" {
			fmt.Printf("note:   %s.\n", lack)
		}
	}
	return nil
}

func vgCm(cm float64) vg.Length { return vg.Length(cm) * vg.Centimeter }
