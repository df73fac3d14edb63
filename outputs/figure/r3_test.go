package figure

import (
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/fedbandit/fedbandit/outputs"
)

// TestR3_K5LogYNothingPositive (attack round 3, case K5): --log-y on
// curves with no positive value (a mab instance whose means are all
// equal: regret 0; realised regret, often negative early) is an error
// naming --log-y, never gonum's panic; a figure of one round (T = 1) on
// a log x axis is drawn, its axis padded to a decade either side.
//
// Mutation control (run 2026-11-29): removing the drawn == 0 check from
// Draw makes the first case panic when the figure is saved.
func TestR3_K5LogYNothingPositive(t *testing.T) {
	zero := []Series{{Label: "SE", N: 1, Rounds: []float64{100, 1000}, Mean: []float64{0, 0}, SE: []float64{0, 0}}}
	p, err := Draw(zero, Options{LogY: true})
	if err == nil {
		_, err = SavePlot(p, t.TempDir(), "regret", 10*vg.Centimeter, 8*vg.Centimeter)
	}
	if !errors.Is(err, ErrNothingToDraw) || !strings.Contains(err.Error(), "--log-y") {
		t.Errorf("all zero with LogY: %v, want ErrNothingToDraw naming --log-y", err)
	}
	neg := []Series{{Label: "SE", N: 1, Rounds: []float64{1}, Mean: []float64{-0.0268}, SE: []float64{0}}}
	if _, err := Draw(neg, Options{LogY: true, Metric: Realised}); !errors.Is(err, ErrNothingToDraw) {
		t.Errorf("negative realised with LogY: %v", err)
	}
	one := []Series{{Label: "SE", N: 1, Rounds: []float64{1}, Mean: []float64{0.3}, SE: []float64{0}}}
	for _, o := range []Options{{LogX: true}, {LogY: true}, {LogX: true, LogY: true}} {
		p, err := Draw(one, o)
		if err == nil {
			_, err = SavePlot(p, t.TempDir(), "regret", 10*vg.Centimeter, 8*vg.Centimeter)
		}
		if err != nil {
			t.Errorf("one round %+v: %v", o, err)
		}
	}
}

// TestR3_U14SameNameOtherInstance (case U14): two sweeps into one
// directory, each with an instance "easy" but other gaps, gave two rows
// "SE [256c0026]" and "SE [fef5488e]": the legend now names the words of
// the instance descriptions that differ ("gap=0.5", "gap=0.1"); groups
// whose descriptions are equal still get their ids.
func TestR3_U14SameNameOtherInstance(t *testing.T) {
	rec := func(id, desc string) outputs.RunRecord {
		return outputs.RunRecord{RunID: id, GroupID: id, Algorithm: "se", Family: "mab", Instance: "easy", InstanceKind: "mab",
			InstanceName: desc, T: 1000, Params: map[string]float64{"conf": 0.1, "crs": 1, "growth": 4}}
	}
	runs := []outputs.RunRecord{
		rec("256c0026aaaa", "mab K=4 gap=0.5 seed=0 means=chacha8 reward=gaussian-clipped noise_sd=0.1"),
		rec("fef5488ebbbb", "mab K=4 gap=0.1 seed=0 means=chacha8 reward=gaussian-clipped noise_sd=0.1"),
	}
	l := Labels(runs)
	if l["256c0026aaaa"] != "SE [gap=0.5]" || l["fef5488ebbbb"] != "SE [gap=0.1]" {
		t.Errorf("labels %v", l)
	}
	runs[1].InstanceName = runs[0].InstanceName
	l = Labels(runs)
	if l["256c0026aaaa"] != "SE [256c0026]" || l["fef5488ebbbb"] != "SE [fef5488e]" {
		t.Errorf("equal descriptions: labels %v", l)
	}
}
