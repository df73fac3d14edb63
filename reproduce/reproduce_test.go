package reproduce

import (
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fedbandit/fedbandit/runner"
)

// TestCatalogue: the shipped catalogue loads, every experiment's sweep
// file parses as a sweep at the quick, default and paper scales (the
// MSLR ones on a stand-in directory, with and without the MQ2008 stand-in's
// settings), every reference file it names reads, and the scales it
// names exist.
func TestCatalogue(t *testing.T) {
	cat, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Experiments) < 12 {
		t.Errorf("%d experiments", len(cat.Experiments))
	}
	dataset := t.TempDir()
	os.WriteFile(filepath.Join(dataset, "manifest.json"), []byte(`{"schema_version":1,"queries":10000,"features":136}`), 0o644)
	for _, e := range cat.Experiments {
		for _, scale := range Scales {
			for _, standIn := range []bool{false, true} {
				data := Data{Dir: dataset, StandIn: standIn}
				if e.Data == DataNone && standIn {
					continue
				}
				raw, err := e.SweepFile(scale, data)
				if err != nil {
					t.Fatalf("%s at %s: %v", e.Name, scale, err)
				}
				cfg, err := runner.ParseConfig(raw, t.TempDir())
				if err != nil {
					t.Fatalf("%s at %s (stand-in %v): %v\n%s", e.Name, scale, standIn, err, raw)
				}
				if standIn && !strings.HasSuffix(cfg.Name, StandInSuffix) {
					t.Errorf("%s: stand-in sweep named %q", e.Name, cfg.Name)
				}
			}
		}
		for _, r := range e.References {
			if _, err := ReadReference(ReferenceFS, r.File); err != nil {
				t.Errorf("%s: %v", e.Name, err)
			}
		}
	}
	// Every reference file is used by some experiment.
	files, _ := fs.Glob(ReferenceFS, "reference/*.csv")
	for _, f := range files {
		used := false
		for _, e := range cat.Experiments {
			for _, r := range e.References {
				used = used || "reference/"+r.File == f
			}
		}
		if !used {
			t.Errorf("%s: no experiment uses it", f)
		}
	}
}

// TestScaleSettings: a scale's settings reach the sweep file (seeds, a
// grid key, an instance key on every instance, the instances kept), and
// an unknown key or instance is an error naming it.
func TestScaleSettings(t *testing.T) {
	cat, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	e := *cat.Find("cz-fig1")
	e.Scale = map[string]Scaling{Quick: {Set: map[string]any{
		"seeds": int64(3), "grid.T": []any{int64(1000)}, "instance.noise_sd": 0.2, "instances": []any{"hard1", "easy0"},
	}, Checkpoints: []int{1000}}}
	raw, err := e.SweepFile(Quick, Data{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := runner.ParseConfig(raw, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Seeds != 3 || len(cfg.Grid.T) != 1 || cfg.Grid.T[0] != 1000 || len(cfg.Instances) != 2 || cfg.Instances[0].Name != "hard1" || cfg.Instances[1].Name != "easy0" {
		t.Errorf("seeds %d, T %v, instances %+v", cfg.Seeds, cfg.Grid.T, cfg.Instances)
	}
	if !strings.Contains(string(raw), "noise_sd = 0.2") || strings.Contains(string(raw), "noise_sd = 0.1") {
		t.Errorf("instance.noise_sd not set on every instance:\n%s", raw)
	}
	for key, want := range map[string]string{"bogus": `key "bogus"`, "instances": "no instance named nope"} {
		e.Scale[Quick] = Scaling{Set: map[string]any{key: []any{"nope"}}}
		if _, err := e.SweepFile(Quick, Data{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error containing %q", key, err, want)
		}
	}
}

// TestSelect: an unknown experiment is an error listing the valid ones;
// a selection keeps the catalogue's order.
func TestSelect(t *testing.T) {
	cat, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	_, err = cat.Select([]string{"zc-fig3a", "fig9"})
	if err == nil || !strings.Contains(err.Error(), `unknown experiment "fig9"`) || !strings.Contains(err.Error(), "cz-fig1, cz-fig1-script, cz-fig4") {
		t.Errorf("error %v", err)
	}
	got, err := cat.Select([]string{"huang-gloc", "zc-fig2a"})
	if err != nil || len(got) != 2 || got[0].Name != "zc-fig2a" || got[1].Name != "huang-gloc" {
		t.Errorf("%v %v", got, err)
	}
}

// TestParseRejects: catalogue mistakes are errors naming what is wrong.
func TestParseRejects(t *testing.T) {
	head := "[[paper]]\nkey = \"p\"\ncitation = \"A, B\"\n"
	exp := "[[experiment]]\nname = \"x\"\npaper = \"p\"\nfigure = \"F\"\ntitle = \"T\"\nsweep = \"fig3a.toml\"\nmetric = \"pseudo\"\nover = \"seed\"\n" +
		"[experiment.scale.quick]\ncheckpoints = [1]\n[experiment.scale.default]\ncheckpoints = [1]\n"
	if _, err := Parse([]byte(head + exp)); err != nil {
		t.Fatalf("minimal catalogue: %v", err)
	}
	for name, tc := range map[string]struct{ add, want string }{
		"unknown key":   {"colour = 1\n", "unknown key"},
		"no paper":      {"", ""},
		"bad kind":      {"[[experiment.check]]\nclaim = \"c\"\nkind = \"above\"\n", `kind "above"`},
		"bad scale":     {"[experiment.scale.huge]\ncheckpoints = [1]\n", "scale.huge"},
		"no tolerance":  {"[[experiment.reference]]\nfile = \"f.csv\"\nscales = [\"default\"]\n", "tolerance"},
		"exponent over": {"[[experiment.check]]\nclaim = \"c\"\nkind = \"exponent\"\nover = \"B\"\nseries = [\"a\"]\nvalue = 1\n", `over "B"`},
		"M baseline":    {"[[experiment.check]]\nclaim = \"c\"\nkind = \"exponent\"\nover = \"M\"\nbaseline = \"ldp\"\nseries = [\"a\"]\nvalue = 1\n", "no baseline"},
	} {
		text := head + exp + tc.add
		if name == "no paper" {
			text, tc.want = strings.Replace(text, "paper = \"p\"", "paper = \"q\"", 1), `paper "q"`
		}
		if _, err := Parse([]byte(text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error containing %q", name, err, tc.want)
		}
	}
}

// TestReadReferenceRejects: a reference file without its SOURCE note,
// with a wrong header, a bad value or no rows, or missing, is an error
// naming the file (and the line).
func TestReadReferenceRejects(t *testing.T) {
	good := "# SOURCE: somewhere\nseries,t,mean,se,n\nA;b,10,1.5,,1\n"
	fsys := fstest.MapFS{"reference/good.csv": {Data: []byte(good)}}
	f, err := ReadReference(fsys, "good.csv")
	if err != nil || f.Source != "somewhere" || len(f.Rows) != 1 || f.Rows[0].Series[1] != "b" || !math.IsNaN(f.Rows[0].SE) || f.Rows[0].Line != 3 {
		t.Fatalf("%+v %v", f, err)
	}
	for name, tc := range map[string]struct{ text, want string }{
		"no source": {"series,t,mean,se,n\nA,10,1,,1\n", "SOURCE"},
		"header":    {"# SOURCE: x\nseries,t,mean\nA,10,1\n", "header"},
		"mean":      {"# SOURCE: x\nseries,t,mean,se,n\nA,10,abc,,1\n", "line 3: mean"},
		"nan":       {"# SOURCE: x\nseries,t,mean,se,n\nA,10,NaN,,1\n", "line 3: mean"},
		"t":         {"# SOURCE: x\nseries,t,mean,se,n\nA,0,1,,1\n", "line 3: t"},
		"n":         {"# SOURCE: x\nseries,t,mean,se,n\nA,10,1,,0\n", "line 3: n"},
		"se":        {"# SOURCE: x\nseries,t,mean,se,n\nA,10,1,-1,2\n", "line 3: se"},
		"no rows":   {"# SOURCE: x\nseries,t,mean,se,n\n", "no rows"},
		"truncated": {"# SOURCE: x\nseries,t,mean,se,n\nA,10,1\n", "reference/bad.csv"},
		"no series": {"# SOURCE: x\nseries,t,mean,se,n\n ; ,10,1,,1\n", "empty series"},
	} {
		fsys := fstest.MapFS{"reference/bad.csv": {Data: []byte(tc.text)}}
		_, err := ReadReference(fsys, "bad.csv")
		if err == nil || !strings.Contains(err.Error(), "reference/bad.csv") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming the file and containing %q", name, err, tc.want)
		}
	}
	if _, err := ReadReference(fstest.MapFS{}, "gone.csv"); err == nil || !strings.Contains(err.Error(), "reference/gone.csv") {
		t.Errorf("missing file: %v", err)
	}
}

// TestBelow: Welch's one-sided test. Golden values: t = 4.39 with 2.0
// degrees of freedom for (1.496 ± 0.12, 2.272 ± 0.13), the 95% one-sided
// Student quantile at 2 df being 2.920; a reversed pair does not hold;
// a small difference is inconclusive; one run a side is no test; equal
// runs decide by the sign.
func TestBelow(t *testing.T) {
	stat, v := Below(1.496, 0.12, 2, 2.272, 0.13, 2)
	if v != Holds || !strings.Contains(stat, "t = 4.39 (df 2.0") {
		t.Errorf("%s: %s", stat, v)
	}
	if _, v := Below(2.272, 0.13, 2, 1.496, 0.12, 2); v != DoesNotHold {
		t.Errorf("reversed: %s", v)
	}
	if _, v := Below(1.0, 0.1, 5, 1.1, 0.1, 5); v != Inconclusive {
		t.Errorf("small difference: %s", v)
	}
	if _, v := Below(1, 0.1, 1, 5, 0.1, 5); v != Inconclusive {
		t.Errorf("one run: %s", v)
	}
	if _, v := Below(1, 0, 3, 2, 0, 3); v != Holds {
		t.Errorf("exact: %s", v)
	}
	if _, v := Below(2, 0, 3, 1, 0, 3); v != DoesNotHold {
		t.Errorf("exact reversed: %s", v)
	}
	// The critical value: with equal SEs 1 and 2 runs a side (df 2), t = 2.91
	// is inconclusive and t = 2.93 holds (quantile 2.920).
	if _, v := Below(0, 1/math.Sqrt2, 2, 2.91, 1/math.Sqrt2, 2); v != Inconclusive {
		t.Errorf("t 2.91 at df 2: %s", v)
	}
	if _, v := Below(0, 1/math.Sqrt2, 2, 2.93, 1/math.Sqrt2, 2); v != Holds {
		t.Errorf("t 2.93 at df 2: %s", v)
	}
}

// TestExponent: the interval decides; a wide one is inconclusive; no
// interval is inconclusive.
func TestExponent(t *testing.T) {
	for _, tc := range []struct {
		exp, lo, hi, value float64
		want               string
	}{
		{0.755, 0.752, 0.758, 0.75, DoesNotHold},
		{0.755, 0.745, 0.765, 0.75, Holds},
		{-1.11, -1.57, -0.65, -1, Inconclusive},
		{-1.11, -1.57, -0.65, -2, DoesNotHold},
		{0.7, math.NaN(), math.NaN(), 0.7, Inconclusive},
		{math.NaN(), math.NaN(), math.NaN(), 0.7, Inconclusive},
	} {
		if _, v := Exponent(tc.exp, tc.lo, tc.hi, tc.value); v != tc.want {
			t.Errorf("%+v: %s", tc, v)
		}
	}
}

// TestPick: a selector picks exactly one series (an exact label first),
// else it is an error listing the series.
func TestPick(t *testing.T) {
	all := []series{{label: "FedLinUCB"}, {label: "LDP-FedLinUCB (eps=1)"}, {label: "LDP-FedLinUCB (eps=5)"}}
	for sel, want := range map[string]string{"FedLinUCB": "FedLinUCB", "LDP;eps=5": "LDP-FedLinUCB (eps=5)"} {
		s, err := pick(all, strings.Split(sel, ";"))
		if err != nil || s.label != want {
			t.Errorf("%s: %v %v", sel, s, err)
		}
	}
	for _, sel := range []string{"LDP", "SDP", "FedLinUCB;eps=2"} {
		if _, err := pick(all, strings.Split(sel, ";")); err == nil || !strings.Contains(err.Error(), `"LDP-FedLinUCB (eps=1)"`) {
			t.Errorf("%s: %v, want an error listing the series", sel, err)
		}
	}
}
