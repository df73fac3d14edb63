package registry

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/fedbandit/fedbandit/federate"
	"github.com/fedbandit/fedbandit/ltr"
	"github.com/fedbandit/fedbandit/outputs"
)

// Kind is an instance kind: the keys its [[instance]] table takes, how a
// table of them is decoded and checked, and the data it loads. Everything
// specific to a kind lives in its own file (kind_synthetic.go,
// kind_ltr.go); the runner asks through this type.
type Kind struct {
	Name    string
	Family  string
	Summary string
	// Keys are the keys its table takes besides name and kind.
	Keys []Key
	// Decode decodes and checks one table (name and kind removed): an
	// absent key takes its default, an explicit value is checked and never
	// replaced; dir resolves relative paths. An error is a *KeyError
	// naming the key within the table.
	Decode func(table map[string]any, dir string) (Instance, error)
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
	// Load builds it for m silos; env gives the loaders.
	Load(m int, env Env) (*Loaded, error)
	// ShareKey is equal for instances whose loaded documents are equal
	// (the same data split for other M), "" for none.
	ShareKey() string
	// Record fills the kind's columns of a runs.arrow row.
	Record(rec *outputs.RunRecord)
	// Settings sets the instance fields of a linear spec that need no
	// data (its kind, a synthetic instance's parameters); Loaded.Linear
	// sets them all.
	Settings(s *federate.Spec)
}

// Env holds the loaders of instance data (replaced by tests).
type Env struct {
	// BuildLTR builds a learning-to-rank instance (ltr.Build when nil).
	BuildLTR func(ltr.Options) (*federate.LTRData, error)
}

// Loaded is an instance built for its runs: what plans, cost estimates and
// run ids need, and the instance part of a linear spec.
type Loaded struct {
	Hash    string  // content hash, part of every run id
	Name    string  // description
	Dim     int     // the learner's dimension
	Actions float64 // mean actions per round (the cost model's)
	Bytes   int64   // memory held by shared data
	// Linear sets the instance fields (Instance, Synthetic, LTR) of a
	// linear spec.
	Linear func(s *federate.Spec)
	// LTR is the shared learning-to-rank data (nil for other kinds), so
	// that instances split for other M share its documents.
	LTR *federate.LTRData
}

// kinds is the registry of instance kinds.
var kinds = []*Kind{syntheticKind, ltrKind, mabKind, bcoKind}

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

// LookupKind returns the kind called name, or an error listing the kinds.
func LookupKind(name string) (*Kind, error) {
	for _, k := range kinds {
		if k.Name == name {
			return k, nil
		}
	}
	if name == "" {
		return nil, fmt.Errorf("missing: want one of %s", quoteList(KindNames()))
	}
	return nil, fmt.Errorf("unknown instance kind %q, want one of %s", name, quoteList(KindNames()))
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
			return nil, &KeyError{Key: key, Msg: fmt.Sprintf("not a key of kind %q (its keys: %s)", k.Name, strings.Join(keyNames(k.Keys), ", "))}
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
