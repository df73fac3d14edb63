package scaling

import (
	"fmt"
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
				outputs.RunRecord{Status: "done", Algorithm: "fedlinucb", M: outputs.Some[int](m), T: 100, Seed: s, InstanceHash: "i", PseudoRegret: base},
				outputs.RunRecord{Status: "done", Algorithm: "ldp", Eps: outputs.Some[float64](1), Delta: outputs.Some[float64](0.01), M: outputs.Some[int](m), T: 100, Seed: s, InstanceHash: "i", PseudoRegret: base + 3*math.Pow(float64(m), 0.75)*f, Linear: &outputs.LinearSettings{Preset: "exact", Lazy: true}},
				outputs.RunRecord{Status: "done", Algorithm: "super-agent", Eps: outputs.Some[float64](1), Delta: outputs.Some[float64](0.01), M: outputs.Some[int](m), T: 100, Seed: s, InstanceHash: "i", PseudoRegret: base + 2*math.Pow(float64(m), 0.5)*f, Linear: &outputs.LinearSettings{Preset: "exact", Lazy: true}},
				// No partner (another seed): ignored.
				outputs.RunRecord{Status: "done", Algorithm: "ldp", Eps: outputs.Some[float64](1), Delta: outputs.Some[float64](0.01), M: outputs.Some[int](m), T: 100, Seed: s + 10, InstanceHash: "i", PseudoRegret: 1e9, Linear: &outputs.LinearSettings{Preset: "exact", Lazy: true}},
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
		if !(math.Abs(f.Exponent-w) <= 1e-9) || f.Lo > w || f.Hi < w || len(f.Points) != 5 || f.Points[0].Seeds != 4 {
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
					Eps: outputs.Some[float64](eps), Delta: outputs.Some[float64](1e-5), M: outputs.Some[int](1), B: outputs.Some[int](1), T: T, Every: 1000, Seed: s,
					PseudoRegret: 3 * math.Pow(float64(T), 0.75) * 5 / eps * f})
			}
		}
		for s := uint64(1); s <= 3; s++ {
			runs = append(runs, outputs.RunRecord{Status: "done", Family: "bco", Algorithm: "two-point", Instance: "convex",
				M: outputs.Some[int](1), B: outputs.Some[int](1), T: T, Every: T / 100, Seed: s, PseudoRegret: math.Pow(float64(T), 0.5)})
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
		if !(math.Abs(f.Exponent-w) <= 1e-9) || f.Lo > w || f.Hi < w || len(f.Points) != 4 || f.Points[0].Seeds != 3 {
			t.Errorf("%s: exponent %v [%v, %v], points %+v", f.Label, f.Exponent, f.Lo, f.Hi, f.Points)
		}
		for _, s := range f.Local {
			if !(math.Abs(s.Exponent-w) <= 1e-9) || s.Lo > w+1e-9 || s.Hi < w-1e-9 {
				t.Errorf("%s: local slope %+v", f.Label, s)
			}
		}
		if len(f.Local) != 3 {
			t.Errorf("%s: %d local slopes", f.Label, len(f.Local))
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
		if !(math.Abs(f.Exponent+1) <= 1e-9) || !strings.Contains(f.Label, "T=") || strings.Contains(f.Label, "eps=") {
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

// TestSlopes: local exponents between consecutive points with their
// delta-method intervals (golden values computed by hand: se =
// hypot(5/100, 20/1000) / ln 10, t quantile 3.182446 with 3 degrees of
// freedom); a point with one seed has no interval, a non-positive mean no
// exponent.
func TestSlopes(t *testing.T) {
	got := Slopes([]Point{
		{X: 10, Mean: 100, SE: 5, Seeds: 5},
		{X: 100, Mean: 1000, SE: 20, Seeds: 4},
		{X: 1000, Mean: 3000, Seeds: 1},
		{X: 10000, Mean: -1, SE: 1, Seeds: 3},
	})
	if len(got) != 3 {
		t.Fatalf("%d slopes", len(got))
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if s := got[0]; s.From != 10 || s.To != 100 || !near(s.Exponent, 1) || !near(s.Lo, 0.925570621055626) || !near(s.Hi, 1.07442937894437) {
		t.Errorf("first slope %+v", s)
	}
	if s := got[1]; !near(s.Exponent, 0.477121254719662) || !math.IsNaN(s.Lo) || !math.IsNaN(s.Hi) {
		t.Errorf("one-seed slope %+v", s)
	}
	if s := got[2]; !math.IsNaN(s.Exponent) {
		t.Errorf("negative mean: %+v", s)
	}
}

// TestCostsOver: private regrets built as a non-private baseline plus 5
// T^0.75 / eps (times a seed factor) give a cost whose exponents are -1
// over eps and 0.75 over T exactly, paired by instance, M, B, T and seed;
// a run without a partner is ignored; the baseline has no fit of its own;
// over M, or without a baseline run, is an error.
func TestCostsOver(t *testing.T) {
	var runs []outputs.RunRecord
	for _, T := range []int{1000, 10000, 100000} {
		for s := uint64(1); s <= 3; s++ {
			base := 100*math.Sqrt(float64(T)) + float64(s)
			runs = append(runs, outputs.RunRecord{Status: "done", Family: "bco", Algorithm: "one-point", Instance: "convex",
				InstanceHash: "h", M: outputs.Some[int](1), B: outputs.Some[int](1), T: T, Every: 1000, Seed: s, PseudoRegret: base})
			for _, eps := range []float64{1, 2, 4} {
				f := 1 + 0.05*(float64(s)-2)
				runs = append(runs, outputs.RunRecord{Status: "done", Family: "bco", Algorithm: "ldp-one-point", Instance: "convex",
					InstanceHash: "h", Eps: outputs.Some[float64](eps), Delta: outputs.Some[float64](1e-5), M: outputs.Some[int](1), B: outputs.Some[int](1), T: T, Every: 1000, Seed: s,
					PseudoRegret: base + 5*math.Pow(float64(T), 0.75)/eps*f})
			}
			// No partner (another seed): ignored.
			runs = append(runs, outputs.RunRecord{Status: "done", Family: "bco", Algorithm: "ldp-one-point", Instance: "convex",
				InstanceHash: "h", Eps: outputs.Some[float64](1), Delta: outputs.Some[float64](1e-5), M: outputs.Some[int](1), B: outputs.Some[int](1), T: T, Every: 1000, Seed: s + 10, PseudoRegret: 1e12})
		}
	}
	for over, want := range map[string]float64{OverEps: -1, OverT: 0.75} {
		fits, err := CostsOver(runs, over, "one-point")
		if err != nil {
			t.Fatal(err)
		}
		if len(fits) != 3 {
			t.Fatalf("over %s: %d fits", over, len(fits))
		}
		for _, f := range fits {
			if !(math.Abs(f.Exponent-want) <= 1e-9) || len(f.Points) != 3 || f.Points[0].Seeds != 3 ||
				!strings.HasPrefix(f.Label, "LDP one-point") || !strings.HasSuffix(f.Label, " - One-point BCO") {
				t.Errorf("over %s: %s: exponent %v, points %+v", over, f.Label, f.Exponent, f.Points)
			}
			for _, s := range f.Local {
				if !(math.Abs(s.Exponent-want) <= 1e-9) {
					t.Errorf("over %s: %s: local %+v", over, f.Label, s)
				}
			}
		}
	}
	if _, err := CostsOver(runs, OverM, "one-point"); err == nil {
		t.Error("costs over M accepted")
	}
	if _, err := CostsOver(runs, OverEps, "two-point"); err == nil {
		t.Error("a baseline without runs accepted")
	}
}

// TestFitsOverD: runs on instances of dimension d = 8 to 128 (one
// instance each, named after d) whose regret is 0.5 d^2 (times a seed
// factor) fit over d as one configuration per algorithm (the instance is
// the key, not part of the label) with exponent 2; runs without a
// dimension are left out.
//
// Mutation-checked: keeping the instance in the label gives one fit per
// instance (five of one point each, no exponent): fails.
func TestFitsOverD(t *testing.T) {
	var runs []outputs.RunRecord
	for _, d := range []int{8, 16, 32, 64, 128} {
		for s := uint64(1); s <= 3; s++ {
			f := 1 + 0.05*(float64(s)-2)
			for _, alg := range []string{"fedlinucb", "ldp"} {
				r := outputs.RunRecord{Status: "done", Family: "linear", Algorithm: alg, Instance: fmt.Sprintf("dubey-d%d", d), Dim: outputs.Some(d),
					M: outputs.Some(20), B: outputs.Some(25), T: 5000, Every: 100, Seed: s, PseudoRegret: 0.5 * float64(d*d) * f}
				if alg == "ldp" {
					r.Eps, r.Delta = outputs.Some(1.0), outputs.Some(0.1)
					r.PseudoRegret *= 3
				}
				runs = append(runs, r)
			}
		}
	}
	runs = append(runs, outputs.RunRecord{Status: "done", Family: "linear", Algorithm: "fedlinucb", Instance: "other", M: outputs.Some(20), B: outputs.Some(25), T: 5000, Every: 100, Seed: 1, PseudoRegret: 1})
	fits, err := FitsOver(runs, OverD)
	if err != nil {
		t.Fatal(err)
	}
	if len(fits) != 2 {
		t.Fatalf("%d fits over d, want 2: %+v", len(fits), fits)
	}
	for _, f := range fits {
		if !(math.Abs(f.Exponent-2) <= 1e-9) || f.Lo > 2 || f.Hi < 2 || len(f.Points) != 5 || f.Points[0].X != 8 || f.Points[0].Seeds != 3 || strings.Contains(f.Label, "instance=") {
			t.Errorf("%s: exponent %v [%v, %v], points %+v", f.Label, f.Exponent, f.Lo, f.Hi, f.Points)
		}
	}
}

// TestFitsNaturalOrder: fits are listed (and drawn, legend included) in
// the legends' natural order, M=10 before M=20 before M=100.
//
// Mutation-checked: byte order puts M=100 second: fails.
func TestFitsNaturalOrder(t *testing.T) {
	var runs []outputs.RunRecord
	for _, m := range []int{100, 10, 20} {
		for _, T := range []int{1000, 10000, 100000} {
			runs = append(runs, outputs.RunRecord{Status: "done", Family: "linear", Algorithm: "fedlinucb", Instance: "a",
				M: outputs.Some(m), B: outputs.Some(25), T: T, Every: 100, Seed: 1, PseudoRegret: float64(T * m)})
		}
	}
	fits, err := FitsOver(runs, OverT)
	if err != nil {
		t.Fatal(err)
	}
	var ms []string
	for _, f := range fits {
		for _, part := range strings.Split(f.Label, ", ") {
			if strings.HasPrefix(part, "M=") {
				ms = append(ms, part)
			}
		}
	}
	if got := fmt.Sprint(ms); got != "[M=10 M=20 M=100]" {
		t.Errorf("fits in order %s, want [M=10 M=20 M=100]", got)
	}
}
