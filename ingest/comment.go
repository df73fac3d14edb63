package ingest

import (
	"bytes"
	"math"
	"strconv"
)

// commentKV is one "key = value" pair of a LETOR comment.
type commentKV struct {
	key, val []byte
}

// parseKV splits a LETOR 4.0 comment such as
// "docid = GX008-86-4444840 inc = 1 prob = 0.086622" into pairs. It accepts
// "k = v", "k=v", "k =v" and "k= v". ok is false when the comment is not a
// sequence of such pairs.
func parseKV(c []byte, dst []commentKV) ([]commentKV, bool) {
	dst = dst[:0]
	f := bytes.Fields(c)
	for i := 0; i < len(f); {
		tok := f[i]
		var key, val []byte
		if k := bytes.IndexByte(tok, '='); k >= 0 {
			key = tok[:k]
			if k+1 < len(tok) {
				val = tok[k+1:]
				i++
			} else {
				if i+1 >= len(f) {
					return dst, false
				}
				val = f[i+1]
				i += 2
			}
		} else {
			key = tok
			if i+1 >= len(f) {
				return dst, false
			}
			nx := f[i+1]
			switch {
			case len(nx) == 1 && nx[0] == '=':
				if i+2 >= len(f) {
					return dst, false
				}
				val = f[i+2]
				i += 3
			case nx[0] == '=':
				val = nx[1:]
				i += 2
			default:
				return dst, false
			}
		}
		if !isIdent(key) || len(val) == 0 || bytes.IndexByte(val, '=') >= 0 {
			return dst, false
		}
		dst = append(dst, commentKV{key, val})
	}
	return dst, len(dst) > 0
}

// isIdent reports whether b is a simple identifier usable as a column name.
func isIdent(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for i, c := range b {
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// commentSchema says which columns the comments of a dataset become. It is
// decided from the first data line: no comment there means comments are
// ignored (and counted); a LETOR "key = value" comment gives one typed
// column per key (docid a string, every other key a float64 when its first
// value is numeric, else a string); any other comment gives one string
// column "comment" with the raw text.
type commentSchema struct {
	raw     bool     // one string column "comment"
	keys    []string // typed key columns, in comment order
	numeric []bool   // per key: float64 (true) or string (false)
}

// columns returns the comment column names.
func (s *commentSchema) columns() []string {
	if s.raw {
		return []string{"comment"}
	}
	return s.keys
}

// reserved column names a comment key may not take.
func reservedColumn(name string) bool {
	switch name {
	case "qid", "doc", "label", "part", "comment":
		return true
	}
	if len(name) > 1 && name[0] == 'f' {
		if _, err := strconv.Atoi(name[1:]); err == nil {
			return true
		}
	}
	return false
}

// detectCommentSchema decides the comment columns from the first line's comment.
func detectCommentSchema(c []byte) commentSchema {
	if len(c) == 0 {
		return commentSchema{}
	}
	kv, ok := parseKV(c, nil)
	if !ok {
		return commentSchema{raw: true}
	}
	s := commentSchema{}
	seen := map[string]bool{}
	for _, p := range kv {
		k := string(p.key)
		if seen[k] || reservedColumn(k) {
			return commentSchema{raw: true}
		}
		seen[k] = true
		num := false
		if k != "docid" {
			v, err := strconv.ParseFloat(string(p.val), 64)
			num = err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
		}
		s.keys = append(s.keys, k)
		s.numeric = append(s.numeric, num)
	}
	return s
}

// commentValues receives one row's comment values.
type commentValues struct {
	strs []string  // per key (or the raw comment)
	nums []float64 // per key, for numeric keys
}

// parseComment parses one line's comment according to s into cv (sized by
// the caller: len(s.columns())).
func (s *commentSchema) parseComment(c []byte, cv *commentValues, scratch []commentKV) ([]commentKV, *fieldError) {
	if s.raw {
		cv.strs[0] = string(c)
		return scratch, nil
	}
	if len(s.keys) == 0 {
		return scratch, nil
	}
	kv, ok := parseKV(c, scratch)
	if !ok || len(kv) != len(s.keys) {
		return kv, ferr("comment", c, "comment does not have the keys %v of the first line", s.keys)
	}
	for i, p := range kv {
		if bstr(p.key) != s.keys[i] {
			return kv, ferr("comment", c, "comment does not have the keys %v of the first line", s.keys)
		}
		if s.numeric[i] {
			v, fe := parseValue("comment "+s.keys[i], p.val, p.val)
			if fe != nil {
				return kv, fe
			}
			cv.nums[i] = v
		} else {
			cv.strs[i] = string(p.val)
		}
	}
	return kv, nil
}
