package registry

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/core"
	"github.com/fedbandit/fedbandit/federate"
)

// TestEntriesDeclareEverything: every algorithm has a family, a trust
// model, names, a summary and a way to run; its parameters have a doc and
// a default inside their range (NaN: a default that depends on the run,
// which its doc states); it uses only generic keys of its family.
func TestEntriesDeclareEverything(t *testing.T) {
	trusts := []string{core.TrustNone, core.TrustCentral, core.TrustLocal, core.TrustShuffle, core.TrustDistributed}
	for _, a := range Algorithms() {
		if a.Name == "" || a.Display == "" || a.Summary == "" || a.NewRun == nil {
			t.Errorf("%q: incomplete entry", a.Name)
		}
		if !slices.Contains([]string{FamilyLinear, FamilyMAB, FamilyBCO}, a.Family) {
			t.Errorf("%s: family %q", a.Name, a.Family)
		}
		if !slices.Contains(trusts, a.Trust) {
			t.Errorf("%s: trust %q", a.Name, a.Trust)
		}
		for _, p := range a.Params {
			if p.Doc == "" || (!math.IsNaN(p.Default) && p.Check(p.Default) != nil) {
				t.Errorf("%s: parameter %+v", a.Name, p)
			}
		}
		generic := federate.GenericKeys
		if a.Family != FamilyLinear {
			generic = []string{"eps", "delta", "T", "M", "B", "seed", "checkpoint_every"}
			if a.Check == nil {
				t.Errorf("%s: no Check", a.Name)
			}
			if a.Private() != a.UsesKey("eps") {
				t.Errorf("%s: private %v but uses eps %v", a.Name, a.Private(), a.UsesKey("eps"))
			}
		}
		for _, k := range a.Uses {
			if !slices.Contains(generic, k) {
				t.Errorf("%s uses %q, not a generic key", a.Name, k)
			}
		}
		if got, err := Lookup(a.Name); err != nil || got != a {
			t.Errorf("Lookup(%q) = %v, %v", a.Name, got, err)
		}
	}
	if _, err := Lookup("ucb"); err == nil || !strings.Contains(err.Error(), `"eps-greedy"`) {
		t.Errorf("unknown algorithm: %v", err)
	}
}

// TestLabel: the one label of a configuration is the plans' group label
// (the format runs.arrow's group column has always had), with an
// algorithm's own parameters after the generic keys.
func TestLabel(t *testing.T) {
	s := federate.Spec{Algorithm: "ldp", Lazy: true, Eps: 1, Delta: 0.1, M: 100, B: 25, T: 10000, Seed: 1,
		Synthetic: federate.SyntheticSpec{NoiseVar: 0.25}}.WithDefaults()
	want := "ldp lazy eps=1 delta=0.1 relation=add-remove protocol=P preset=exact M=100 B=25 T=10000 alpha=0.01 every=25 R=0.5 crs=1 gram=symmetrised reward=[0,1] instance=syn (synthetic d=10)"
	if got := Label(FromSpec(s, "syn", "synthetic d=10")); got != want {
		t.Errorf("label\n got %s\nwant %s", got, want)
	}
	r := federate.Spec{Algorithm: "random", M: 3, B: 5, T: 20, Synthetic: federate.SyntheticSpec{NoiseVar: 0.25}}.Canonical().WithDefaults()
	if got, want := Label(FromSpec(r, "", "")), "random M=3 B=5 T=20 every=5"; got != want {
		t.Errorf("random: %q, want %q", got, want)
	}
	e := federate.Spec{Algorithm: "eps-greedy", M: 3, B: 5, T: 20, Params: map[string]float64{"explore": 0},
		Synthetic: federate.SyntheticSpec{NoiseVar: 0.25}}.WithDefaults()
	if got := Label(FromSpec(e, "", "")); !strings.HasSuffix(got, " explore=0") {
		t.Errorf("eps-greedy label %q does not end with explore=0", got)
	}
}

// TestNewRunIsTheFamilysRun: a library caller's family-neutral run spec
// plays the run the linear family plays for the same spec (the same
// curve, bit for bit), with the same defaults (explore 0.1 when absent).
func TestNewRunIsTheFamilysRun(t *testing.T) {
	rs := RunSpec{Algorithm: "eps-greedy", Instance: "synthetic", Seed: 3, T: 40, M: 3, B: 5,
		Table: map[string]any{"d": int64(4), "k": int64(10)}}
	a, _ := Lookup(rs.Algorithm)
	got, err := a.NewRun(context.Background(), rs)
	if err != nil {
		t.Fatal(err)
	}
	want, err := federate.Run(context.Background(), federate.Spec{Algorithm: "eps-greedy", Seed: 3, T: 40, M: 3, B: 5,
		Params:    map[string]float64{"explore": 0.1},
		Synthetic: federate.SyntheticSpec{D: 4, K: 10, NoiseVar: DefaultNoiseVar, ContextGen: federate.ContextsFast}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Curve, want.Curve) || got.Pseudo != want.Pseudo {
		t.Error("NewRun differs from federate.Run of the same spec")
	}
	if got.Privacy.Trust != core.TrustNone {
		t.Errorf("claim %+v", got.Privacy)
	}
	rs.Params = map[string]float64{"explore": 2}
	if _, err := a.NewRun(context.Background(), rs); err == nil || !strings.Contains(err.Error(), "explore") {
		t.Errorf("explore = 2: %v", err)
	}
	// A private run's claim: LDP is local trust, certified lazy.
	l, _ := Lookup("ldp")
	res, err := l.NewRun(context.Background(), RunSpec{Algorithm: "ldp", Instance: "synthetic", Seed: 1, T: 40, M: 3, B: 5,
		Eps: 1, Delta: 0.1, Table: map[string]any{"d": int64(4), "k": int64(10)}})
	if err != nil {
		t.Fatal(err)
	}
	if p := res.Privacy; p.Trust != core.TrustLocal || !p.Certified || p.Check() != nil || p.TargetEps != 1 {
		t.Errorf("ldp claim %+v (%v)", p, p.Check())
	}
}

// TestKindSwitchSites: outside the instance kinds' own files (kind*.go),
// no Go source of the repository switches on, or compares with, an
// instance kind's name: the kinds are a registry (issue 19). Mutation
// control: a `switch in.Kind { case federate.InstanceSynthetic: }` added
// to runner/plan.go makes this fail (tried, 2026-11-25).
func TestKindSwitchSites(t *testing.T) {
	kindIdents := map[string]bool{"InstanceSynthetic": true, "InstanceLTR": true}
	kindLits := map[string]bool{strconv.Quote(federate.InstanceSynthetic): true, strconv.Quote(federate.InstanceLTR): true}
	isKind := func(e ast.Expr) bool {
		switch x := e.(type) {
		case *ast.Ident:
			return kindIdents[x.Name]
		case *ast.SelectorExpr:
			return kindIdents[x.Sel.Name]
		case *ast.BasicLit:
			return kindLits[x.Value]
		}
		return false
	}
	root := filepath.Join("..")
	fset := token.NewFileSet()
	var sites []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasPrefix(d.Name(), "kind") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CaseClause:
				for _, e := range x.List {
					if isKind(e) {
						sites = append(sites, fset.Position(e.Pos()).String())
					}
				}
			case *ast.BinaryExpr:
				if (x.Op == token.EQL || x.Op == token.NEQ) && (isKind(x.X) || isKind(x.Y)) {
					sites = append(sites, fset.Position(x.Pos()).String())
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sites) > 0 {
		t.Errorf("%d instance-kind switch sites outside the kinds' own files:\n%s", len(sites), strings.Join(sites, "\n"))
	}
}

// TestDocsListNoAlgorithms: no line of the docs lists the algorithms by
// hand (four or more registered names, quoted or in backticks): the list
// is the registry's, printed by `run sweep --help`, so that adding an
// algorithm edits no doc. (A list that named them all would have to be
// edited with every new algorithm; one that named some would go stale.)
func TestDocsListNoAlgorithms(t *testing.T) {
	token := regexp.MustCompile("[`\"]([a-z0-9-]+)[`\"]")
	files := []string{"../README.md", "../sweeps/README.md", "../outputs/README.md", "../BENCHMARKS.md"}
	more, _ := filepath.Glob("../docs/*.md")
	files = append(files, more...)
	read := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		read++
		for i, line := range strings.Split(string(b), "\n") {
			seen := map[string]bool{}
			for _, m := range token.FindAllStringSubmatch(line, -1) {
				if _, err := Lookup(m[1]); err == nil {
					seen[m[1]] = true
				}
			}
			if len(seen) >= 4 {
				t.Errorf("%s:%d lists %d algorithms by hand: point to `run sweep --help` instead", f, i+1, len(seen))
			}
		}
	}
	if read < 4 {
		t.Fatalf("read %d docs", read)
	}
	// The instance kinds, where a sweep-file example lists them.
	b, err := os.ReadFile("../sweeps/README.md")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "kind = ") || !strings.Contains(line, "|") {
			continue
		}
		for _, k := range KindNames() {
			if !strings.Contains(line, k) {
				t.Errorf("sweeps/README.md:%d lists instance kinds without %q", i+1, k)
			}
		}
	}
}

// TestInstanceClass: instances that differ only in their seed share a
// class (the descriptions Load writes), instances that differ in anything
// else do not.
func TestInstanceClass(t *testing.T) {
	desc := func(gap float64, seed int64) string {
		y, err := decodeMABTable(map[string]any{"gap": gap, "seed": seed})
		if err != nil {
			t.Fatal(err)
		}
		l, err := y.Load(0, Env{})
		if err != nil {
			t.Fatal(err)
		}
		return l.Name
	}
	e0, e3, h3 := desc(0.5, 0), desc(0.5, 3), desc(0.1, 3)
	if e0 == e3 || InstanceClass(e0) != InstanceClass(e3) {
		t.Errorf("seeds 0 and 3: %q and %q, classes %q and %q", e0, e3, InstanceClass(e0), InstanceClass(e3))
	}
	if InstanceClass(e3) == InstanceClass(h3) {
		t.Errorf("gap 0.5 and 0.1 share the class %q", InstanceClass(h3))
	}
	if got, want := InstanceClass("synthetic d=10 K=100 noise_var=0.25 seed=2 fixed-basis"), "synthetic d=10 K=100 noise_var=0.25 fixed-basis"; got != want {
		t.Errorf("synthetic: %q, want %q", got, want)
	}
}

// TestOneMeaningPerKey: the registered entries give each parameter key
// one meaning, and oneMeaning refuses a key two entries declare with
// another doc or integrality, naming the key and both entries; the same
// key with another default or range is one meaning. Mutation control:
// oneMeaning comparing the keys only (SameMeaning returning p.Key ==
// q.Key) fails it (tried 2026-12-02).
func TestOneMeaningPerKey(t *testing.T) {
	if err := oneMeaning(Algorithms()); err != nil {
		t.Fatal(err)
	}
	base := core.Param{Key: "sync_threshold", Doc: "log-det growth D/(t - t_last) that triggers a sync", Min: 0, Max: math.MaxFloat64}
	entry := func(name string, p core.Param) *Algorithm { return &Algorithm{Name: name, Params: []core.Param{p}} }
	other := base
	other.Default, other.Max = 1, 10
	if err := oneMeaning([]*Algorithm{entry("feducb", base), entry("variant", other)}); err != nil {
		t.Errorf("another default and range: %v", err)
	}
	for _, c := range []struct {
		name string
		edit func(p *core.Param)
	}{
		{"doc", func(p *core.Param) { p.Doc = "log-det growth D that triggers a sync" }},
		{"integrality", func(p *core.Param) { p.Integer = true }},
	} {
		p := base
		c.edit(&p)
		err := oneMeaning([]*Algorithm{entry("feducb", base), entry("fedlinucb-event", p)})
		if err == nil || !strings.Contains(err.Error(), `"sync_threshold"`) ||
			!strings.Contains(err.Error(), "feducb declares") || !strings.Contains(err.Error(), "fedlinucb-event declares") {
			t.Errorf("another %s: %v", c.name, err)
		}
	}
}

// TestLookupDidYouMean: a mistyped algorithm name or instance kind in a
// sweep file is refused with the nearest registered name proposed, and a
// name near none gets the list alone (notebook review 2, section 5:
// "no did you mean for enum values").
func TestLookupDidYouMean(t *testing.T) {
	for _, c := range []struct {
		what, name, want string
		lookup           func(string) error
	}{
		{"algorithm", "dp-ucbb", `, did you mean "dp-ucb"?`, func(n string) error { _, err := Lookup(n); return err }},
		{"algorithm", "fedlinubc", `, did you mean "fedlinucb"?`, func(n string) error { _, err := Lookup(n); return err }},
		{"algorithm", "zzzzzzzzzz", "", func(n string) error { _, err := Lookup(n); return err }},
		{"kind", "mabb", `, did you mean "mab"?`, func(n string) error { _, err := LookupKind(n); return err }},
		{"kind", "synthetc", `, did you mean "synthetic"?`, func(n string) error { _, err := LookupKind(n); return err }},
		{"kind", "zzzzzzzzzz", "", func(n string) error { _, err := LookupKind(n); return err }},
	} {
		t.Run(c.what+"/"+c.name, func(t *testing.T) {
			err := c.lookup(c.name)
			if err == nil {
				t.Fatalf("%q accepted", c.name)
			}
			msg := err.Error()
			if !strings.Contains(msg, "want one of ") || !strings.Contains(msg, `"`+c.name+`"`) {
				t.Errorf("error does not name %q and the choices: %s", c.name, msg)
			}
			if c.want == "" {
				if strings.Contains(msg, "did you mean") {
					t.Errorf("a far name got a suggestion: %s", msg)
				}
			} else if !strings.HasSuffix(msg, c.want) {
				t.Errorf("error = %s, want it to end %s", msg, c.want)
			}
		})
	}
}
