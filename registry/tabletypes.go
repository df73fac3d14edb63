package registry

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// checkTypes checks every value of a decoded [[instance]] table against
// the field of dst (a struct with toml tags) it fills, so that a value of
// the wrong type is an error naming its key and value ("arms: \"4\":
// want an integer"). decodeTable decodes a re-encoding of the table,
// whose line numbers are not the sweep file's (attack round 3, U4).
func checkTypes(table map[string]any, dst any) error {
	t := reflect.TypeOf(dst)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for i := range t.NumField() {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		v, ok := table[key]
		if key == "" || !ok {
			continue
		}
		if want := typeMismatch(f.Type, v); want != "" {
			if x, isFloat := v.(float64); isFloat && want == "an integer" && x == math.Trunc(x) {
				want += " (no decimal point)" // R4-20: "4.0: want an integer"
			}
			return &KeyError{Key: key, Msg: fmt.Sprintf("%s: want %s", showValue(v), want)}
		}
	}
	return nil
}

// typeMismatch returns what a field of type t wants ("an integer") when v
// (a value of a TOML table decoded into a map) cannot fill it, "" when it
// can: TOML integers fill integer and float fields, floats only float
// fields.
func typeMismatch(t reflect.Type, v any) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint64, reflect.Uint32, reflect.Uint:
		switch v.(type) {
		case int64, int: // TOML decodes int64; a Go caller may pass int
		default:
			return "an integer"
		}
	case reflect.Float64, reflect.Float32:
		switch v.(type) {
		case int64, int, float64:
		default:
			return "a number"
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			return "a string"
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return "true or false"
		}
	case reflect.Slice:
		l, ok := v.([]any)
		if !ok {
			return "a list of " + strings.TrimPrefix(strings.TrimPrefix(typeMismatch(t.Elem(), struct{}{}), "an "), "a ") + "s"
		}
		for _, x := range l {
			if w := typeMismatch(t.Elem(), x); w != "" {
				return "a list of " + strings.TrimPrefix(strings.TrimPrefix(w, "an "), "a ") + "s"
			}
		}
	}
	return ""
}

// showValue shows a table's value as the sweep file would spell it.
func showValue(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case []any:
		s := make([]string, len(x))
		for i, e := range x {
			s[i] = showValue(e)
		}
		return "[" + strings.Join(s, ", ") + "]"
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e21 {
			return strconv.FormatFloat(x, 'f', 1, 64) // a float the file spells 4.0, not 4
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// tableError is decodeTable's error as a *KeyError: checkTypes' names its
// key; any other is the table's.
func tableError(err error) *KeyError {
	if ke, ok := err.(*KeyError); ok {
		return ke
	}
	return &KeyError{Msg: err.Error()}
}
