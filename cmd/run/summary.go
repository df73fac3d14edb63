package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/federate/accountant"
	"github.com/fedbandit/fedbandit/ltr"
	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/outputs/figure"
	"github.com/fedbandit/fedbandit/registry"
)

// readTables reads a sweep directory's runs.arrow and curves.arrow,
// refusing a pair that one collect did not write together
// (outputs.ReadTables).
func readTables(dir string) ([]outputs.RunRecord, []outputs.CurvePoint, error) {
	return outputs.ReadTables(dir)
}

// printSummary prints one line per configuration of the sweep in dir: its
// final time-average regret summed over the silos (mean +- standard error
// over seeds), both the pseudo-regret (of the means) and the realised
// regret (of the observed rewards, what the published code reports), the
// target privacy and the privacy its noise actually delivers.
//
// It reads runs.arrow alone (each run's final regret is its record's), so
// its memory does not grow with the checkpoints (outputs.FinalPoints).
func printSummary(w io.Writer, dir string) error {
	runs, curves, err := outputs.ReadFinal(dir)
	if err != nil {
		return err
	}
	series, err := figure.Build(runs, curves, figure.Pseudo)
	if err != nil {
		return err
	}
	realised, err := figure.Build(runs, curves, figure.Realised)
	if err != nil {
		return err
	}
	realByGroup := map[string]figure.Series{}
	for _, s := range realised {
		realByGroup[s.GroupID] = s
	}
	first := map[string]outputs.RunRecord{}
	for _, r := range runs {
		if _, ok := first[r.GroupID]; !ok && r.Status == outputs.StatusDone {
			first[r.GroupID] = r
		}
	}
	zeroEps := false                 // some configuration delivers eps = 0 at its delta
	uncertified := map[string]bool{} // families of the private configurations without a guarantee
	families := map[string]bool{}    // families of the configurations shown
	restated := false                // some configuration's eps is its own model's parameter (Renyi, zCDP)
	unconverged := false             // some instance's theta* did not converge
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "configuration\truns\tpseudo R(T)/T\trealised R(T)/T\ttarget (eps, delta)\tdelivered (eps, delta)\tamplified")
	for _, s := range series {
		r := first[s.GroupID]
		k := len(s.Mean) - 1
		target, delivered := "-", "none (no noise)"
		family := r.Family
		if a, err := registry.Lookup(r.Algorithm); err == nil {
			family = a.Family
		}
		families[family] = true
		// Rows record their trust model (layouts 1 and 2 are upgraded
		// on reading).
		if r.Trust != "" && r.Trust != core.TrustNone {
			target = fmt.Sprintf("(%g, %g)", outputs.Deref(r.Eps), outputs.Deref(r.Delta))
			de := outputs.Deref(r.DeliveredEps)
			delivered = fmt.Sprintf("(%.3g, %g)", de, outputs.Deref(r.DeliveredDelta))
			if !r.Certified {
				delivered = "NOT CERTIFIED"
				uncertified[family] = true
			}
			zeroEps = zeroEps || r.Certified && de == 0
			restated = restated || (r.Certified && de > outputs.Deref(r.Eps)*(1+1e-9))
		}
		alg, _ := federate.LookupAlgorithm(r.Algorithm)
		unconverged = unconverged || strings.Contains(r.HindsightNote, ltr.UnconvergedNote)
		amp := "-"
		if alg != nil && alg.Model == accountant.ModelSDPAmp && r.Linear != nil && r.Linear.Noise != nil {
			amp = fmt.Sprint(r.Linear.Noise.Amplified)
		}
		real := "-"
		if rs, ok := realByGroup[s.GroupID]; ok && len(rs.Mean) > 0 {
			kr := len(rs.Mean) - 1
			real = meanSE(rs.Mean[kr], rs.SE[kr], rs.N, "+-")
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\n", s.Label, s.N, meanSE(s.Mean[k], s.SE[k], s.N, "+-"), real, target, delivered, amp)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var whose, why []string
	for _, f := range registry.Families() {
		if families[f.Name] {
			whose = append(whose, f.Regret)
		}
		if uncertified[f.Name] {
			why = append(why, f.Uncertified)
		}
	}
	if len(families) > 1 {
		// Several families: each says whose regret it sums.
		whose = whose[:0]
		for _, f := range registry.Families() {
			if families[f.Name] {
				whose = append(whose, f.Name+": "+f.Regret)
			}
		}
	}
	fmt.Fprintf(w, "R(T)/T: time-average regret at the last round, %s (mean +- standard error over seeds); pseudo: of the mean rewards; realised: of the observed rewards (or incurred losses).\n", strings.Join(whose, "; "))
	fmt.Fprintln(w, "Delivered privacy: see calibration_note in runs.arrow where it differs from the target.")
	if len(uncertified) > 0 {
		fmt.Fprintf(w, "NOT CERTIFIED: the guarantee does not cover these runs (%s); calibration_note says why.\n", strings.Join(why, "; "))
	}
	if unconverged {
		fmt.Fprintf(w, "%s: the instance's lasso fit stopped at max_iter above its tolerance (prep fit --allow-unconverged); calibration_note in runs.arrow names the artifact.\n", ltr.UnconvergedNote)
	}
	if restated {
		fmt.Fprintln(w, "Delivered eps above the target's: the algorithm's eps is the parameter of its own privacy model (Renyi or zero-concentrated DP, e.g. Dist-RDP-SE); the delivered column is that guarantee stated as (eps, delta)-DP, and calibration_note says how.")
	}
	if zeroEps {
		fmt.Fprintln(w, "Delivered eps = 0: the noise is so large that the release is (0, delta)-DP, i.e. it already meets the target delta with no eps at all.")
	}
	return nil
}
