package ingest

import (
	"reflect"
	"testing"
)

// TestParseKV pins parseKV on the four spellings of a pair ("k = v", "k=v",
// "k =v", "k= v") and on every way a comment stops being a sequence of
// pairs: a key or "=" left hanging at the end (each of which indexed past
// the fields when a bound was off by one), a value holding or starting with
// "=", an empty comment.
func TestParseKV(t *testing.T) {
	type kv = [2]string
	cases := []struct {
		in   string
		want []kv // nil: not a sequence of pairs
	}{
		{"docid = GX008-86-4444840 inc = 1 prob = 0.086622",
			[]kv{{"docid", "GX008-86-4444840"}, {"inc", "1"}, {"prob", "0.086622"}}},
		{"a=1 b= 2 c =3 d = 4", []kv{{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}}},
		{"a=1", []kv{{"a", "1"}}},
		{"a= 1", []kv{{"a", "1"}}},
		{"a =1", []kv{{"a", "1"}}},
		{"a = 1", []kv{{"a", "1"}}},
		{"", nil},
		{"   ", nil},
		{"a", nil},         // a key alone
		{"a = 1 b", nil},   // a key alone at the end
		{"a = 1 b =", nil}, // "=" at the end
		{"a = 1 b=", nil},  // "k=" at the end
		{"a = 1 b c", nil}, // a key followed by neither "=" nor "=v"
		{"a = =b", nil},    // a value starting with "="
		{"a = b=c", nil},   // a value holding "="
		{"a=b=c", nil},     // a value holding "=" in one token
		{"=1", nil},        // no key
		{"= 1", nil},       // no key
		{"1a = 2", nil},    // not an identifier
		{"a-b = 2", nil},   // not an identifier
		{"a = 1 = 2", nil}, // a stray "="
		{"_x = y", []kv{{"_x", "y"}}},
	}
	for _, c := range cases {
		got, ok := parseKV([]byte(c.in), nil)
		if ok != (c.want != nil) {
			t.Errorf("parseKV(%q): ok = %v, want %v", c.in, ok, c.want != nil)
			continue
		}
		if !ok {
			continue
		}
		var pairs []kv
		for _, p := range got {
			pairs = append(pairs, kv{string(p.key), string(p.val)})
		}
		if !reflect.DeepEqual(pairs, c.want) {
			t.Errorf("parseKV(%q) = %q, want %q", c.in, pairs, c.want)
		}
	}
}

// TestIsIdent checks each character class at both ends of its range and
// the neighbours just outside it, and that a digit may not come first.
func TestIsIdent(t *testing.T) {
	yes := []string{"a", "z", "A", "Z", "_", "_0", "a0", "a9", "docid", "Prob_2"}
	no := []string{"", "0", "9", "0a", "9a", "`", "{", "@", "[", "a/", "a:", "a-b", "a.b", "é"}
	for _, s := range yes {
		if !isIdent([]byte(s)) {
			t.Errorf("isIdent(%q) = false, want true", s)
		}
	}
	for _, s := range no {
		if isIdent([]byte(s)) {
			t.Errorf("isIdent(%q) = true, want false", s)
		}
	}
}

// TestReservedColumn checks that a comment key can take no name of the
// fixed columns, f1 ... fK included, while "f" alone and "f" followed by a
// non-number remain free.
func TestReservedColumn(t *testing.T) {
	for _, s := range []string{"qid", "doc", "label", "part", "comment", "f1", "f0", "f136", "f07"} {
		if !reservedColumn(s) {
			t.Errorf("reservedColumn(%q) = false, want true", s)
		}
	}
	for _, s := range []string{"f", "fx", "f1x", "g1", "docid", "inc", "prob", "F1"} {
		if reservedColumn(s) {
			t.Errorf("reservedColumn(%q) = true, want false", s)
		}
	}
}

// TestDetectCommentSchema checks the three outcomes: typed key columns, one
// raw column (a comment that is not pairs, repeats a key, or names a
// reserved column), and none.
func TestDetectCommentSchema(t *testing.T) {
	cases := []struct {
		in   string
		want commentSchema
	}{
		{"", commentSchema{}},
		{"docid = GX1 inc = 1 prob = x", commentSchema{keys: []string{"docid", "inc", "prob"}, numeric: []bool{false, true, false}}},
		{"docid = 12 nan = NaN inf = +Inf", commentSchema{keys: []string{"docid", "nan", "inf"}, numeric: []bool{false, false, false}}},
		{"   ", commentSchema{raw: true}},
		{"free text", commentSchema{raw: true}},
		{"a = 1 a = 2", commentSchema{raw: true}},
		{"f1 = 3", commentSchema{raw: true}},
		{"qid = 3", commentSchema{raw: true}},
	}
	for _, c := range cases {
		got := detectCommentSchema([]byte(c.in))
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("detectCommentSchema(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}
