package scaling

import (
	"math"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/outputs"
)

// TestFits: costs built as 3 M^0.75 (LDP) and 2 M^0.5 (super agent) times
// a seed factor recover their exponents with intervals that contain them;
// runs without a baseline partner are ignored; the plot is written.
func TestFits(t *testing.T) {
	var runs []outputs.RunRecord
	for _, m := range []int{10, 30, 100, 300, 1000} {
		for s := uint64(1); s <= 4; s++ {
			base := 100 + float64(s)
			f := 1 + 0.05*(float64(s)-2.5)
			runs = append(runs,
				outputs.RunRecord{Status: "done", Algorithm: "fedlinucb", M: m, T: 100, Seed: s, InstanceHash: "i", PseudoRegret: base},
				outputs.RunRecord{Status: "done", Algorithm: "ldp", Preset: "exact", Eps: 1, Delta: 0.01, Lazy: true, M: m, T: 100, Seed: s, InstanceHash: "i", PseudoRegret: base + 3*math.Pow(float64(m), 0.75)*f},
				outputs.RunRecord{Status: "done", Algorithm: "super-agent", Preset: "exact", Eps: 1, Delta: 0.01, Lazy: true, M: m, T: 100, Seed: s, InstanceHash: "i", PseudoRegret: base + 2*math.Pow(float64(m), 0.5)*f},
				// No partner (another seed): ignored.
				outputs.RunRecord{Status: "done", Algorithm: "ldp", Preset: "exact", Eps: 1, Delta: 0.01, Lazy: true, M: m, T: 100, Seed: s + 10, InstanceHash: "i", PseudoRegret: 1e9},
			)
		}
	}
	fits, err := Fits(runs)
	if err != nil {
		t.Fatal(err)
	}
	if len(fits) != 2 {
		t.Fatalf("%d fits", len(fits))
	}
	want := map[string]float64{"LDP-FedLinUCB (lazy=true, eps=1, delta=0.01, preset=exact)": 0.75, "Super agent (central JDP) (lazy=true, eps=1, delta=0.01, preset=exact)": 0.5}
	for _, f := range fits {
		w, ok := want[f.Label]
		if !ok {
			t.Fatalf("label %q", f.Label)
		}
		if math.Abs(f.Exponent-w) > 1e-9 || f.Lo > w || f.Hi < w || len(f.Points) != 5 || f.Points[0].Seeds != 4 {
			t.Errorf("%s: exponent %v [%v, %v], points %+v", f.Label, f.Exponent, f.Lo, f.Hi, f.Points)
		}
	}
	if _, err := Save(t.TempDir(), fits, "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := Fits(runs[1:2]); err == nil {
		t.Error("no baseline accepted")
	}
}

// TestFitsOver: regrets built as 3 T^0.75 and 5 eps^-1 (times a seed
// factor) recover their exponents over T and over eps, per configuration
// (other T, other instances apart); a non-private algorithm has no fit
// over eps.
func TestFitsOver(t *testing.T) {
	var runs []outputs.RunRecord
	for _, T := range []int{1000, 10000, 100000, 1000000} {
		for _, eps := range []float64{0.5, 1, 2, 4} {
			for s := uint64(1); s <= 3; s++ {
				f := 1 + 0.05*(float64(s)-2)
				runs = append(runs, outputs.RunRecord{Status: "done", Family: "bco", Algorithm: "ldp-one-point", Instance: "convex",
					Eps: eps, Delta: 1e-5, M: 1, B: 1, T: T, Every: 1000, Seed: s,
					PseudoRegret: 3 * math.Pow(float64(T), 0.75) * 5 / eps * f})
			}
		}
		for s := uint64(1); s <= 3; s++ {
			runs = append(runs, outputs.RunRecord{Status: "done", Family: "bco", Algorithm: "two-point", Instance: "convex",
				M: 1, B: 1, T: T, Every: T / 100, Seed: s, PseudoRegret: math.Pow(float64(T), 0.5)})
		}
	}
	fits, err := FitsOver(runs, OverT)
	if err != nil {
		t.Fatal(err)
	}
	if len(fits) != 5 { // 4 eps of ldp-one-point, two-point
		t.Fatalf("%d fits over T", len(fits))
	}
	for _, f := range fits {
		w := 0.75
		if strings.HasPrefix(f.Label, "Two-point") {
			w = 0.5
		}
		if math.Abs(f.Exponent-w) > 1e-9 || f.Lo > w || f.Hi < w || len(f.Points) != 4 || f.Points[0].Seeds != 3 {
			t.Errorf("%s: exponent %v [%v, %v], points %+v", f.Label, f.Exponent, f.Lo, f.Hi, f.Points)
		}
	}
	fits, err = FitsOver(runs, OverEps)
	if err != nil {
		t.Fatal(err)
	}
	if len(fits) != 4 { // 4 T of ldp-one-point only
		t.Fatalf("%d fits over eps", len(fits))
	}
	for _, f := range fits {
		if math.Abs(f.Exponent+1) > 1e-9 || !strings.Contains(f.Label, "T=") || strings.Contains(f.Label, "eps=") {
			t.Errorf("%s: exponent %v", f.Label, f.Exponent)
		}
	}
	if _, err := SaveOver(t.TempDir(), fits, "test", OverEps); err != nil {
		t.Fatal(err)
	}
	if _, err := FitsOver(runs, "alpha"); err == nil {
		t.Error("over alpha accepted")
	}
}
