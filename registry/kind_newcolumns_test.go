package registry

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/outputs"
)

// taggedKind is a kind of the tests only (no shipped kind declares a new
// column): the synthetic instance with one more key, tag, and two columns
// of its own that runs.arrow lacks, test_tag (the key, a string) and
// test_dim (the loaded instance's dimension, an int64).
var taggedKind = &Kind{
	Name: "test-tagged", Family: FamilyLinear,
	Summary:    "the synthetic instance with a tag (tests only)",
	Keys:       append(slices.Clone(syntheticKind.Keys), Key{"tag", "a label, recorded in test_tag"}),
	Columns:    syntheticKind.Columns,
	NewColumns: taggedColumns,
	Decode: func(table map[string]any, dir string) (Instance, error) {
		tag, _ := table["tag"].(string)
		rest := map[string]any{}
		for k, v := range table {
			if k != "tag" {
				rest[k] = v
			}
		}
		in, err := syntheticKind.Decode(rest, dir)
		if err != nil {
			return nil, err
		}
		return taggedInstance{in.(LinearInstance), tag}, nil
	},
}

var taggedColumns = []NewColumn{
	{Name: "test_tag", Type: "string", Doc: "the instance's tag key"},
	{Name: "test_dim", Unit: "features", Type: "int64", Doc: "the loaded instance's dimension"},
}

// taggedInstance is a decoded test-tagged instance: a synthetic one that
// records its tag and dimension too.
type taggedInstance struct {
	LinearInstance
	tag string
}

func (taggedInstance) Kind() string { return taggedKind.Name }

func (in taggedInstance) Record(l *Loaded, rec *outputs.RunRecord) {
	in.LinearInstance.Record(l, rec)
	rec.KindValues = map[string]any{"test_tag": in.tag, "test_dim": int64(l.Dim)}
}

// withKind registers kinds ks beside the registry's for the test, as the
// start-up check would (kindColumns), or returns its error; the runs
// tables written meanwhile hold their columns (outputs reads the kinds
// at every write). The test must not be parallel.
func withKind(t testing.TB, ks ...*Kind) error {
	t.Helper()
	all := append(slices.Clone(kinds), ks...)
	if _, err := kindColumns(all); err != nil {
		return err
	}
	saved := kinds
	kinds = all
	t.Cleanup(func() { kinds = saved })
	return nil
}

// TestNewKindColumns: a kind's new columns pass TestKindColumns' checks
// (declared, filled by Record with their type, applies_to its kinds); a
// kind listing another kind's new column in Columns is a second kind
// recording it; `run sweep --help`'s list (Records) names them.
func TestNewKindColumns(t *testing.T) {
	kindSamples[taggedKind.Name] = func(*testing.T) map[string]any { return map[string]any{"tag": "x", "d": int64(3)} }
	defer delete(kindSamples, taggedKind.Name)
	if err := withKind(t, taggedKind); err != nil {
		t.Fatal(err)
	}
	checkKindColumns(t, Kinds())
	if got := KindsRecording("test_dim"); !slices.Equal(got, []string{"test-tagged"}) {
		t.Errorf("KindsRecording(test_dim) = %v", got)
	}
	if got := taggedKind.Records(); !slices.Contains(got, "test_tag") || !slices.Contains(got, "context_gen") {
		t.Errorf("Records() = %v", got)
	}
	var names []string
	for _, f := range outputs.RunsSchema(nil).Fields() {
		names = append(names, f.Name)
	}
	if i := slices.Index(names, "test_dim"); i != len(outputs.Columns) || names[i+1] != "test_tag" || !strings.HasPrefix(names[i+2], outputs.ParamPrefix) {
		t.Errorf("runs.arrow columns %v: want the new kind columns after outputs.Columns, in name order, before param_", names[len(outputs.Columns):])
	}

}

// TestKindColumnsRefused: a bad declaration of a kind's columns is
// refused at start-up (the registry's init checks kindColumns; withKind
// the same), naming the kind or the column: a new column with a name
// runs.arrow has (a shared kind column or another), curves.arrow has, an
// older layout had, or of the param_ prefix; one without a type or
// meaning or of another type; one declared by two kinds; a name in
// Columns that is no kind column.
func TestKindColumnsRefused(t *testing.T) {
	with := func(name string, mod func(k *Kind)) *Kind {
		k := *taggedKind
		k.Name = name
		k.NewColumns = slices.Clone(taggedColumns)
		mod(&k)
		return &k
	}
	for _, tc := range []struct {
		k    *Kind
		want string
	}{
		{with("a", func(k *Kind) { k.NewColumns[0].Name = "features" }), "runs.arrow already has a column features"},
		{with("b", func(k *Kind) { k.NewColumns[0].Name = "horizon" }), `runs.arrow's column horizon applies to "all"`},
		{with("c", func(k *Kind) { k.NewColumns[0].Name = "pseudo_regret" }), "a column of curves.arrow"},
		{with("d", func(k *Kind) { k.NewColumns[0].Name = "scalars_sent" }), "a column of curves.arrow"},
		{with("e", func(k *Kind) { k.NewColumns[0].Name = "query" }), "a column name of layout 3"},
		{with("f", func(k *Kind) { k.NewColumns[0].Name = "lambda" }), "a column name of layout 2"},
		{with("g", func(k *Kind) { k.NewColumns[0].Name = "param_tag" }), "the prefix param_"},
		{with("h", func(k *Kind) { k.NewColumns[0].Name = "test tag" }), "want letters, digits and _"},
		{with("i", func(k *Kind) { k.NewColumns[0].Type = "uint64" }), `type "uint64"`},
		{with("j", func(k *Kind) { k.NewColumns[0].Type = "" }), "kind j: column test_tag: no type"},
		{with("k", func(k *Kind) { k.NewColumns[0].Doc = "" }), "no meaning"},
		{with("l", func(k *Kind) { k.Columns = append(slices.Clone(k.Columns), "test_dim") }), "kind l: column test_dim named twice"},
		{with("m", func(k *Kind) { k.Columns = append(slices.Clone(k.Columns), "d") }), `runs.arrow's column d applies to "linear, bco"`},
		{with("n", func(k *Kind) { k.Columns = append(slices.Clone(k.Columns), "test_nothing") }), "kind column test_nothing (kinds n): not a column of runs.arrow, and declared by no kind"},
	} {
		err := withKind(t, tc.k)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("kind %s: %v, want an error with %q", tc.k.Name, err, tc.want)
		}
	}
	// Two kinds declaring one new column; one declaring and one listing
	// it is right.
	err := withKind(t, with("x", func(*Kind) {}), with("y", func(*Kind) {}))
	if err == nil || !strings.Contains(err.Error(), "kind y: column test_tag declared again (kind x declares it)") {
		t.Errorf("two declarations: %v", err)
	}
	lister := with("z", func(k *Kind) { k.NewColumns = nil; k.Columns = append(slices.Clone(k.Columns), "test_tag") })
	cols, err := kindColumns(append(slices.Clone(kinds), taggedKind, lister))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(cols, func(c outputs.KindColumn) bool { return c.Name == "test_tag" })
	if i < 0 || !slices.Equal(cols[i].Kinds, []string{"test-tagged", "z"}) || cols[i].Type != "string" {
		t.Errorf("test_tag declared by test-tagged, listed by z: %+v", cols[i])
	}
}

// TestNewColumnsDocumented: docs/instances.md documents every new
// column of a kind in the kind's section (a heading with `kind =
// "NAME"`, up to the next heading of its level or above). The test kind,
// not in the docs, is reported; documented in a section of its own, it
// passes.
func TestNewColumnsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/instances.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range undocumentedColumns(string(doc), Kinds()) {
		t.Error(err)
	}
	errs := undocumentedColumns(string(doc), []*Kind{taggedKind})
	if len(errs) != 1 || !strings.Contains(errs[0], `no section of kind test-tagged (a heading with kind = "test-tagged")`) {
		t.Errorf("the test kind's columns, undocumented: %v", errs)
	}
	section := "\n## Tagged (`kind = \"test-tagged\"`)\n\nIt records `test_tag`.\n\n### More\n\nand `test_dim`.\n\n## Next\n\n`nothing`\n"
	if errs := undocumentedColumns(string(doc)+section, []*Kind{taggedKind}); len(errs) != 0 {
		t.Errorf("documented: %v", errs)
	}
	cut := strings.Replace(section, "`test_dim`", "test_dim", 1)
	if errs := undocumentedColumns(string(doc)+cut, []*Kind{taggedKind}); len(errs) != 1 || !strings.Contains(errs[0], "test_dim") {
		t.Errorf("test_dim undocumented: %v", errs)
	}
}

// undocumentedColumns lists the new columns of ks that doc (docs/
// instances.md) does not name, as `NAME`, in the section of their kind.
func undocumentedColumns(doc string, ks []*Kind) []string {
	var errs []string
	heading := regexp.MustCompile(`^(#+) `)
	lines := strings.Split(doc, "\n")
	for _, k := range ks {
		if len(k.NewColumns) == 0 {
			continue
		}
		start, level := -1, 0
		for i, l := range lines {
			if m := heading.FindStringSubmatch(l); m != nil && strings.Contains(l, `kind = "`+k.Name+`"`) {
				start, level = i, len(m[1])
				break
			}
		}
		if start < 0 {
			errs = append(errs, `docs/instances.md: no section of kind `+k.Name+` (a heading with kind = "`+k.Name+`"), which documents its columns`)
			continue
		}
		end := len(lines)
		for i := start + 1; i < len(lines); i++ {
			if m := heading.FindStringSubmatch(lines[i]); m != nil && len(m[1]) <= level {
				end = i
				break
			}
		}
		body := strings.Join(lines[start:end], "\n")
		for _, c := range k.NewColumns {
			if !strings.Contains(body, "`"+c.Name+"`") {
				errs = append(errs, "docs/instances.md, section of kind "+k.Name+" (line "+strconv.Itoa(start+1)+"): column `"+c.Name+"` undocumented")
			}
		}
	}
	return errs
}
