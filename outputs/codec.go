package outputs

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// A codec stores one Go value type T in the tables: as an Arrow column
// (appender, reader) and as a string in a per-run file's metadata (format,
// parse; parse inverts format exactly). Values travel as *T; a nil *T (and
// for strings "", for lists a nil slice) is a null. codecs holds one entry
// per value type, and every table (runs.arrow, curves.arrow, audit.arrow,
// the per-run files, and any other writer walking Columns) goes through
// it: a new value type is one new entry.
type codec struct {
	typ arrow.DataType
	// fits reports whether a column of type t can be read by this codec
	// (the current type, or the type an older layout wrote).
	fits func(t arrow.DataType) bool
	// docType names the type in README.md (Column.TypeName).
	docType string
	// null reports whether p (a *T) is a null value.
	null func(p any) bool
	// appender binds a column's builder once and returns the function
	// that appends one value (p is a *T; null appends a null).
	appender func(b array.Builder) func(p any)
	// reader binds a column and returns the function that reads its
	// (non-null) row k as a new *T, or an error naming the value.
	reader func(col arrow.Array) func(k int) (any, error)
	format func(p any) string
	parse  func(s string) (any, error)
	// check refuses a value the column cannot hold (nil: every value).
	check func(p any) error
}

// codecs maps a value type (string, int, ...) to its codec.
var codecs = map[reflect.Type]codec{
	reflect.TypeFor[string](): scalar(tString, (*array.StringBuilder).Append, (*array.String).Value,
		func(v string) string { return v }, func(s string) (string, error) { return s, nil },
		func(v string) bool { return v == "" }),
	reflect.TypeFor[int](): scalar(tInt,
		func(b *array.Int64Builder, v int) { b.Append(int64(v)) },
		func(a *array.Int64, k int) int { return int(a.Value(k)) },
		strconv.Itoa, strconv.Atoi, nil),
	reflect.TypeFor[int64](): scalar(tInt, (*array.Int64Builder).Append, (*array.Int64).Value,
		func(v int64) string { return strconv.FormatInt(v, 10) },
		func(s string) (int64, error) { return strconv.ParseInt(s, 10, 64) }, nil),
	reflect.TypeFor[uint64](): seedCodec,
	reflect.TypeFor[float64](): scalar(tFloat, (*array.Float64Builder).Append, (*array.Float64).Value,
		formatFloat, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }, nil),
	reflect.TypeFor[bool](): scalar(tBool, (*array.BooleanBuilder).Append, (*array.Boolean).Value,
		strconv.FormatBool, strconv.ParseBool, nil),
	reflect.TypeFor[[]float64](): scalar(tFloats, appendFloats, readFloats, formatFloats, parseFloats,
		func(v []float64) bool { return v == nil }),
}

// codecFor returns the codec of a value pointer (*T); a type without one
// is a programming error.
func codecFor(p any) codec {
	t := reflect.TypeOf(p)
	if t == nil || t.Kind() != reflect.Pointer {
		panic(fmt.Sprintf("outputs: want a value pointer, got %T", p))
	}
	c, ok := codecs[t.Elem()]
	if !ok {
		panic(fmt.Sprintf("outputs: unsupported value type %T", p))
	}
	return c
}

// scalar is the codec of a value type T held in a column of Arrow type
// typ, built with B and read from A; empty (nil for none) says which
// non-nil values are also null.
func scalar[T any, B array.Builder, A arrow.Array](typ arrow.DataType, app func(B, T), get func(A, int) T,
	format func(T) string, parse func(string) (T, error), empty func(T) bool) codec {
	null := func(p any) bool {
		v := p.(*T)
		return v == nil || empty != nil && empty(*v)
	}
	return codec{
		typ:     typ,
		fits:    func(t arrow.DataType) bool { return arrow.TypeEqual(t, typ) },
		docType: typeName(typ),
		null:    null,
		appender: func(b array.Builder) func(p any) {
			bb := b.(B)
			return func(p any) {
				if null(p) {
					bb.AppendNull()
					return
				}
				app(bb, *p.(*T))
			}
		},
		reader: func(col arrow.Array) func(k int) (any, error) {
			a := col.(A)
			return func(k int) (any, error) { v := get(a, k); return &v, nil }
		},
		format: func(p any) string { return format(*p.(*T)) },
		parse: func(s string) (any, error) {
			v, err := parse(s)
			if err != nil {
				return nil, err
			}
			return &v, nil
		},
	}
}

// seedCodec stores a uint64 (a seed) as an int64 column: no reader has to
// cope with unsigned arithmetic (seed - 2 wraps in pandas, fails in
// DuckDB). Seeds above 2^63 - 1 cannot be written (sweep files take int64
// seeds); an older layout's uint64 column is still read.
var seedCodec = func() codec {
	c := scalar(tInt,
		func(b *array.Int64Builder, v uint64) { b.Append(int64(v)) },
		func(a *array.Int64, k int) uint64 { return uint64(a.Value(k)) },
		func(v uint64) string { return strconv.FormatUint(v, 10) },
		func(s string) (uint64, error) { return strconv.ParseUint(s, 10, 64) }, nil)
	c.check = func(p any) error {
		if v := p.(*uint64); v != nil && *v > math.MaxInt64 {
			return fmt.Errorf("seed %d above the int64 range", *v)
		}
		return nil
	}
	c.fits = func(t arrow.DataType) bool {
		return arrow.TypeEqual(t, tInt) || arrow.TypeEqual(t, arrow.PrimitiveTypes.Uint64)
	}
	c.reader = func(col arrow.Array) func(k int) (any, error) {
		switch a := col.(type) {
		case *array.Uint64:
			return func(k int) (any, error) { v := a.Value(k); return &v, nil }
		case *array.Int64:
			return func(k int) (any, error) {
				if a.Value(k) < 0 {
					return nil, fmt.Errorf("seed %d is negative", a.Value(k))
				}
				v := uint64(a.Value(k))
				return &v, nil
			}
		}
		panic("outputs: seed column of type " + col.DataType().String())
	}
	return c
}()

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

var (
	tString = arrow.BinaryTypes.String
	tInt    = arrow.PrimitiveTypes.Int64
	tFloat  = arrow.PrimitiveTypes.Float64
	tBool   = arrow.FixedWidthTypes.Boolean
	tFloats = arrow.ListOf(arrow.PrimitiveTypes.Float64)
)

// typeName is the short name of a column type used in README.md: string,
// int64, float64, bool or list<float64>.
func typeName(t arrow.DataType) string {
	switch t.ID() {
	case arrow.STRING:
		return "string"
	case arrow.BOOL:
		return "bool"
	case arrow.LIST:
		return "list<" + t.(*arrow.ListType).Elem().String() + ">"
	}
	return t.String()
}
