package registry

import (
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/federate/accountant"
	"github.com/fedbandit/fedbandit/outputs"
)

// TestNoiseLabel: a discrete run's label says noise=discrete whether it
// is made from its spec or from its runs.arrow row (whose calibration
// note names the discrete mechanism); a floating-point run's label, and
// that of an algorithm without Gaussian releases, do not mention noise.
func TestNoiseLabel(t *testing.T) {
	s := federate.Spec{Algorithm: federate.AlgLDP, Eps: 1, Delta: 0.1, M: 2, T: 10, B: 5, Noise: federate.NoiseDiscrete}
	spec := Label(FromSpec(s, "", ""))
	rec := Label(FromRecord(&outputs.RunRecord{Algorithm: federate.AlgLDP, Eps: outputs.Some[float64](1), Delta: outputs.Some[float64](0.1), M: outputs.Some[int](2), T: 10, B: outputs.Some[int](5),
		CalibrationNote: "x; " + accountant.DiscreteNote + " on the grid gamma = 2^-17"}))
	if !strings.Contains(spec, "noise=discrete") || spec != rec {
		t.Errorf("labels from spec %q and record %q", spec, rec)
	}
	for _, s := range []federate.Spec{
		{Algorithm: federate.AlgLDP, Eps: 1, Delta: 0.1, M: 2, T: 10, B: 5},
		{Algorithm: federate.AlgLDP, Eps: 1, Delta: 0.1, M: 2, T: 10, B: 5, Noise: federate.NoiseGaussian},
		{Algorithm: federate.AlgSDPVec, Eps: 1, Delta: 0.1, M: 2, T: 10, B: 5},
		{Algorithm: federate.AlgFedLinUCB, M: 2, T: 10, B: 5, Noise: federate.NoiseDiscrete},
	} {
		if l := Label(FromSpec(s, "", "")); strings.Contains(l, "noise") {
			t.Errorf("%s noise %q: label %q", s.Algorithm, s.Noise, l)
		}
	}
	// A legend sees the default as a value (quiet in the label).
	var got []string
	for _, f := range Fields(FromSpec(federate.Spec{Algorithm: federate.AlgLDP, Eps: 1, Delta: 0.1, M: 2, T: 10, B: 5}, "", "")) {
		if f.Key == "noise" {
			got = append(got, f.Value)
		}
	}
	if len(got) != 1 || got[0] != federate.NoiseGaussian {
		t.Errorf("noise fields %v, want one quiet gaussian", got)
	}
}

// TestNoiseLabelVecSum: P_TVec's exact binomial sampler (noise
// "discrete") shows in its label, from the spec and from its runs.arrow
// row alike (its calibration note names the sampler).
func TestNoiseLabelVecSum(t *testing.T) {
	s := federate.Spec{Algorithm: federate.AlgSDPVec, Eps: 1, Delta: 0.1, M: 2, T: 64, B: 4, Lazy: true, Noise: federate.NoiseDiscrete,
		Synthetic: federate.SyntheticSpec{D: 4, K: 12, NoiseVar: 0.25, FixedBasis: true, Seed: 3}}
	res, err := federate.Run(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	spec := Label(FromSpec(s, "", ""))
	rec := Label(FromRecord(&outputs.RunRecord{Algorithm: s.Algorithm, Eps: outputs.Some[float64](1), Delta: outputs.Some[float64](0.1), M: outputs.Some[int](2), T: 64, B: outputs.Some[int](4),
		CalibrationNote: res.Privacy.Note, Linear: &outputs.LinearSettings{Lazy: true}}))
	if !strings.Contains(spec, "noise=discrete") || spec != rec {
		t.Errorf("labels from spec %q and record %q", spec, rec)
	}
}
