package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/outputs"
	"github.com/fedbandit/fedbandit/outputs/figure"
)

// overSweep is a small mab sweep shaped like mab-fig1: two instance
// classes (easy, gap 0.5; hard, gap 0.1) of two instances each, two run
// seeds, two private algorithms at two eps and the non-private SE (drawn
// in every eps panel): 40 runs of 20,000 rounds. Two instances and two
// seeds make every mean a sum of two terms, which floating point adds the
// same way in either order: the test's independent means must then equal
// the figure's bit for bit.
func overSweep() string {
	var b strings.Builder
	b.WriteString("name = \"over\"\nseeds = 2\ncheckpoint_every = 5000\n")
	for _, c := range []struct {
		name string
		gap  float64
	}{{"easy", 0.5}, {"hard", 0.1}} {
		for seed := 0; seed < 2; seed++ {
			fmt.Fprintf(&b, "[[instance]]\nname = \"%s%d\"\nkind = \"mab\"\ngap = %g\nmeans_from = \"numpy-legacy\"\nseed = %d\n", c.name, seed, c.gap, seed)
		}
	}
	b.WriteString("[[algorithm]]\nname = \"se\"\n[[algorithm]]\nname = \"dp-se\"\n[[algorithm]]\nname = \"dist-dp-se\"\n")
	b.WriteString("[grid]\neps = [0.5, 1]\ndelta = [1e-5]\nT = [20000]\n")
	return b.String()
}

// TestPlotOverInstances: `run plot --over instance` and `run table --over
// instance` average over the instances of a class as the MAB paper does.
// Every curve of every panel equals, at every checkpoint, the mean and
// standard error computed here from curves.arrow and runs.arrow alone:
// grouped by the instance names of the sweep file (easy*, hard*), the
// algorithm and eps, each instance's mean over its seeds, then the mean
// over instances and the sample sd of the instance means over sqrt(2).
//
// Mutation controls (run once): registry.InstanceClass returning the
// description with its seed (a curve per instance again) gives 8 panels:
// fails; pooling the 4 runs of a curve flat (each run its own "instance")
// gives "4 instances" and at round 5000 an SE of 0.00176 over runs
// instead of 0.00304 over instances: fails.
func TestPlotOverInstances(t *testing.T) {
	dir := t.TempDir()
	sweep := filepath.Join(dir, "over.toml")
	if err := os.WriteFile(sweep, []byte(overSweep()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if _, err := runCLI(t, "sweep", sweep, "--out", out, "--no-plot", "--rate", "1e9", "--workers", "2"); err != nil {
		t.Fatal(err)
	}
	runs, curves, err := outputs.ReadTables(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 40 {
		t.Fatalf("%d runs, want (2 x 2 + 1) x 4 instances x 2 seeds = 40", len(runs))
	}

	// The independent means: class -> algorithm and eps -> instance ->
	// the seeds' curves (time-average pseudo-regret by checkpoint).
	byRun := map[string][]float64{}
	var rounds []float64
	for _, c := range curves {
		byRun[c.RunID] = append(byRun[c.RunID], c.TimeAvgPseudo)
		if c.RunID == curves[0].RunID {
			rounds = append(rounds, float64(c.Round))
		}
	}
	type key struct{ class, alg, eps string }
	groups := map[key]map[string][][]float64{}
	for _, r := range runs {
		k := key{strings.TrimRight(r.Instance, "0123456789"), r.Algorithm, ""}
		if r.Algorithm != "se" {
			k.eps = strconv.FormatFloat(*r.Eps, 'g', -1, 64)
		}
		if groups[k] == nil {
			groups[k] = map[string][][]float64{}
		}
		groups[k][r.Instance] = append(groups[k][r.Instance], byRun[r.RunID])
	}
	want := func(k key) (mean, se []float64) {
		g := groups[k]
		for i := range rounds {
			var inst []float64
			for _, seeds := range g {
				var s float64
				for _, c := range seeds {
					s += c[i]
				}
				inst = append(inst, s/float64(len(seeds)))
			}
			var m float64
			for _, x := range inst {
				m += x
			}
			m /= float64(len(inst))
			var ss float64
			for _, x := range inst {
				ss += (x - m) * (x - m)
			}
			mean = append(mean, m)
			se = append(se, math.Sqrt(ss/float64(len(inst)-1))/math.Sqrt(float64(len(inst))))
		}
		return mean, se
	}

	panels, err := figure.BuildOverInstances(runs, curves, figure.Pseudo)
	if err != nil {
		t.Fatal(err)
	}
	if len(panels) != 4 {
		t.Fatalf("%d panels, want 2 classes x 2 eps", len(panels))
	}
	class := map[string]string{"gap=0.5": "easy", "gap=0.1": "hard"}
	alg := map[string]string{"SE": "se", "DP-SE": "dp-se", "Dist-DP-SE": "dist-dp-se"}
	for i, p := range panels {
		cls, eps, ok := strings.Cut(p.Title, ", eps=")
		if !ok || class[cls] == "" {
			t.Fatalf("panel %d title %q, want gap=..., eps=...", i, p.Title)
		}
		if wantRow := map[string]int{"easy": 0, "hard": 1}[class[cls]]; p.Row != wantRow {
			t.Errorf("panel %q in row %d, want %d", p.Title, p.Row, wantRow)
		}
		if len(p.Series) != 3 {
			t.Fatalf("panel %q: %d curves, want SE, DP-SE, Dist-DP-SE", p.Title, len(p.Series))
		}
		for _, s := range p.Series {
			a := alg[s.Label]
			if a == "" {
				t.Fatalf("panel %q: legend %q", p.Title, s.Label)
			}
			k := key{class[cls], a, eps}
			if a == "se" {
				k.eps = ""
			}
			if s.Instances != 2 || s.N != 4 {
				t.Errorf("%q %q: %d instances, %d runs; want 2 and 4", p.Title, s.Label, s.Instances, s.N)
			}
			m, se := want(k)
			if len(s.Mean) != len(rounds) {
				t.Fatalf("%q %q: %d checkpoints, want %d", p.Title, s.Label, len(s.Mean), len(rounds))
			}
			for j := range rounds {
				if s.Rounds[j] != rounds[j] || s.Mean[j] != m[j] || s.SE[j] != se[j] {
					t.Errorf("%q %q at round %v: mean %v se %v, want %v %v", p.Title, s.Label, rounds[j], s.Mean[j], s.SE[j], m[j], se[j])
					break
				}
			}
			if se[len(se)-1] == 0 {
				t.Errorf("%q %q: the two instances end at the same regret; the SE is not tested", p.Title, s.Label)
			}
		}
	}

	// The commands: the figure's files, and the table's cells.
	if _, err := runCLI(t, "plot", out, "--over", "instance", "--log-x"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"regret-instances.png", "regret-instances.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	tab, err := runCLI(t, "table", out, "--over", "instance", "--markdown")
	if err != nil {
		t.Fatal(err)
	}
	m, se := want(key{"hard", "dist-dp-se", "1"})
	row := fmt.Sprintf("| gap=0.1, eps=1: Dist-DP-SE | 2 (4) | 20000 | %s |", meanSE(m[len(m)-1], se[len(se)-1], 2, "±"))
	if !strings.Contains(tab, row) {
		t.Errorf("table has no row %q:\n%s", row, tab)
	}
	_, err = runCLI(t, "plot", out, "--over", "silo")
	wantErr(t, "--over silo", err, "--over")
}
