package parquetfile

import (
	"math"
	"strings"
	"testing"
)

// TestSkipEveryType: a struct with a field of every compact-protocol type
// the decoder does not know is skipped to the byte, so the known field
// after it is read. Mutation control: a double at the end of the buffer
// refused (len-pos <= 8) made it fail.
func TestSkipEveryType(t *testing.T) {
	var e encoder
	e.begin()
	e.bool(1, true)
	e.bool(2, false)
	e.field(3, tByte)
	e.buf = append(e.buf, 0x7f)
	e.i16(4, -300)
	e.i32(5, math.MinInt32)
	e.i64(6, math.MaxInt64)
	e.field(7, tDouble)
	e.buf = append(e.buf, 1, 2, 3, 4, 5, 6, 7, 8)
	e.binary(8, []byte("abc"))
	e.list(9, tI32, 20) // the long list header
	for i := range 20 {
		e.varint(int64(i))
	}
	e.field(10, tSet)
	e.listHeader(tTrue, 2) // booleans in a set take a byte each
	e.buf = append(e.buf, tTrue, tFalse)
	e.field(11, tMap)
	e.uvarint(2)
	e.buf = append(e.buf, tBinary<<4|tI32)
	for _, k := range []string{"k", "key"} {
		e.uvarint(uint64(len(k)))
		e.buf = append(e.buf, k...)
		e.varint(-1)
	}
	e.field(12, tMap)
	e.uvarint(0) // an empty map has no type byte
	e.beginStruct(13)
	e.i32(1, 1)
	e.end()
	e.i32(14, 42)
	e.end()
	d := &decoder{buf: e.buf}
	var got int32
	d.structFields(func(id int16, typ byte) bool {
		if id != 14 {
			return false
		}
		got = d.i32()
		return true
	})
	if d.err != nil || got != 42 || d.pos != len(e.buf) {
		t.Fatalf("field 14 = %d, read %d of %d bytes, error %v", got, d.pos, len(e.buf), d.err)
	}

	// A double that ends the buffer, and a map whose entries take the
	// last bytes.
	for _, c := range []struct {
		name string
		typ  byte
		buf  []byte
	}{
		{"double", tDouble, []byte{1, 2, 3, 4, 5, 6, 7, 8}},
		{"map", tMap, []byte{1, tI32<<4 | tI32, 2, 4}},
	} {
		d := &decoder{buf: c.buf}
		d.skip(c.typ)
		if d.err != nil || d.pos != len(c.buf) {
			t.Errorf("%s: skipped %d of %d bytes, error %v", c.name, d.pos, len(c.buf), d.err)
		}
	}
}

// TestDecoderLimits: values and sizes at the limits of what the decoder
// accepts. Mutation controls, each of which made its case fail: the i32
// range checked with <= or >=; a binary or a list that ends the buffer
// refused (>= for >); nesting checked with >= maxDepth; a byte read at
// the end of the buffer (pos > len for pos >= len: a panic); a double
// skipped past the end (len+pos for len-pos); a map's size unchecked.
func TestDecoderLimits(t *testing.T) {
	i32 := func(v int64) *decoder {
		var e encoder
		e.varint(v)
		d := &decoder{buf: e.buf}
		d.i32()
		return d
	}
	nested := func(depth int) *decoder {
		// depth structs, each the field 1 of the one outside it.
		var e encoder
		e.begin()
		for range depth - 1 {
			e.beginStruct(1)
		}
		for range depth {
			e.end()
		}
		d := &decoder{buf: e.buf}
		d.skip(tStruct)
		return d
	}
	cases := []struct {
		name string
		d    func() *decoder
		err  string // "" for none
	}{
		{"i32-max", func() *decoder { return i32(math.MaxInt32) }, ""},
		{"i32-min", func() *decoder { return i32(math.MinInt32) }, ""},
		{"i32-over", func() *decoder { return i32(math.MaxInt32 + 1) }, "i32 out of range"},
		{"i32-under", func() *decoder { return i32(math.MinInt32 - 1) }, "i32 out of range"},
		{"binary-at-end", func() *decoder { d := &decoder{buf: []byte{3, 'a', 'b', 'c'}}; d.binary(); return d }, ""},
		{"binary-past-end", func() *decoder { d := &decoder{buf: []byte{4, 'a', 'b', 'c'}}; d.binary(); return d }, "binary of 4 bytes past the end"},
		{"list-at-end", func() *decoder { d := &decoder{buf: []byte{0x25, 2, 4}}; d.skip(tList); return d }, ""},
		{"list-past-end", func() *decoder { d := &decoder{buf: []byte{0x35, 2, 4}}; d.skip(tList); return d }, "list of 3 elements past the end"},
		{"field-id-max", func() *decoder {
			d := &decoder{buf: []byte{tI32, 0xfe, 0xff, 0x03, 2, 0}}
			d.structFields(func(int16, byte) bool { return false })
			return d
		}, ""},
		{"field-id-min", func() *decoder {
			d := &decoder{buf: []byte{tI32, 0xff, 0xff, 0x03, 2, 0}}
			d.structFields(func(int16, byte) bool { return false })
			return d
		}, ""},
		{"field-id-under", func() *decoder {
			d := &decoder{buf: []byte{tI32, 0x81, 0x80, 0x04, 2, 0}}
			d.structFields(func(int16, byte) bool { return false })
			return d
		}, "field id out of range"},
		{"field-id-over", func() *decoder {
			d := &decoder{buf: []byte{tI32, 0x80, 0x80, 0x04, 2, 0}}
			d.structFields(func(int16, byte) bool { return false })
			return d
		}, "field id out of range"},
		{"byte-at-end", func() *decoder { d := &decoder{buf: []byte{}}; d.byte(); return d }, "unexpected end"},
		// After a byte read: the checks must count from the position.
		{"double-past-end", func() *decoder { d := &decoder{buf: []byte{9, 1, 2, 3, 4, 5, 6}}; d.byte(); d.skip(tDouble); return d }, "unexpected end"},
		{"map-past-end", func() *decoder {
			d := &decoder{buf: []byte{9, 6, tI32<<4 | tI32, 2, 4}}
			d.byte()
			d.skip(tMap)
			return d
		}, "map past the end"},
		{"nested-32", func() *decoder { return nested(maxDepth) }, ""},
		{"nested-33", func() *decoder { return nested(maxDepth + 1) }, "nested too deep"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := c.d()
			if c.err == "" {
				if d.err != nil || d.pos != len(d.buf) {
					t.Fatalf("read %d of %d bytes, error %v", d.pos, len(d.buf), d.err)
				}
				return
			}
			if d.err == nil || !strings.Contains(d.err.Error(), c.err) {
				t.Fatalf("error %v, want %q", d.err, c.err)
			}
		})
	}
}

// TestVarint: zigzag varints of the extremes and of small values of both
// signs decode to what was encoded; a truncated varint is an error.
// Mutation controls, each of which made it fail: the zigzag sign
// -int64(u&1) as int64(u&1); a truncated varint (n == 0) accepted (n < 0
// for n <= 0).
func TestVarint(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 63, -64, 64, -65, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64} {
		var e encoder
		e.varint(v)
		d := &decoder{buf: e.buf}
		if got := d.varint(); got != v || d.err != nil || d.pos != len(e.buf) {
			t.Errorf("%d decoded as %d (%d of %d bytes, error %v)", v, got, d.pos, len(e.buf), d.err)
		}
	}
	for _, b := range [][]byte{{}, {0x80}, {0xff, 0xff}} {
		d := &decoder{buf: b}
		if d.uvarint(); d.err == nil || !strings.Contains(d.err.Error(), "bad varint") {
			t.Errorf("% x: error %v, want bad varint", b, d.err)
		}
	}
}
