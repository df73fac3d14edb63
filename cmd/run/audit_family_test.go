package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/fedbandit/fedbandit/registry"
)

// TestAuditFlagsDeclaredByFamilies: every flag of `run audit` is read by
// some family's audit (registry.Family.Audit.Flags, which Validate
// checks given flags against), each family's names only flags the
// command has, and the one audit that takes --sweep reads every flag
// but --analytic (a bco audit's key), as before the lists moved into the
// registry. Mutation: dropping "pair" from the linear audit's list fails
// here (and makes `run audit --pair action` an error).
func TestAuditFlagsDeclaredByFamilies(t *testing.T) {
	var app cli
	k := kong.Must(&app, kong.Name("run"))
	var flags []string
	for _, cmd := range k.Model.Children {
		if cmd.Name != "audit" {
			continue
		}
		for _, f := range cmd.Flags {
			flags = append(flags, f.Name)
		}
	}
	if len(flags) < 10 {
		t.Fatalf("run audit has %d flags: %v", len(flags), flags)
	}
	sweeps := 0
	for _, f := range registry.Families() {
		if f.Audit == nil {
			t.Errorf("family %s has no audit", f.Name)
			continue
		}
		for _, fl := range f.Audit.Flags {
			if !slices.Contains(flags, fl) {
				t.Errorf("family %s's audit reads --%s, not a flag of run audit", f.Name, fl)
			}
		}
		if f.Audit.Sweep {
			sweeps++
			for _, fl := range flags {
				if slices.Contains(f.Audit.Flags, fl) == (fl == "analytic") {
					t.Errorf("the %s audit (--sweep): reads --%s %v, want every flag but --analytic", f.Name, fl, slices.Contains(f.Audit.Flags, fl))
				}
			}
		} else if f.Audit.Run == nil {
			t.Errorf("family %s's audit neither takes --sweep nor runs one algorithm", f.Name)
		}
	}
	if sweeps != 1 {
		t.Errorf("%d families' audits take --sweep, want 1", sweeps)
	}
	for _, fl := range flags {
		if len(registry.AuditFamilies(fl)) == 0 {
			t.Errorf("--%s: no family's audit reads it", fl)
		}
	}
}

// TestAuditCommandHasNoFamilyBranch: audit_cmd.go decides nothing by a
// family's name: no registry.Family* constant, no string literal naming
// a family, no import of the mab or bco packages (their audits run
// through registry.Family.Audit). Mutation: restoring a
// `fam == registry.FamilyMAB` test fails it.
func TestAuditCommandHasNoFamilyBranch(t *testing.T) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "audit_cmd.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range registry.Families() {
		names[f.Name] = true
	}
	for _, imp := range file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p == "github.com/fedbandit/fedbandit/mab" || p == "github.com/fedbandit/fedbandit/bco" {
			t.Errorf("%s imports %s", fset.Position(imp.Pos()), p)
		}
	}
	ast.Inspect(file, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && id.Name == "registry" && x.Sel.Name != "Family" && strings.HasPrefix(x.Sel.Name, "Family") {
				t.Errorf("%s: registry.%s: a family's name decides nothing here", fset.Position(x.Pos()), x.Sel.Name)
			}
		case *ast.BasicLit:
			if s, err := strconv.Unquote(x.Value); err == nil && names[s] {
				t.Errorf("%s: string %s names a family", fset.Position(x.Pos()), x.Value)
			}
		}
		return true
	})
}
