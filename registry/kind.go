package registry

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/internal/suggest"
	"github.com/fedbandit/fedbandit/ltr"
	"github.com/fedbandit/fedbandit/outputs"
)

// Kind is an instance kind: the keys its [[instance]] table takes, how a
// table of them is decoded and checked, and the data it loads. Everything
// specific to a kind lives in its own file (kind_synthetic.go,
// kind_ltr.go, mab.go, bco.go); the runner asks through this type.
//
// The contract a kind follows (every family):
//
//   - Decode (at sweep-file parse time) decodes and checks its table
//     WITHOUT reading data: keys, ranges, that the dataset directory is a
//     prepared dataset (its manifest). Errors are *KeyError naming the key.
//   - Instance.Load(m, env) builds the instance once per plan (once per M
//     when PerM): it reads the data, through env's loaders only (never
//     ingest or ltr directly, so that tests count reads and plan shipped
//     sweeps against stand-ins), and returns a *Loaded whose Value is the
//     family's own instance (mab.Instance for the mab family, bco.Instance
//     for bco, *LinearData for the linear family). A data error names the
//     key and the file (a qid the dataset lacks: "query: ... in DIR").
//   - The Loaded is shared read-only by every run of the plan: the
//     algorithm's NewRun and Check receive it as RunSpec.Loaded and never
//     decode the table or read the data again.
//   - Instance.Record fills the kind's columns of a runs.arrow row from the
//     decoded table and the loaded instance.
//   - A kind of the linear family also implements LinearInstance.
type Kind struct {
	Name    string
	Family  string
	Summary string
	// Keys are the keys its table takes besides name and kind.
	Keys []Key
	// Columns are the runs.arrow columns of the kinds' own that its
	// instances' Record fills: columns of outputs.Columns with Applies
	// outputs.AppliesKinds, or a column a kind declares in NewColumns.
	// With NewColumns, the one statement of which kinds record a column
	// (KindsRecording, `run sweep --help`, the column's applies_to in the
	// tables; TestKindColumns checks Record against it).
	Columns []string
	// NewColumns are the columns of its own that runs.arrow does not have
	// otherwise: its Record fills them (outputs.RunRecord.KindValues), the
	// runs tables hold each after outputs.Columns, null in the rows of the
	// kinds that do not record it, and docs/instances.md documents each in
	// the kind's section. A name runs.arrow or curves.arrow already has
	// stops the program at start-up (kindColumns).
	NewColumns []NewColumn
	// Decode decodes and checks one table (name and kind removed): an
	// absent key takes its default, an explicit value is checked and never
	// replaced; dir resolves relative paths. It reads no data. An error
	// is a *KeyError naming the key within the table.
	Decode func(table map[string]any, dir string) (Instance, error)
}

// NewColumn is a runs.arrow column a kind declares of its own
// (Kind.NewColumns).
type NewColumn struct {
	Name string
	Unit string // "" for a dimensionless or categorical value
	// Type is its value type, one of outputs.KindTypes: its Record stores
	// an int64, float64, string or bool.
	Type string
	Doc  string // its meaning (the field's metadata)
}

// Key is one key of an [[instance]] table and its documentation.
type Key struct{ Key, Doc string }

// KeyError is an error of a table's key.
type KeyError struct{ Key, Msg string }

func (e *KeyError) Error() string { return e.Key + ": " + e.Msg }

// Instance is one [[instance]] table decoded and checked by its kind.
type Instance interface {
	// Kind returns the name of its kind.
	Kind() string
	// PerM reports whether its data depends on the number of silos M (a
	// partition per M): Load is then called once per M, else with m = 0.
	PerM() bool
	// CheckM returns an error if the instance cannot serve m silos.
	CheckM(m int) error
	// Load builds it for m silos, reading its data through env's loaders:
	// once per plan (and M), shared read-only by the plan's runs.
	Load(m int, env Env) (*Loaded, error)
	// ShareKey is equal for instances whose loaded documents are equal
	// (the same data split for other M), "" for none.
	ShareKey() string
	// Record fills the kind's columns of a runs.arrow row; l is the
	// instance as Load built it.
	Record(l *Loaded, rec *outputs.RunRecord)
}

// LinearInstance is an instance of a linear kind: it also sets the
// instance fields of a linear spec that need no data.
type LinearInstance interface {
	Instance
	// Settings sets the instance fields of a linear spec that need no
	// data (its kind, a synthetic instance's parameters); the loaded
	// instance's LinearData.Set sets them all.
	Settings(s *federate.Spec)
}

// Env holds the loaders of instance data. A zero Env reads the real data;
// tests replace a loader to count reads or to stand in for a dataset.
type Env struct {
	// BuildLTR builds a learning-to-rank instance (ltr.Build when nil).
	BuildLTR func(ltr.Options) (*federate.LTRData, error)
	// LoadDataset reads the documents of a prepared dataset, the feature
	// columns cols (ingest.Load when nil).
	LoadDataset func(dir string, cols []int) (*ingest.Dataset, error)
	// LoadDocuments reads a prepared dataset's documents in a feature set
	// with their labels, split across silos (ltr.LoadDocuments when nil):
	// what a data-backed linear kind computes its own means from.
	LoadDocuments func(ltr.DocOptions) (*ltr.Documents, error)
}

// Documents reads partitioned documents with env's loader.
func (e Env) Documents(o ltr.DocOptions) (*ltr.Documents, error) {
	if e.LoadDocuments != nil {
		return e.LoadDocuments(o)
	}
	return ltr.LoadDocuments(o)
}

// LTR builds a learning-to-rank instance with env's loader.
func (e Env) LTR(o ltr.Options) (*federate.LTRData, error) {
	if e.BuildLTR != nil {
		return e.BuildLTR(o)
	}
	return ltr.Build(o)
}

// Dataset reads a prepared dataset's documents with env's loader.
func (e Env) Dataset(dir string, cols []int) (*ingest.Dataset, error) {
	if e.LoadDataset != nil {
		return e.LoadDataset(dir, cols)
	}
	return ingest.Load(dir, cols)
}

// Loaded is an instance built for its runs: what plans, cost estimates and
// run ids need, and the family's own instance, shared read-only.
type Loaded struct {
	Hash    string  // content hash, part of every run id
	Name    string  // description
	Dim     int     // the learner's dimension
	Actions float64 // mean actions (arms, documents) per round: the cost models'
	Bytes   int64   // memory held by shared data
	// LoadBytes is the memory loading it holds beyond Bytes until it
	// returns (a dataset's columns as read, before they become the
	// instance): the process's peak includes it even after it is freed.
	LoadBytes int64
	// Value is the family's instance: mab.Instance (mab family),
	// bco.Instance (bco), *LinearData (linear). Runs read it, never
	// modify it.
	Value any
}

// LinearData is the Value of an instance of a linear kind.
type LinearData struct {
	// Set sets the instance fields (Instance, Synthetic, LTR) of a
	// linear spec.
	Set func(s *federate.Spec)
	// LTR is the shared learning-to-rank data (nil for other kinds), so
	// that instances split for other M share its documents.
	LTR *federate.LTRData
}

// Linear returns the linear family's view of a loaded instance (nil if it
// is not of a linear kind).
func (l *Loaded) Linear() *LinearData {
	v, _ := l.Value.(*LinearData)
	return v
}

// Load returns the spec's loaded instance: rs.Loaded (a plan's), else its
// table decoded by its kind and loaded with env (a library caller's run:
// its data is read for this run alone).
func (rs RunSpec) Load(env Env) (*Loaded, error) {
	if rs.Loaded != nil {
		return rs.Loaded, nil
	}
	table := map[string]any{"kind": rs.Instance}
	for key, v := range rs.Table {
		table[key] = v
	}
	in, err := DecodeInstance(table, rs.Dir)
	if err != nil {
		return nil, fmt.Errorf("instance: %w", err)
	}
	m := 0
	if in.PerM() {
		m = rs.M
	}
	return in.Load(m, env)
}

// loadedValue returns the Value of rs's loaded instance as the family's
// type T, or an error naming the kind and the type it gave.
func loadedValue[T any](rs RunSpec, family string) (T, error) {
	var zero T
	l, err := rs.Load(Env{})
	if err != nil {
		return zero, err
	}
	v, ok := l.Value.(T)
	if !ok {
		return zero, fmt.Errorf("instance kind %q gives the %s family a %T, want a %T", rs.Instance, family, l.Value, zero)
	}
	return v, nil
}

// kinds is the registry of instance kinds.
var kinds = []*Kind{syntheticKind, ltrKind, ltrClickKind, dubeyKind, mabKind, mabLTRKind, bcoKind, bcoLTRKind}

// KindsRecording returns the kinds that record runs.arrow column col (a
// column of the kinds' own), in registry order.
func KindsRecording(col string) []string {
	var n []string
	for _, k := range kinds {
		if slices.Contains(k.Records(), col) {
			n = append(n, k.Name)
		}
	}
	return n
}

// Records returns the names of the runs.arrow columns its Record fills:
// Columns, then NewColumns.
func (k *Kind) Records() []string {
	names := slices.Clone(k.Columns)
	for _, c := range k.NewColumns {
		names = append(names, c.Name)
	}
	return names
}

// The runs tables say which kinds record each column of the kinds' own,
// and hold the columns kinds declare (outputs.RegisterKindColumns): from
// the kinds registered when a table is written, so that a test's kind
// reaches them as a shipped one does. A bad declaration stops the
// program here (after family.go's init, which registers the curve
// metrics whose columns a kind column must not take; TestKindColumns
// checks again once every init has run).
func init() {
	if _, err := kindColumns(kinds); err != nil {
		panic("registry: " + err.Error())
	}
	outputs.RegisterKindColumns(func() []outputs.KindColumn {
		cols, _ := collectKindColumns(kinds)
		return cols
	})
}

// kindColumns returns the columns of the kinds' own that ks record, each
// with the kinds that record it (in ks's order), checked: a kind names a
// column once, one kind declares a new column (others list it in
// Columns), and outputs.CheckKindColumns (a name no table has, a type, a
// meaning). The error names the kind and the column.
func kindColumns(ks []*Kind) ([]outputs.KindColumn, error) {
	cols, err := collectKindColumns(ks)
	if err != nil {
		return nil, err
	}
	if err := outputs.CheckKindColumns(cols); err != nil {
		return nil, err
	}
	return cols, nil
}

// collectKindColumns is kindColumns without outputs' check: what the
// tables read at every write.
func collectKindColumns(ks []*Kind) ([]outputs.KindColumn, error) {
	var cols []outputs.KindColumn
	at, declared := map[string]int{}, map[string]string{}
	for _, k := range ks {
		names := k.Records()
		for j, name := range names {
			if slices.Index(names, name) != j {
				return nil, fmt.Errorf("kind %s: column %s named twice (Columns, NewColumns)", k.Name, name)
			}
			i, ok := at[name]
			if !ok {
				at[name], i = len(cols), len(cols)
				cols = append(cols, outputs.KindColumn{Name: name})
			}
			cols[i].Kinds = append(cols[i].Kinds, k.Name)
		}
		for _, c := range k.NewColumns {
			if by, ok := declared[c.Name]; ok {
				return nil, fmt.Errorf("kind %s: column %s declared again (kind %s declares it): one kind declares it, the others list it in Columns", k.Name, c.Name, by)
			}
			declared[c.Name] = k.Name
			kc := &cols[at[c.Name]]
			if c.Type == "" {
				return nil, fmt.Errorf("kind %s: column %s: no type, want one of %s", k.Name, c.Name, strings.Join(outputs.KindTypes, ", "))
			}
			kc.Type, kc.Unit, kc.Doc = c.Type, c.Unit, c.Doc
		}
	}
	return cols, nil
}

// Kinds returns the registered instance kinds.
func Kinds() []*Kind { return kinds }

// KindNames returns the registered kind names.
func KindNames() []string {
	n := make([]string, len(kinds))
	for i, k := range kinds {
		n[i] = k.Name
	}
	return n
}

// LookupKind returns the kind called name, or an error listing the kinds
// and proposing the nearest ("did you mean").
func LookupKind(name string) (*Kind, error) {
	for _, k := range kinds {
		if k.Name == name {
			return k, nil
		}
	}
	if name == "" {
		return nil, fmt.Errorf("missing: want one of %s", quoteList(KindNames()))
	}
	return nil, fmt.Errorf("unknown instance kind %q, want one of %s%s", name, quoteList(KindNames()), suggest.DidYouMean(name, KindNames()))
}

// DecodeInstance decodes one [[instance]] table by its kind (the table's
// "kind"); "name" is ignored here. A key the kind does not take is an
// error naming it.
func DecodeInstance(table map[string]any, dir string) (Instance, error) {
	name, _ := table["kind"].(string)
	k, err := LookupKind(name)
	if err != nil {
		return nil, &KeyError{Key: "kind", Msg: err.Error()}
	}
	rest := map[string]any{}
	for key, v := range table {
		if key == "name" || key == "kind" {
			continue
		}
		if !slices.ContainsFunc(k.Keys, func(kk Key) bool { return kk.Key == key }) {
			return nil, &KeyError{Key: key, Msg: fmt.Sprintf("not a key of kind %q (its keys: %s)%s", k.Name, strings.Join(keyNames(k.Keys), ", "), suggest.DidYouMean(key, keyNames(k.Keys)))}
		}
		rest[key] = v
	}
	return k.Decode(rest, dir)
}

func keyNames(keys []Key) []string {
	n := make([]string, len(keys))
	for i, k := range keys {
		n[i] = k.Key
	}
	return n
}

// decodeTable decodes a generic TOML table into dst (a struct with toml
// tags) and returns which keys it set.
func decodeTable(table map[string]any, dst any) (set func(key string) bool, err error) {
	if err := checkTypes(table, dst); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(table); err != nil {
		return nil, err
	}
	md, err := toml.NewDecoder(&b).Decode(dst)
	if err != nil {
		return nil, err
	}
	return func(key string) bool { return md.IsDefined(key) }, nil
}
