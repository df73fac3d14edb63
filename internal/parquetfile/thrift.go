package parquetfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The Parquet footer and page headers are Thrift structures in the compact
// protocol (https://github.com/apache/thrift/blob/master/doc/specs/thrift-compact-protocol.md).
// This file holds the few parts of it that Parquet uses: structs, i16,
// i32, i64, bool, binary and lists.

// Compact protocol type codes.
const (
	tStop   = 0
	tTrue   = 1
	tFalse  = 2
	tByte   = 3
	tI16    = 4
	tI32    = 5
	tI64    = 6
	tDouble = 7
	tBinary = 8
	tList   = 9
	tSet    = 10
	tMap    = 11
	tStruct = 12
)

// encoder appends a Thrift compact encoding to buf. Fields must be written
// in ascending id order within a struct, as the Apache Thrift generated
// code writes them.
type encoder struct {
	buf  []byte
	last []int16 // last field id of each open struct
	// payloads records where each binary value's bytes start and end in
	// buf: Apache Thrift's compact protocol hands them to its transport in
	// one Write call, which matters to leakedPrefix.
	payloads [][2]int
}

func (e *encoder) uvarint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }
func (e *encoder) varint(v int64)   { e.uvarint(uint64(v<<1) ^ uint64(v>>63)) }

func (e *encoder) begin() { e.last = append(e.last, 0) }

func (e *encoder) end() {
	e.buf = append(e.buf, tStop)
	e.last = e.last[:len(e.last)-1]
}

func (e *encoder) field(id int16, typ byte) {
	last := &e.last[len(e.last)-1]
	if d := id - *last; d > 0 && d <= 15 {
		e.buf = append(e.buf, byte(d)<<4|typ)
	} else {
		e.buf = append(e.buf, typ)
		e.varint(int64(id))
	}
	*last = id
}

func (e *encoder) i32(id int16, v int32) { e.field(id, tI32); e.varint(int64(v)) }
func (e *encoder) i64(id int16, v int64) { e.field(id, tI64); e.varint(v) }
func (e *encoder) i16(id int16, v int16) { e.field(id, tI16); e.varint(int64(v)) }

func (e *encoder) bool(id int16, v bool) {
	if v {
		e.field(id, tTrue)
	} else {
		e.field(id, tFalse)
	}
}

func (e *encoder) binary(id int16, v []byte) {
	e.field(id, tBinary)
	e.uvarint(uint64(len(v)))
	if len(v) > 0 {
		e.payloads = append(e.payloads, [2]int{len(e.buf), len(e.buf) + len(v)})
	}
	e.buf = append(e.buf, v...)
}

func (e *encoder) string(id int16, v string) {
	e.field(id, tBinary)
	e.uvarint(uint64(len(v)))
	e.buf = append(e.buf, v...)
}

// beginStruct starts a struct-valued field; end closes it.
func (e *encoder) beginStruct(id int16) {
	e.field(id, tStruct)
	e.begin()
}

// list writes a list field header of n elements of type elem.
func (e *encoder) list(id int16, elem byte, n int) {
	e.field(id, tList)
	e.listHeader(elem, n)
}

func (e *encoder) listHeader(elem byte, n int) {
	if n < 15 {
		e.buf = append(e.buf, byte(n)<<4|elem)
	} else {
		e.buf = append(e.buf, 0xf0|elem)
		e.uvarint(uint64(n))
	}
}

// errThrift is wrapped by every decoding error.
var errThrift = errors.New("bad thrift")

// maxDepth bounds the nesting of structs and lists the decoder follows.
const maxDepth = 32

// decoder reads a Thrift compact encoding from buf. Errors are sticky: the
// first one is kept in err, and every later read returns zero values.
type decoder struct {
	buf   []byte
	pos   int
	err   error
	depth int
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s at byte %d", errThrift, fmt.Sprintf(format, args...), d.pos)
	}
	d.pos = len(d.buf)
}

func (d *decoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if d.pos >= len(d.buf) {
		d.fail("unexpected end")
		return 0
	}
	b := d.buf[d.pos]
	d.pos++
	return b
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.buf[d.pos:])
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.pos += n
	return v
}

func (d *decoder) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (d *decoder) i32() int32 {
	v := d.varint()
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.fail("i32 out of range")
		return 0
	}
	return int32(v)
}

func (d *decoder) binary() []byte {
	n := d.uvarint()
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.buf)-d.pos) {
		d.fail("binary of %d bytes past the end", n)
		return nil
	}
	b := d.buf[d.pos : d.pos+int(n) : d.pos+int(n)]
	d.pos += int(n)
	return b
}

// fieldHeader reads the next field of a struct whose previous field id is
// *last; typ is tStop at the end of the struct.
func (d *decoder) fieldHeader(last *int16) (id int16, typ byte) {
	b := d.byte()
	if d.err != nil {
		return 0, tStop
	}
	typ = b & 0x0f
	if typ == tStop {
		if b != 0 {
			d.fail("bad stop byte %#x", b)
		}
		return 0, tStop
	}
	if delta := b >> 4; delta != 0 {
		id = *last + int16(delta)
	} else {
		v := d.varint()
		if v < math.MinInt16 || v > math.MaxInt16 {
			d.fail("field id out of range")
			return 0, tStop
		}
		id = int16(v)
	}
	if typ > tStruct {
		d.fail("bad field type %d", typ)
		return 0, tStop
	}
	*last = id
	return id, typ
}

// listHeader reads a list header: element type and size.
func (d *decoder) listHeader() (elem byte, n int) {
	b := d.byte()
	elem = b & 0x0f
	size := uint64(b >> 4)
	if size == 15 {
		size = d.uvarint()
	}
	// Every element takes at least one byte.
	if d.err == nil && size > uint64(len(d.buf)-d.pos) {
		d.fail("list of %d elements past the end", size)
	}
	if d.err != nil {
		return 0, 0
	}
	return elem, int(size)
}

// want checks that a field has the expected type.
func (d *decoder) want(id int16, typ, want byte) bool {
	if typ == want || (want == tTrue && typ == tFalse) {
		return true
	}
	d.fail("field %d has type %d, want %d", id, typ, want)
	return false
}

// skip skips a value of type typ.
func (d *decoder) skip(typ byte) {
	if d.err != nil {
		return
	}
	switch typ {
	case tTrue, tFalse:
	case tByte:
		d.byte()
	case tI16, tI32, tI64:
		d.uvarint()
	case tDouble:
		if len(d.buf)-d.pos < 8 {
			d.fail("unexpected end")
			return
		}
		d.pos += 8
	case tBinary:
		d.binary()
	case tList, tSet:
		elem, n := d.listHeader()
		d.nest(func() {
			for i := 0; i < n && d.err == nil; i++ {
				d.skipElem(elem)
			}
		})
	case tMap:
		n := d.uvarint()
		if n == 0 {
			return
		}
		kv := d.byte()
		if d.err == nil && n > uint64(len(d.buf)-d.pos) {
			d.fail("map past the end")
		}
		d.nest(func() {
			for i := uint64(0); i < n && d.err == nil; i++ {
				d.skipElem(kv >> 4)
				d.skipElem(kv & 0x0f)
			}
		})
	case tStruct:
		d.structFields(func(int16, byte) bool { return false })
	default:
		d.fail("bad type %d", typ)
	}
}

// skipElem skips a list element; booleans in lists take a byte.
func (d *decoder) skipElem(typ byte) {
	if typ == tTrue || typ == tFalse {
		d.byte()
		return
	}
	d.skip(typ)
}

func (d *decoder) nest(f func()) {
	d.depth++
	if d.depth > maxDepth {
		d.fail("nested too deep")
	} else {
		f()
	}
	d.depth--
}

// structFields reads a struct, calling f for each field; f reads the value
// and returns true, or returns false to have it skipped.
func (d *decoder) structFields(f func(id int16, typ byte) bool) {
	d.nest(func() {
		var last int16
		for d.err == nil {
			id, typ := d.fieldHeader(&last)
			if typ == tStop {
				return
			}
			if !f(id, typ) {
				d.skip(typ)
			}
		}
	})
}

// list reads a list of structs or scalars, calling f for each element.
func (d *decoder) list(id int16, typ, elem byte, f func(i int)) {
	if !d.want(id, typ, tList) {
		return
	}
	et, n := d.listHeader()
	if d.err != nil {
		return
	}
	if et != elem {
		d.fail("field %d: list of type %d, want %d", id, et, elem)
		return
	}
	d.nest(func() {
		for i := 0; i < n && d.err == nil; i++ {
			f(i)
		}
	})
}

// i32Field reads field id, of wire type typ, into dst when it is an i32
// (else the decoder fails) and reports whether it did.
func (d *decoder) i32Field(id int16, typ byte, dst *int32) bool {
	if !d.want(id, typ, tI32) {
		return false
	}
	*dst = d.i32()
	return true
}

// i64Field reads field id, of wire type typ, into dst when it is an i64
// (else the decoder fails) and reports whether it did.
func (d *decoder) i64Field(id int16, typ byte, dst *int64) bool {
	if !d.want(id, typ, tI64) {
		return false
	}
	*dst = d.varint()
	return true
}
