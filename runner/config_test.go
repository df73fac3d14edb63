package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/registry"
)

// base is a valid synthetic sweep; the table below breaks one key at a
// time by replacing a line.
const base = `name = "v"
seeds = 2

[[instance]]
name = "syn"
kind = "synthetic"
d = 4
k = 10
noise_var = 0.25

[[algorithm]]
name = "ldp"
preset = "reference-code"

[grid]
eps = [1, 5]
delta = [0.1]
M = [5]
B = [10]
T = [100]
`

func TestConfigValidation(t *testing.T) {
	ltrDir := t.TempDir() // a "prepared dataset" with 7 queries
	os.WriteFile(filepath.Join(ltrDir, "manifest.json"), []byte(`{"schema_version":1,"queries":7,"features":46}`), 0o644)
	ltrBase := strings.Replace(base, `kind = "synthetic"
d = 4
k = 10
noise_var = 0.25`, `kind = "ltr"
dataset = "`+ltrDir+`"
features = "all"`, 1)

	tests := []struct {
		name, cfg, old, new, key string
	}{
		{"unknown top-level key", base, `seeds = 2`, "seeds = 2\nworkers = 3", "workers"},
		{"unknown grid key", base, `T = [100]`, "T = [100]\nepsilon = [1]", "grid.epsilon"},
		{"unknown instance key", base, `k = 10`, "k = 10\nsilos = 3", "instance[0].silos"},
		{"eps zero", base, `eps = [1, 5]`, `eps = [1, 0]`, "grid.eps[1]"},
		{"eps negative", base, `eps = [1, 5]`, `eps = [-1]`, "grid.eps[0]"},
		{"eps nan", base, `eps = [1, 5]`, `eps = [nan]`, "grid.eps[0]"},
		{"eps inf", base, `eps = [1, 5]`, `eps = [inf]`, "grid.eps[0]"},
		{"delta one", base, `delta = [0.1]`, `delta = [1]`, "grid.delta[0]"},
		{"delta zero", base, `delta = [0.1]`, `delta = [0.1, 0]`, "grid.delta[1]"},
		{"B zero", base, `B = [10]`, `B = [0]`, "grid.B[0]"},
		{"T below B", base, `T = [100]`, `T = [100, 5]`, "grid.T[1]"},
		{"M zero", base, `M = [5]`, `M = [0]`, "grid.M[0]"},
		// A key set to 0 is validated as given, never defaulted (issue 14).
		{"d zero", base, `d = 4`, `d = 0`, "instance[0].d"},
		{"k zero", base, `k = 10`, `k = 0`, "instance[0].k"},
		{"crs zero", base, `T = [100]`, "T = [100]\n[advanced]\ncrs = 0", "advanced.crs"},
		{"R zero", base, `T = [100]`, "T = [100]\n[advanced]\nR = 0", "advanced.R"},
		{"noiseless without R", base, `noise_var = 0.25`, `noise_var = 0`, "instance[0].noise_var"},
		{"missing T", base, `T = [100]`, ``, "grid.T"},
		{"missing eps for private", base, `eps = [1, 5]`, ``, "grid.eps"},
		{"alpha", base, `T = [100]`, "T = [100]\nalpha = [1.5]", "grid.alpha[0]"},
		{"relation", base, `T = [100]`, "T = [100]\nrelation = [\"swap\"]", "grid.relation[0]"},
		{"seeds", base, `seeds = 2`, `seeds = 0`, "seeds"},
		{"unknown algorithm", base, `name = "ldp"`, `name = "no-such-algorithm"`, "algorithm[0].name"},
		{"unknown preset", base, `preset = "reference-code"`, `preset = "papers"`, "algorithm[0].preset"},
		{"unknown protocol", base, `preset = "reference-code"`, "preset = \"paper\"\nprotocol = \"Q\"", "algorithm[0].protocol"},
		{"sdp-amp with P_alt", base, `name = "ldp"`, "name = \"sdp-amp\"\nprotocol = \"P_alt\"", "algorithm[0].protocol"},
		{"algorithm eps", base, `preset = "reference-code"`, "eps = [0]", "algorithm[0].eps[0]"},
		{"fedlinucb with eps", base, `name = "ldp"`, "name = \"fedlinucb\"\neps = [1]", "algorithm[0].eps"},
		{"unknown kind", base, `kind = "synthetic"`, `kind = "gaussian"`, "instance[0].kind"},
		{"synthetic d", base, `d = 4`, `d = 1`, "instance[0].d"},
		{"synthetic with dataset", base, `d = 4`, "d = 4\ndataset = \"x\"", "instance[0].dataset"},
		{"theta length", base, `d = 4`, "d = 4\ntheta = [0.1, 0.2]", "instance[0].theta"},
		{"theta nan", base, `d = 4`, "d = 4\ntheta = [0.1, 0.2, nan, 0.5]", "instance[0].theta"},
		{"numpy without basis", base, `d = 4`, "d = 4\ncontext_gen = \"numpy-mt19937\"", "instance[0].context_gen"},
		{"numpy K not above d", base, `k = 10`, "k = 4\nfixed_basis = true\nshared_contexts = true\ncontext_gen = \"numpy-mt19937\"", "instance[0].k"},
		{"numpy seed", base, `d = 4`, "d = 4\nseed = 5000000000\nfixed_basis = true\nshared_contexts = true\ncontext_gen = \"numpy-mt19937\"", "instance[0].seed"},
		{"ltr with theta", ltrBase, `features = "all"`, "features = \"all\"\ntheta = [1, 2]", "instance[0].theta"},
		{"noise var", base, `noise_var = 0.25`, `noise_var = -1`, "instance[0].noise_var"},
		{"reward", base, `T = [100]`, "T = [100]\n[advanced]\nreward = [1, 0]", "advanced.reward"},
		{"reward of three values", base, `T = [100]`, "T = [100]\n[advanced]\nreward = [0, 0.5, 1]", "advanced.reward"},
		{"missing M for a linear algorithm", base, `M = [5]`, ``, "grid.M"},
		{"missing B for a linear algorithm", base, `B = [10]`, ``, "grid.B"},
		{"missing delta for a private linear algorithm", base, `delta = [0.1]`, ``, "grid.delta"},
		{"instance name repeated", base, "[[algorithm]]", "[[instance]]\nname = \"syn\"\nkind = \"synthetic\"\nd = 4\nk = 10\nnoise_var = 0.25\n\n[[algorithm]]", "instance[1].name"},
		{"mab algorithm on a synthetic instance", base, "name = \"ldp\"\npreset = \"reference-code\"", `name = "dp-se"`, "algorithm[0].name"},
		{"noise", base, `T = [100]`, "T = [100]\nnoise = [\"gaussian\", \"secure\"]", "grid.noise[1]"},
		{"gram noise", base, `T = [100]`, "T = [100]\n[advanced]\ngram_noise = \"full\"", "advanced.gram_noise"},
		{"missing dataset dir", ltrBase, ltrDir, ltrDir + "/nope", "instance[0].dataset"},
		{"dataset not prepared", ltrBase, ltrDir, t.TempDir(), "instance[0].dataset"},
		{"M above queries", ltrBase, `M = [5]`, `M = [5, 8]`, "grid.M[1]"},
		{"ltr model", ltrBase, `features = "all"`, "features = \"all\"\nmodel = \"lasso\"", "instance[0].model"},
		{"ltr noise with reference", ltrBase, `features = "all"`, "features = \"all\"\nnoise_var = 0.1", "instance[0].noise_var"},
		{"ltr strategy", ltrBase, `features = "all"`, "features = \"all\"\nstrategy = \"striped\"", "instance[0].strategy"},
		{"ltr missing features", ltrBase, `features = "all"`, ``, "instance[0].features"},
		{"ltr with k", ltrBase, `features = "all"`, "features = \"all\"\nk = 3", "instance[0].k"},
	}
	for _, tc := range []string{base, ltrBase} {
		if _, err := ParseConfig([]byte(tc), ""); err != nil {
			t.Fatalf("valid base config rejected: %v", err)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(tt.cfg, tt.old) {
				t.Fatalf("test bug: %q not in config", tt.old)
			}
			cfg := strings.Replace(tt.cfg, tt.old, tt.new, 1)
			_, err := ParseConfig([]byte(cfg), "")
			if err == nil {
				t.Fatalf("accepted:\n%s", cfg)
			}
			var ke *KeyError
			if !errors.As(err, &ke) {
				t.Fatalf("error %v is not a KeyError", err)
			}
			if ke.Key != tt.key {
				t.Errorf("error names key %q, want %q (%v)", ke.Key, tt.key, err)
			}
		})
	}
}

func TestLoadConfigNamesFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.toml")
	os.WriteFile(p, []byte(strings.Replace(base, "B = [10]", "B = [0]", 1)), 0o644)
	_, err := LoadConfig(p)
	if err == nil || !strings.HasPrefix(err.Error(), p+": grid.B[0]: ") {
		t.Errorf("err = %v", err)
	}
	os.WriteFile(p, []byte("name = \n"), 0o644)
	if _, err := LoadConfig(p); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("syntax error without position: %v", err)
	}
}

func TestDatasetEnvExpansion(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"schema_version":1,"queries":70}`), 0o644)
	t.Setenv("FEDBANDIT_TEST_DATA", dir)
	cfg := strings.Replace(base, `kind = "synthetic"
d = 4
k = 10
noise_var = 0.25`, `kind = "ltr"
dataset = "$FEDBANDIT_TEST_DATA"
features = "title"`, 1)
	if _, err := ParseConfig([]byte(cfg), "/nonexistent"); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FEDBANDIT_TEST_DATA", "")
	_, err := ParseConfig([]byte(cfg), "/nonexistent")
	var ke *KeyError
	if !errors.As(err, &ke) || ke.Key != "instance[0].dataset" || !strings.Contains(err.Error(), "empty") {
		t.Errorf("err = %v", err)
	}
}

// TestAbsentKeysTakeDefaults: keys left out take the documented defaults
// (d = 10, k = 100, noise_var = 0.25), and a noiseless instance runs when
// advanced.R is given.
func TestAbsentKeysTakeDefaults(t *testing.T) {
	cfg := strings.Replace(base, "d = 4\nk = 10\nnoise_var = 0.25\n", "", 1)
	c, err := ParseConfig([]byte(cfg), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var s federate.Spec
	c.Instances[0].inst.(registry.LinearInstance).Settings(&s)
	if y := s.Synthetic; y.D != 10 || y.K != 100 || y.NoiseVar != registry.DefaultNoiseVar {
		t.Errorf("defaults: d %d k %d noise_var %v", y.D, y.K, y.NoiseVar)
	}
	noiseless := strings.Replace(base, "noise_var = 0.25", "noise_var = 0", 1) + "[advanced]\nR = 0.5\n"
	if _, err := ParseConfig([]byte(noiseless), t.TempDir()); err != nil {
		t.Errorf("noiseless with R: %v", err)
	}
}

// TestLogisticLinkKey: link = "logistic" makes a synthetic instance whose
// noise_var defaults to 0 and whose ldp-linucb runs are LDP-GLOC; the key
// is refused on ltr instances and for unknown links, under its name;
// link = "identity" is the default instance (same run ids).
func TestLogisticLinkKey(t *testing.T) {
	sweep := "name = \"x\"\nseeds = 1\n[[instance]]\nkind = \"synthetic\"\n%s\n[[algorithm]]\nname = \"ldp-linucb\"\n[grid]\neps = [1]\ndelta = [0.1]\nM = [2]\nB = [5]\nT = [10]\n"
	plan := func(inst string) (*Plan, error) {
		c, err := ParseConfig([]byte(fmt.Sprintf(sweep, inst)), "")
		if err != nil {
			return nil, err
		}
		return NewPlan(c, registry.Env{})
	}
	p, err := plan(`link = "logistic"`)
	if err != nil {
		t.Fatal(err)
	}
	if s := native(&p.Runs[0]); s.Synthetic.Link != federate.LinkLogistic || s.Synthetic.NoiseVar != 0 || p.Instances[0].Name != "synthetic d=10 K=100 noise_var=0 seed=0 link=logistic" {
		t.Errorf("spec %+v, instance %q", s.Synthetic, p.Instances[0].Name)
	}
	id, _ := plan(`link = "identity"`)
	def, _ := plan("")
	if id.Runs[0].ID != def.Runs[0].ID {
		t.Error(`link = "identity" changed the run id`)
	}
	if _, err := plan(`link = "probit"`); err == nil || !strings.Contains(err.Error(), "instance[0].link") {
		t.Errorf("unknown link: %v", err)
	}
	if _, err := plan(`link = "logistic"` + "\nnoise_var = 0.25"); err == nil || !strings.Contains(err.Error(), "instance[0].noise_var") {
		t.Errorf("logistic with noise: %v", err)
	}
	c, err := ParseConfig([]byte("name = \"x\"\nseeds = 1\n[[instance]]\nkind = \"ltr\"\ndataset = \"d\"\nfeatures = \"title\"\nlink = \"logistic\"\n[[algorithm]]\nname = \"fedlinucb\"\n[grid]\nM = [2]\nB = [5]\nT = [10]\n"), "")
	if err == nil {
		_, err = NewPlan(c, registry.Env{})
	}
	if err == nil || !strings.Contains(err.Error(), "link") {
		t.Errorf("link on ltr: %v", err)
	}
}

// TestIsSetPaths: isSet and isList walk the sweep file's tree by key and
// by index; a path past the end of an array of tables (the index equal to
// its length, or beyond), through a value that is not a table, or to an
// absent key is not set, and is never an index out of range. Mutation
// control: the index bound `k >= len(l)` as `k > len(l)` fails (a panic).
func TestIsSetPaths(t *testing.T) {
	c, err := ParseConfig([]byte(base+"\n[[algorithm]]\nname = \"fedlinucb\"\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		path      []any
		set, list bool
	}{
		{"top-level key", []any{"seeds"}, true, false},
		{"absent top-level key", []any{"first_seed"}, false, false},
		{"grid list", []any{"grid", "eps"}, true, true},
		{"first table of an array", []any{"algorithm", 0, "preset"}, true, false},
		{"last table of an array", []any{"algorithm", 1, "name"}, true, false},
		{"absent key of a table", []any{"algorithm", 1, "preset"}, false, false},
		{"index equal to the array's length", []any{"algorithm", 2, "name"}, false, false},
		{"index past the array's length", []any{"algorithm", 3}, false, false},
		{"index into a table", []any{"grid", 0}, false, false},
		{"key of a value", []any{"seeds", "x"}, false, false},
		{"absent table", []any{"advanced", "crs"}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.isSet(tc.path...); got != tc.set {
				t.Errorf("isSet%v = %v, want %v", tc.path, got, tc.set)
			}
			if got := c.isList(tc.path...); got != tc.list {
				t.Errorf("isList%v = %v, want %v", tc.path, got, tc.list)
			}
		})
	}
}

// TestConfigAccepts: valid sweep files that use an optional key, or leave
// out one an algorithm does not need, are accepted and planned as given;
// an unnamed instance is named by its index. Mutation controls: the
// default name given to named instances instead (`Name == ""` negated),
// checkpoint_every's `< 1` as `<= 1` (every round refused), the length
// check of advanced.reward negated (every [lo, hi] refused), and delta
// required of every private algorithm of another family than the linear
// one (`== registry.FamilyLinear` negated) each fail a case.
func TestConfigAccepts(t *testing.T) {
	for _, tc := range []struct {
		name, cfg string
		check     func(t *testing.T, p *Plan)
	}{
		{"reward interval", strings.Replace(base, `T = [100]`, "T = [100]\n[advanced]\nreward = [-1, 1]", 1), func(t *testing.T, p *Plan) {
			for _, r := range p.Runs {
				if r.Spec.RewardLo != -1 || r.Spec.RewardHi != 1 {
					t.Fatalf("run %s: reward [%v, %v], want [-1, 1]", r.ID, r.Spec.RewardLo, r.Spec.RewardHi)
				}
				if r.Instance.Config.Name != "syn" {
					t.Fatalf("instance named %q, want its own name syn", r.Instance.Config.Name)
				}
			}
		}},
		{"checkpoint every round, another family", strings.Replace(genericBCO, "checkpoint_every = 100", "checkpoint_every = 1", 1), func(t *testing.T, p *Plan) {
			if e := p.Runs[0].Spec.Every; e != 1 {
				t.Errorf("checkpoint spacing %d, want 1", e)
			}
		}},
		{"pure-DP mab algorithm without delta", `
name = "mab"
seeds = 1
[[instance]]
kind = "mab"
gap = 0.5
[[algorithm]]
name = "dp-se"
[grid]
eps = [1]
T = [3000]
`, func(t *testing.T, p *Plan) {
			if n := p.Runs[0].Instance.Config.Name; n != "instance0" {
				t.Errorf("unnamed instance named %q, want instance0", n)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConfig([]byte(tc.cfg), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			p, err := NewPlan(c, registry.Env{})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Runs) == 0 {
				t.Fatal("no runs planned")
			}
			if tc.check != nil {
				tc.check(t, p)
			}
		})
	}
}

// TestUnknownAlgorithmKeyMessage: a key an algorithm does not declare is
// an error that lists the algorithm's parameters, or says it has none.
// Mutation control: the `len(alg.Params) > 0` test as `>=` or `==` fails.
func TestUnknownAlgorithmKeyMessage(t *testing.T) {
	for _, tc := range []struct{ name, cfg, alg, want string }{
		{"algorithm without parameters", base, "ldp", "unknown key: ldp has no parameters of its own"},
		{"algorithm with parameters", genericMAB, "dist-rdp-se", "unknown key: dist-rdp-se has parameters conf, crs, growth, S, per_user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := strings.Replace(tc.cfg, "name = \""+tc.alg+"\"\n", "name = \""+tc.alg+"\"\nzeta = [1]\n", 1)
			_, err := ParseConfig([]byte(cfg), t.TempDir())
			var ke *KeyError
			if !errors.As(err, &ke) || !strings.HasSuffix(ke.Key, ".zeta") || !strings.Contains(ke.Msg, tc.want) {
				t.Fatalf("error %v, want a KeyError on .zeta saying %q", err, tc.want)
			}
		})
	}
}

// TestValidateUnknownAlgorithm: Validate, exported, refuses an algorithm
// name of a Config changed after parsing (ParseConfig refuses it while
// decoding, before Validate runs).
func TestValidateUnknownAlgorithm(t *testing.T) {
	c, err := ParseConfig([]byte(base), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c.Algorithms[0].Name = "no-such-algorithm"
	var ke *KeyError
	if err := c.Validate(); !errors.As(err, &ke) || ke.Key != "algorithm[0].name" {
		t.Errorf("Validate: %v", err)
	}
}

// TestUnknownKeyDidYouMean: an unknown key of the sweep file's own
// tables, of an instance kind or of an algorithm names the closest known
// key of the same table; a key close to none gets no suggestion.
// Mutation-checked: dropping didYouMeanKey's table prefix, or the
// suggestion in the algorithm's or the kind's message, fails it.
func TestUnknownKeyDidYouMean(t *testing.T) {
	for _, tc := range []struct{ name, cfg, old, new, key, want string }{
		{"grid", base, "eps = [1, 5]", "epsilon = [1, 5]", "grid.epsilon", `did you mean "grid.eps"?`},
		{"top level", base, "seeds = 2", "seeds = 2\nseds = 3", "seds", `did you mean "seeds"?`},
		{"advanced", base, "[grid]", "[advanced]\nnoclip = true\n[grid]", "advanced.noclip", `did you mean "advanced.no_clip"?`},
		{"instance kind", base, "noise_var = 0.25", "noise_vr = 0.25", "instance[0].noise_vr", `did you mean "noise_var"?`},
		{"algorithm", genericMAB, "S = [10, 100]", "S = [10, 100]\ngrwoth = [2]", "algorithm[0].grwoth", `did you mean "growth"?`},
		{"far from every key", base, "eps = [1, 5]", "eps = [1, 5]\nzebra = [1]", "grid.zebra", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := strings.Replace(tc.cfg, tc.old, tc.new, 1)
			if cfg == tc.cfg {
				t.Fatalf("%q not in the config", tc.old)
			}
			_, err := ParseConfig([]byte(cfg), t.TempDir())
			var ke *KeyError
			if !errors.As(err, &ke) || ke.Key != tc.key {
				t.Fatalf("error %v, want a KeyError on %s", err, tc.key)
			}
			if tc.want == "" && strings.Contains(ke.Msg, "did you mean") || !strings.Contains(ke.Msg, tc.want) {
				t.Errorf("%s: %q, want %q", tc.key, ke.Msg, tc.want)
			}
		})
	}
}
