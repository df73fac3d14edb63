// Package reproduce is the catalogue of the seed papers' experiments and
// the report that compares their results with the papers: what
// `run reproduce` runs and writes.
//
// The catalogue (catalogue.toml, embedded) is data: per experiment the
// paper and figure, the sweep file (sweeps/, embedded by package sweeps)
// and how each scale changes it (quick, default; paper is the file as
// shipped), the checkpoints of its table, its reference values
// (reference/*.csv, each with a SOURCE note) and the paper's claims as
// checks with a statistic. docs/extending.md, "An experiment of run
// reproduce", says how to add one.
package reproduce

import (
	"bytes"
	_ "embed"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// Scales of a reproduction.
const (
	// Quick is a few seeds and short horizons, every experiment: CI's.
	Quick = "quick"
	// Default is sized for a workstation (about 30 minutes with 2
	// workers on the 2-core reference machine).
	Default = "default"
	// PaperScale is the paper's own scale: the sweep file as shipped, written
	// as a Slurm array (docs/cluster.md) rather than run.
	PaperScale = "paper"
)

// Scales lists the scales in the order of their size.
var Scales = []string{Quick, Default, PaperScale}

// Data sources an experiment can need.
const (
	// DataNone: the experiment's instances are synthetic.
	DataNone = ""
	// DataMSLR: the experiment reads a prepared MSLR-WEB10K (--mslr);
	// without one it runs on the embedded MQ2008 as a stand-in.
	DataMSLR = "mslr10k"
)

//go:embed catalogue.toml
var catalogueTOML []byte

// Catalogue is the list of experiments and the papers they come from.
type Catalogue struct {
	Papers      []Paper      `toml:"paper"`
	Experiments []Experiment `toml:"experiment"`
}

// Paper is one seed paper.
type Paper struct {
	Key      string `toml:"key"`
	Citation string `toml:"citation"`
	// Source is where the paper's text is held (the reference folder's
	// file name).
	Source string `toml:"source"`
}

// Experiment is one figure (or claim set) of a paper.
type Experiment struct {
	Name   string `toml:"name"`
	Paper  string `toml:"paper"`
	Figure string `toml:"figure"`
	Title  string `toml:"title"`
	// Sweep is the sweep file (a name in package sweeps).
	Sweep string `toml:"sweep"`
	// Data is DataNone or DataMSLR.
	Data string `toml:"data"`
	// Metric is the curve metric of the figure and tables (outputs.Metrics).
	Metric string `toml:"metric"`
	// Over is figure.OverSeed or figure.OverInstance: what a curve
	// averages over.
	Over string `toml:"over"`
	// Plot is the figure: "curves" (regret against rounds, the
	// default) or "scaling-T" / "scaling-eps" (regret against T or eps
	// on log-log axes with the fitted exponents, package
	// outputs/scaling), or "scaling-M" (the privacy cost against M).
	Plot string `toml:"plot"`
	// LogX, LogY are the paper's axes.
	LogX bool `toml:"log_x"`
	LogY bool `toml:"log_y"`
	// Panels is the field of the configurations' labels (a key of
	// registry.Fields: "eps", "algorithm", "instance", ...) whose values
	// get a panel each, as in the paper's figure; the runs without it (a
	// non-private algorithm has no eps) are drawn in every panel. "":
	// one panel (over instances: one per instance class and eps).
	Panels string `toml:"panels"`
	// Columns is the most panels in a row of the figure (0: all in one
	// row).
	Columns int `toml:"columns"`
	// Notes explain the differences from the paper (Markdown, emitted
	// as written).
	Notes string `toml:"notes"`
	// Scale is how each scale changes the sweep file.
	Scale map[string]Scaling `toml:"scale"`
	// StandIn is how a DataMSLR experiment's sweep changes on the
	// embedded MQ2008 (its Set only; Features lists the feature sets it
	// needs fitted).
	StandIn StandIn `toml:"stand_in"`
	// References are the published numbers the results are compared
	// with.
	References []Reference `toml:"reference"`
	// Checks are the paper's claims, each with its statistic.
	Checks []Check `toml:"check"`
}

// Scaling is how one scale changes an experiment's sweep file.
type Scaling struct {
	// Set maps a key to its value at this scale: "seeds",
	// "checkpoint_every", "grid.KEY", "instance.KEY" (every instance),
	// "algorithm.KEY" (every algorithm) or "instances" (the names of
	// the instances kept, in order).
	Set map[string]any `toml:"set"`
	// Checkpoints are the rounds of the report's table (each a
	// checkpoint of the runs).
	Checkpoints []int `toml:"checkpoints"`
}

// StandIn is the MQ2008 stand-in of a DataMSLR experiment.
type StandIn struct {
	// Set is applied after the scale's (e.g. instance.features).
	Set map[string]any `toml:"set"`
	// Features are the feature sets to fit on MQ2008 for it.
	Features []string `toml:"features"`
	// Note says what the stand-in changes (Markdown).
	Note string `toml:"note"`
}

// Reference is a file of reference values and where it applies.
type Reference struct {
	// File is a name in reference/ (a CSV with a SOURCE note).
	File string `toml:"file"`
	// Scales are the scales at which the results are comparable with it
	// (the reference's own settings); at others it is read and checked
	// but not compared.
	Scales []string `toml:"scales"`
	// Tolerance is the relative difference called agreement (0.10:
	// "within 10%").
	Tolerance float64 `toml:"tolerance"`
}

// Check kinds.
const (
	// KindBelow: series Lower's mean is below series Upper's at round
	// At (Welch's one-sided test at level Alpha).
	KindBelow = "below"
	// KindExponent: the exponent of a fit over T, eps or d (package
	// outputs/scaling), or of the privacy cost over M, is Value (its 95%
	// interval contains Value).
	KindExponent = "exponent"
)

// Check is one claim of the paper with the statistic that decides it.
type Check struct {
	// Claim is the paper's words (or a faithful summary).
	Claim string `toml:"claim"`
	Kind  string `toml:"kind"`
	// Lower and Upper select the two series of a KindBelow check: each
	// the substrings that exactly one series label contains.
	Lower []string `toml:"lower"`
	Upper []string `toml:"upper"`
	// At is the round of a KindBelow check (absent: the last
	// checkpoint of the scale).
	At *int `toml:"at"`
	// Over ("T", "eps", "d": the instances' dimension, or "M": the
	// privacy cost against FedLinUCB), Series (substrings selecting one fit),
	// Baseline (optional: the privacy cost against this algorithm),
	// Value (the claimed exponent) and Local (the last local exponent
	// instead of the fit over every point) define a KindExponent check.
	Over     string   `toml:"over"`
	Series   []string `toml:"series"`
	Baseline string   `toml:"baseline"`
	Value    *float64 `toml:"value"`
	Local    bool     `toml:"local"`
	// Scales are the scales the check is decided at (absent: every
	// scale); at others it is reported as not tested.
	Scales []string `toml:"scales"`
}

// Load reads and validates the embedded catalogue.
func Load() (*Catalogue, error) { return Parse(catalogueTOML) }

// Parse reads and validates a catalogue.
func Parse(raw []byte) (*Catalogue, error) {
	var c Catalogue
	md, err := toml.NewDecoder(bytes.NewReader(raw)).Decode(&c)
	if err != nil {
		return nil, fmt.Errorf("catalogue: %w", err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		var keys []string
		for _, k := range u {
			keys = append(keys, k.String())
		}
		return nil, fmt.Errorf("catalogue: unknown key %s", strings.Join(keys, ", "))
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

func (c *Catalogue) validate() error {
	papers := map[string]bool{}
	for i, p := range c.Papers {
		if p.Key == "" || p.Citation == "" {
			return fmt.Errorf("catalogue: paper[%d]: key and citation are required", i)
		}
		if papers[p.Key] {
			return fmt.Errorf("catalogue: paper[%d]: key %q twice", i, p.Key)
		}
		papers[p.Key] = true
	}
	names := map[string]bool{}
	for i := range c.Experiments {
		e := &c.Experiments[i]
		where := fmt.Sprintf("catalogue: experiment[%d] %q", i, e.Name)
		if !validName(e.Name) {
			return fmt.Errorf("%s: name: want lower-case letters, digits and '-'", where)
		}
		if names[e.Name] {
			return fmt.Errorf("%s: name given twice", where)
		}
		names[e.Name] = true
		if !papers[e.Paper] {
			return fmt.Errorf("%s: paper %q is not a [[paper]] key", where, e.Paper)
		}
		if e.Figure == "" || e.Title == "" || e.Sweep == "" {
			return fmt.Errorf("%s: figure, title and sweep are required", where)
		}
		if e.Data != DataNone && e.Data != DataMSLR {
			return fmt.Errorf("%s: data %q: want %q or nothing", where, e.Data, DataMSLR)
		}
		switch e.Over {
		case "seed", "instance":
		default:
			return fmt.Errorf("%s: over %q: want \"seed\" or \"instance\"", where, e.Over)
		}
		switch e.Plot {
		case "", "curves", "scaling-T", "scaling-eps", "scaling-M":
		default:
			return fmt.Errorf("%s: plot %q: want curves, scaling-T, scaling-eps or scaling-M", where, e.Plot)
		}
		if e.Metric == "" {
			return fmt.Errorf("%s: metric is required", where)
		}
		if e.Panels != "" && e.Over == "instance" {
			return fmt.Errorf("%s: panels %q: a figure over instances has a panel per instance class and eps already", where, e.Panels)
		}
		if e.Columns < 0 {
			return fmt.Errorf("%s: columns %d: want a count of panels >= 0", where, e.Columns)
		}
		for _, s := range []string{Quick, Default} {
			sc, ok := e.Scale[s]
			if !ok {
				return fmt.Errorf("%s: scale.%s is required", where, s)
			}
			if len(sc.Checkpoints) == 0 {
				return fmt.Errorf("%s: scale.%s.checkpoints is required", where, s)
			}
			for _, t := range sc.Checkpoints {
				if t < 1 {
					return fmt.Errorf("%s: scale.%s.checkpoints: %d is not a round", where, s, t)
				}
			}
		}
		if e.Data == DataMSLR && (len(e.StandIn.Features) == 0 || e.StandIn.Note == "") {
			return fmt.Errorf("%s: an MSLR experiment needs stand_in.features and stand_in.note", where)
		}
		for s := range e.Scale {
			if !slices.Contains(Scales, s) {
				return fmt.Errorf("%s: scale.%s: want one of %s", where, s, strings.Join(Scales, ", "))
			}
		}
		for j, r := range e.References {
			if r.File == "" || len(r.Scales) == 0 || !(r.Tolerance > 0 && r.Tolerance < 1) {
				return fmt.Errorf("%s: reference[%d]: file, scales and a tolerance in (0, 1) are required", where, j)
			}
			for _, s := range r.Scales {
				if !slices.Contains(Scales, s) {
					return fmt.Errorf("%s: reference[%d]: scale %q: want one of %s", where, j, s, strings.Join(Scales, ", "))
				}
			}
		}
		for j, ck := range e.Checks {
			if err := ck.validate(); err != nil {
				return fmt.Errorf("%s: check[%d]: %w", where, j, err)
			}
		}
	}
	return nil
}

func (ck *Check) validate() error {
	if ck.Claim == "" {
		return fmt.Errorf("claim is required")
	}
	for _, s := range ck.Scales {
		if !slices.Contains(Scales, s) {
			return fmt.Errorf("scale %q: want one of %s", s, strings.Join(Scales, ", "))
		}
	}
	switch ck.Kind {
	case KindBelow:
		if len(ck.Lower) == 0 || len(ck.Upper) == 0 {
			return fmt.Errorf("kind below needs lower and upper")
		}
		if ck.At != nil && *ck.At < 1 {
			return fmt.Errorf("at %d: want a round >= 1", *ck.At)
		}
	case KindExponent:
		if ck.Over != "T" && ck.Over != "eps" && ck.Over != "M" && ck.Over != "d" {
			return fmt.Errorf("over %q: want T, eps, M or d", ck.Over)
		}
		if ck.Over == "M" && ck.Baseline != "" {
			return fmt.Errorf("over M fits the privacy cost against FedLinUCB: no baseline")
		}
		if len(ck.Series) == 0 || ck.Value == nil {
			return fmt.Errorf("kind exponent needs series and value")
		}
	default:
		return fmt.Errorf("kind %q: want %q or %q", ck.Kind, KindBelow, KindExponent)
	}
	return nil
}

// decided reports whether the check is decided at scale.
func (ck *Check) decided(scale string) bool {
	return len(ck.Scales) == 0 || slices.Contains(ck.Scales, scale)
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// Names returns the experiments' names in catalogue order.
func (c *Catalogue) Names() []string {
	out := make([]string, len(c.Experiments))
	for i, e := range c.Experiments {
		out[i] = e.Name
	}
	return out
}

// Select returns the experiments named (all when names is empty), in
// catalogue order. An unknown name is an error listing the valid ones.
func (c *Catalogue) Select(names []string) ([]*Experiment, error) {
	want := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if c.Find(n) == nil {
			valid := c.Names()
			sort.Strings(valid)
			return nil, fmt.Errorf("unknown experiment %q; the experiments are: %s", n, strings.Join(valid, ", "))
		}
		want[n] = true
	}
	var out []*Experiment
	for i := range c.Experiments {
		if len(want) == 0 || want[c.Experiments[i].Name] {
			out = append(out, &c.Experiments[i])
		}
	}
	return out, nil
}

// Find returns the experiment of that name, or nil.
func (c *Catalogue) Find(name string) *Experiment {
	for i := range c.Experiments {
		if c.Experiments[i].Name == name {
			return &c.Experiments[i]
		}
	}
	return nil
}

// PaperOf returns the experiment's paper.
func (c *Catalogue) PaperOf(e *Experiment) Paper {
	for _, p := range c.Papers {
		if p.Key == e.Paper {
			return p
		}
	}
	return Paper{}
}
