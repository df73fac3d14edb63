package outputs

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// This file holds the runs.arrow columns of the instance kinds' own
// (README.md, "runs.arrow"): which kinds record each one, and the columns
// a kind declares that Columns lacks. Package registry, which owns the
// kinds, registers them (RegisterKindColumns); nothing here names a kind.

// KindColumn is a runs.arrow column of the instance kinds' own, as the
// registry declares it: its name and the kinds that record it, and for a
// column a kind declares that Columns lacks (a new column) its type, unit
// and meaning.
type KindColumn struct {
	Name string
	// Kinds are the kinds whose Record fills it, in registry order: the
	// column's applies-to.
	Kinds []string
	// Type is a new column's value type, one of KindTypes; "" for a
	// column of Columns (Applies AppliesKinds), which has its own.
	Type string
	Unit string // a new column's unit ("" for a dimensionless one)
	Doc  string // a new column's meaning
}

// KindTypes are the value types a new kind column may hold (Arrow int64,
// float64, string and bool; RunRecord.KindValues holds them as int64,
// float64, string and bool).
var KindTypes = []string{"float64", "int64", "string", "bool"}

// kindColumns is what RegisterKindColumns recorded.
var kindColumns struct {
	sync.Mutex
	of func() []KindColumn
}

// RegisterKindColumns records where the kinds' columns come from: of
// returns them, as the registry's kinds declare them at the time of the
// call (a test that adds a kind adds its columns). Every runs table then
// says which kinds record each column of Columns with Applies
// AppliesKinds (its applies_to), and holds every new column (after
// Columns, sorted by name, null in the rows of the kinds that do not
// record it). Package registry calls it once at start-up; the columns are
// checked then (CheckKindColumns), and a bad declaration stops the
// program. A second registration is a programming error.
func RegisterKindColumns(of func() []KindColumn) {
	kindColumns.Lock()
	defer kindColumns.Unlock()
	if kindColumns.of != nil {
		panic("outputs: RegisterKindColumns called twice")
	}
	if err := CheckKindColumns(of()); err != nil {
		panic("outputs: " + err.Error())
	}
	kindColumns.of = of
}

// registeredKindColumns returns the registered kind columns (nil before
// RegisterKindColumns).
func registeredKindColumns() []KindColumn {
	kindColumns.Lock()
	of := kindColumns.of
	kindColumns.Unlock()
	if of == nil {
		return nil
	}
	return of()
}

// CheckKindColumns checks kind columns as declared: a column of Columns
// must be one of the kinds' own (Applies AppliesKinds) and takes no type,
// unit or meaning; a new column needs a name of letters, digits and _
// that no table of a results directory uses (a column of runs.arrow or
// curves.arrow, a name an older layout gave one, or the param_ prefix),
// a type of KindTypes and a meaning; every column is recorded by a kind,
// and no column is given twice. The error names the column and its kinds.
func CheckKindColumns(cols []KindColumn) error {
	seen := map[string]bool{}
	for _, kc := range cols {
		by := strings.Join(kc.Kinds, ", ")
		if seen[kc.Name] {
			return fmt.Errorf("kind column %s (kinds %s): given twice", kc.Name, by)
		}
		seen[kc.Name] = true
		if len(kc.Kinds) == 0 {
			return fmt.Errorf("kind column %s: recorded by no kind", kc.Name)
		}
		if i := slices.IndexFunc(Columns, func(c Column[RunRecord]) bool { return c.Name == kc.Name }); i >= 0 {
			switch {
			case Columns[i].Applies != AppliesKinds:
				return fmt.Errorf("kind column %s (kinds %s): runs.arrow's column %s applies to %q, not to the kinds that declare it", kc.Name, by, kc.Name, Columns[i].Applies)
			case kc.Type != "" || kc.Unit != "" || kc.Doc != "":
				return fmt.Errorf("kind column %s (kinds %s): declared as a new column, but runs.arrow already has a column %s", kc.Name, by, kc.Name)
			}
			continue
		}
		if taken := takenName(kc.Name); taken != "" {
			return fmt.Errorf("kind column %s (kinds %s): %s", kc.Name, by, taken)
		}
		switch {
		case kc.Type == "":
			return fmt.Errorf("kind column %s (kinds %s): not a column of runs.arrow, and declared by no kind as a new one (its type)", kc.Name, by)
		case !slices.Contains(KindTypes, kc.Type):
			return fmt.Errorf("kind column %s (kinds %s): type %q, want one of %s", kc.Name, by, kc.Type, strings.Join(KindTypes, ", "))
		case kc.Doc == "":
			return fmt.Errorf("kind column %s (kinds %s): no meaning (Doc)", kc.Name, by)
		}
	}
	return nil
}

// takenName says why name cannot be a new runs.arrow column ("" when it
// can): the form of a column name, the param_<key> columns, the columns
// of curves.arrow (which shares only run_id with runs.arrow) and the
// names older layouts gave columns (read in per-run files of theirs).
func takenName(name string) string {
	switch {
	case !paramKey.MatchString(name):
		return "want letters, digits and _"
	case strings.HasPrefix(name, ParamPrefix):
		return "the prefix " + ParamPrefix + " is the algorithms' parameters'"
	case slices.ContainsFunc(CurveColumns(), func(c Column[CurvePoint]) bool { return c.Name == name }):
		return "a column of curves.arrow (runs.arrow shares only run_id with it)"
	case slices.Contains(legacyColumns, name):
		return "a column name of layout 2"
	}
	for _, old := range layout3Names {
		if old == name {
			return "a column name of layout 3"
		}
	}
	return ""
}

// kindApplies is the applies-to of a kind column recorded by kinds.
func kindApplies(kinds []string) string {
	return "instance kinds " + strings.Join(kinds, ", ")
}

// newKindColumn is the column of a new kind column kc, held in
// RunRecord.KindValues.
func newKindColumn(kc KindColumn) Column[RunRecord] {
	switch kc.Type {
	case "float64":
		return kindValue[float64](kc)
	case "int64":
		return kindValue[int64](kc)
	case "bool":
		return kindValue[bool](kc)
	default:
		return kindValue[string](kc)
	}
}

func kindValue[T any](kc KindColumn) Column[RunRecord] {
	name := kc.Name
	return withCodec(Column[RunRecord]{Name: name, Unit: kc.Unit, Applies: kindApplies(kc.Kinds), Doc: kc.Doc,
		get: func(r *RunRecord) any {
			v, ok := r.KindValues[name].(T)
			if !ok {
				return (*T)(nil)
			}
			return &v
		},
		set: func(r *RunRecord, v any) {
			if r.KindValues == nil {
				r.KindValues = map[string]any{}
			}
			r.KindValues[name] = *v.(*T)
		}})
}

// kindTables are the registered kind columns as runs tables use them:
// the applies-to of the columns of Columns by name, and the new columns
// by name.
func kindTables() (applies map[string]string, added map[string]KindColumn) {
	applies, added = map[string]string{}, map[string]KindColumn{}
	for _, kc := range registeredKindColumns() {
		if kc.Type == "" {
			applies[kc.Name] = kindApplies(kc.Kinds)
		} else {
			added[kc.Name] = kc
		}
	}
	return applies, added
}

// checkKindValues refuses a value of a kind column that is not
// registered, or of another type than its declaration (the kind's Record
// is wrong): it would not reach the tables.
func (r *RunRecord) checkKindValues(added map[string]KindColumn) error {
	for _, name := range slices.Sorted(maps.Keys(r.KindValues)) {
		kc, ok := added[name]
		if !ok {
			return fmt.Errorf("run %s: column %s: not a column a kind declares (outputs.RegisterKindColumns)", r.RunID, name)
		}
		if got := fmt.Sprintf("%T", r.KindValues[name]); got != kc.Type {
			return fmt.Errorf("run %s: column %s: a %s value, declared %s (kinds %s)", r.RunID, name, got, kc.Type, strings.Join(kc.Kinds, ", "))
		}
	}
	return nil
}

// checkKindValues is RunRecord.checkKindValues on every record.
func checkKindValues(recs []RunRecord) error {
	_, added := kindTables()
	for i := range recs {
		if len(recs[i].KindValues) > 0 {
			if err := recs[i].checkKindValues(added); err != nil {
				return err
			}
		}
	}
	return nil
}
