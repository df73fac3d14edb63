package runner

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/registry"
)

// TestRunnerHasNoFamilyBranch: the runner's code (its non-test files) names
// no family, instance kind or algorithm: no string literal equal to one of
// their names, no registry.Family* constant, no algorithm or kind constant
// of a family package (federate.Alg*, federate.Instance*), and no import of
// a family's package (mab, bco, ltr, federate: federate only in grid.go,
// whose Configurations hands the linear audit its specs). Everything a
// family decides goes through its registry entries (registry.Algorithm's
// Compile, ID, Check, Cost, Pilot, NewRun, Result, Stream) and its kinds. Mutation control (run 2026-11-29): writing
// `if r.Spec.Algorithm == "se"` or `alg.Family == registry.FamilyMAB` into
// plan.go fails it.
func TestRunnerHasNoFamilyBranch(t *testing.T) {
	names := map[string]string{}
	for _, f := range []string{registry.FamilyLinear, registry.FamilyMAB, registry.FamilyBCO} {
		names[f] = "family"
	}
	for _, k := range registry.KindNames() {
		names[k] = "instance kind"
	}
	for _, a := range registry.Names() {
		names[a] = "algorithm"
	}
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("runner sources: %v, %v", files, err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range file.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			family := slices.Contains([]string{"mab", "bco", "ltr", "federate"}, strings.TrimPrefix(p, "github.com/fedbandit/fedbandit/")) ||
				strings.HasPrefix(p, "github.com/fedbandit/fedbandit/federate/")
			if family && !(f == "grid.go" && p == "github.com/fedbandit/fedbandit/federate") {
				t.Errorf("%s imports %s: the runner reaches a family through the registry", fset.Position(imp.Pos()), p)
			}
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BasicLit:
				if x.Kind != token.STRING {
					return true
				}
				if s, err := strconv.Unquote(x.Value); err == nil && names[s] != "" {
					t.Errorf("%s: string %s is the name of %s %q: the runner has no branch on one", fset.Position(x.Pos()), x.Value, names[s], s)
				}
			case *ast.SelectorExpr:
				pkg, ok := x.X.(*ast.Ident)
				if !ok {
					return true
				}
				sel := x.Sel.Name
				if (pkg.Name == "registry" && strings.HasPrefix(sel, "Family")) ||
					(pkg.Name == "federate" && (strings.HasPrefix(sel, "Alg") || strings.HasPrefix(sel, "Instance"))) {
					t.Errorf("%s: %s.%s names a family, kind or algorithm: the runner has no branch on one", fset.Position(x.Pos()), pkg.Name, sel)
				}
			}
			return true
		})
	}
}
