package outputs

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// A codec stores one Go field type in the tables: as an Arrow column
// (appender, reader) and as a string in a per-run file's metadata (format,
// parse; parse inverts format exactly). codecs holds one entry per field
// type; every table (runs.arrow, curves.arrow, audit.arrow, the per-run
// files) goes through it, so a new field type is one new entry.
type codec struct {
	// typ is the Arrow type of the column. It is nil for a field whose
	// column type depends on the rows (a parameter map: a struct of the
	// keys the rows use); rowsType and fits then say which.
	typ      arrow.DataType
	rowsType func(ps []any) arrow.DataType
	fits     func(t arrow.DataType) bool
	// docType names the type in README.md (Column.TypeName).
	docType string
	// appender binds a column's builder once and returns the function
	// that appends one value (p points to it); reader binds a column and
	// returns the function that stores its row k into p.
	appender func(b array.Builder) func(p any)
	reader   func(col arrow.Array) func(p any, k int)
	format   func(p any) (string, error)
	parse    func(p any, s string) error
}

// codecs maps a field pointer type (*string, *int, ...) to its codec.
var codecs = map[reflect.Type]codec{
	reflect.TypeFor[*string](): scalar(tString, (*array.StringBuilder).Append, (*array.String).Value,
		func(v string) string { return v }, func(s string) (string, error) { return s, nil }),
	reflect.TypeFor[*int](): scalar(tInt,
		func(b *array.Int64Builder, v int) { b.Append(int64(v)) },
		func(a *array.Int64, k int) int { return int(a.Value(k)) },
		strconv.Itoa, strconv.Atoi),
	reflect.TypeFor[*int64](): scalar(tInt, (*array.Int64Builder).Append, (*array.Int64).Value,
		func(v int64) string { return strconv.FormatInt(v, 10) },
		func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }),
	reflect.TypeFor[*uint64](): scalar(tUint, (*array.Uint64Builder).Append, (*array.Uint64).Value,
		func(v uint64) string { return strconv.FormatUint(v, 10) },
		func(s string) (uint64, error) { return strconv.ParseUint(s, 10, 64) }),
	reflect.TypeFor[*float64](): scalar(tFloat, (*array.Float64Builder).Append, (*array.Float64).Value,
		formatFloat, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }),
	reflect.TypeFor[*bool](): scalar(tBool, (*array.BooleanBuilder).Append, (*array.Boolean).Value,
		strconv.FormatBool, strconv.ParseBool),
	reflect.TypeFor[*[]float64]():          scalar(tFloats, appendFloats, readFloats, formatFloats, parseFloats),
	reflect.TypeFor[*map[string]float64](): paramsCodec,
}

// codecOf returns the codec of a field pointer; a field type without one
// is a programming error.
func codecOf(p any) codec {
	c, ok := codecs[reflect.TypeOf(p)]
	if !ok {
		panic(fmt.Sprintf("outputs: unsupported field type %T", p))
	}
	return c
}

// scalar is the codec of a field type T held in a column of fixed Arrow
// type typ, built with B and read from A.
func scalar[T any, B array.Builder, A arrow.Array](typ arrow.DataType, app func(B, T), get func(A, int) T,
	format func(T) string, parse func(string) (T, error)) codec {
	return codec{
		typ:     typ,
		fits:    func(t arrow.DataType) bool { return arrow.TypeEqual(t, typ) },
		docType: typeName(typ),
		appender: func(b array.Builder) func(p any) {
			bb := b.(B)
			return func(p any) { app(bb, *p.(*T)) }
		},
		reader: func(col arrow.Array) func(p any, k int) {
			a := col.(A)
			return func(p any, k int) { *p.(*T) = get(a, k) }
		},
		format: func(p any) (string, error) { return format(*p.(*T)), nil },
		parse: func(p any, s string) error {
			v, err := parse(s)
			if err == nil {
				*p.(*T) = v
			}
			return err
		},
	}
}

// formatFloat is the shortest representation that parses back exactly.
func formatFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func appendFloats(b *array.ListBuilder, v []float64) {
	b.Append(true)
	b.ValueBuilder().(*array.Float64Builder).AppendValues(v, nil)
}

func readFloats(l *array.List, k int) []float64 {
	lo, hi := l.ValueOffsets(k)
	vals := l.ListValues().(*array.Float64)
	v := make([]float64, 0, hi-lo)
	for i := lo; i < hi; i++ {
		v = append(v, vals.Value(int(i)))
	}
	return v
}

func formatFloats(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = formatFloat(x)
	}
	return strings.Join(s, ",")
}

func parseFloats(s string) ([]float64, error) {
	v := []float64{}
	if s == "" {
		return v, nil
	}
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, err
		}
		v = append(v, x)
	}
	return v, nil
}

// paramsCodec stores a parameter map (RunRecord.Params) as a struct column
// with one nullable float64 field per key used by any row, in sorted key
// order: a notebook unnests it into one typed column per parameter, null
// where a run's algorithm has no such parameter. A nil map (parameters not
// recorded) is a null row; an empty map a row whose fields are all null.
// In a per-run file's metadata it is "key=value,..." in key order
// (values as formatFloat writes them, so NaN and infinities round-trip),
// "" for an empty map and "null" for nil.
var paramsCodec = codec{
	rowsType: func(ps []any) arrow.DataType {
		var keys []string
		for _, p := range ps {
			for k := range *p.(*map[string]float64) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		keys = slices.Compact(keys)
		fs := make([]arrow.Field, len(keys))
		for i, k := range keys {
			fs[i] = arrow.Field{Name: k, Type: tFloat, Nullable: true}
		}
		return arrow.StructOf(fs...)
	},
	fits: func(t arrow.DataType) bool {
		st, ok := t.(*arrow.StructType)
		if !ok {
			return false
		}
		for i, f := range st.Fields() {
			if !arrow.TypeEqual(f.Type, tFloat) || i > 0 && st.Field(i-1).Name >= f.Name {
				return false
			}
		}
		return true
	},
	docType: "struct<float64>",
	appender: func(b array.Builder) func(p any) {
		sb := b.(*array.StructBuilder)
		st := sb.Type().(*arrow.StructType)
		fbs := make([]*array.Float64Builder, st.NumFields())
		for i := range fbs {
			fbs[i] = sb.FieldBuilder(i).(*array.Float64Builder)
		}
		return func(p any) {
			m := *p.(*map[string]float64)
			if m == nil {
				sb.AppendNull()
				return
			}
			sb.Append(true)
			for i, f := range st.Fields() {
				if v, ok := m[f.Name]; ok {
					fbs[i].Append(v)
				} else {
					fbs[i].AppendNull()
				}
			}
		}
	},
	reader: func(col arrow.Array) func(p any, k int) {
		s := col.(*array.Struct)
		st := s.DataType().(*arrow.StructType)
		return func(p any, k int) {
			if s.IsNull(k) {
				*p.(*map[string]float64) = nil
				return
			}
			m := map[string]float64{}
			for i, f := range st.Fields() {
				if v := s.Field(i).(*array.Float64); v.IsValid(k) {
					m[f.Name] = v.Value(k)
				}
			}
			*p.(*map[string]float64) = m
		}
	},
	format: func(p any) (string, error) {
		m := *p.(*map[string]float64)
		if m == nil {
			return "null", nil
		}
		kv := make([]string, 0, len(m))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if k == "" || strings.ContainsAny(k, "=,") || k == "null" {
				return "", fmt.Errorf("parameter key %q: want a non-empty name without '=' or ','", k)
			}
			kv = append(kv, k+"="+formatFloat(m[k]))
		}
		return strings.Join(kv, ","), nil
	},
	parse: func(p any, s string) error {
		if s == "null" {
			*p.(*map[string]float64) = nil
			return nil
		}
		m := map[string]float64{}
		if s != "" {
			for _, kv := range strings.Split(s, ",") {
				k, v, ok := strings.Cut(kv, "=")
				x, err := strconv.ParseFloat(v, 64)
				if !ok || k == "" || err != nil {
					return fmt.Errorf("parameter %q: want key=value", kv)
				}
				if _, dup := m[k]; dup {
					return fmt.Errorf("parameter %s given twice", k)
				}
				m[k] = x
			}
		}
		*p.(*map[string]float64) = m
		return nil
	},
}

// columnType is the Arrow type of a column holding the values ps (pointers
// to one field of every row).
func columnType(c codec, ps []any) arrow.DataType {
	if c.typ != nil {
		return c.typ
	}
	return c.rowsType(ps)
}
