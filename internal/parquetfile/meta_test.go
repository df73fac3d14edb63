package parquetfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// footerBytes returns the footer of the Parquet file b.
func footerBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	return b[len(b)-8-n : len(b)-8]
}

// TestMetadataRoundTrip: decoding the writer's footer and page headers and
// encoding them again gives the same bytes, so the decoder reads every
// field the writer writes, with its value (a footer's row groups carry
// three fields the reader does not decode, file_offset,
// total_compressed_size and ordinal: they are recomputed here from the
// decoded column chunks). Mutation controls, each of which made it fail:
// a dictionary page header's is_sorted decoded as typ != tTrue; the
// decoder of page encoding statistics skipping field 1 (id <= 1) or
// field 3 (id >= 3).
func TestMetadataRoundTrip(t *testing.T) {
	small, _ := smallFile(t)
	files := map[string][]byte{"small": small}
	for _, c := range testCases() {
		switch c.name {
		case "many-row-groups", "dictionary-widths", "long-strings":
			files[c.name] = ourWrite(t, c.cols, c.groups)
		}
	}
	for name, b := range files {
		t.Run(name, func(t *testing.T) {
			f, err := NewFile(bytes.NewReader(b), int64(len(b)), name)
			if err != nil {
				t.Fatal(err)
			}
			m := f.meta
			for g := range m.rowGroups {
				rg := &m.rowGroups[g]
				rg.fileOffset = rg.columns[0].fileOffset
				rg.ordinal = int16(g)
				for _, cc := range rg.columns {
					rg.totalCompressedSize += cc.totalCompressedSize
				}
			}
			var e encoder
			m.encode(&e)
			if want := footerBytes(t, b); !bytes.Equal(e.buf, want) {
				t.Fatalf("footer re-encoded differs: %d bytes, want %d; first difference at byte %d", len(e.buf), len(want), firstDiff(e.buf, want))
			}
			pages := 0
			for g := range m.rowGroups {
				for c := range m.rowGroups[g].columns {
					start, end := chunkRange(&m.rowGroups[g].columns[c])
					chunk := b[start:end]
					for pos := 0; pos < len(chunk); {
						d := &decoder{buf: chunk[pos:]}
						var h pageHeader
						h.decode(d)
						if d.err != nil {
							t.Fatalf("row group %d column %d page at %d: %v", g, c, pos, d.err)
						}
						var e encoder
						h.encode(&e)
						if !bytes.Equal(e.buf, chunk[pos:pos+d.pos]) {
							t.Fatalf("row group %d column %d: page header at %d re-encoded differs: %x, want %x", g, c, pos, e.buf, chunk[pos:pos+d.pos])
						}
						pos += d.pos + int(h.compressedSize)
						pages++
					}
				}
			}
			if pages == 0 {
				t.Fatal("no pages")
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// TestMetadataFieldsRoundTrip: structures with the values the writer never
// writes (a CRC, a sorted dictionary, an unsigned integer, deprecated
// statistics) decode to what was encoded.
func TestMetadataFieldsRoundTrip(t *testing.T) {
	headers := []struct {
		name string
		h    pageHeader
	}{
		{"dict-sorted-crc", pageHeader{typ: pageDict, uncompressedSize: 7, compressedSize: 9, crc: -5, hasCRC: true, numValues: 3, encoding: encPlainDictV1, isSorted: true, hasDictHeader: true}},
		{"dict-unsorted", pageHeader{typ: pageDict, uncompressedSize: 1 << 30, compressedSize: 1, numValues: 1 << 20, encoding: encPlain, hasDictHeader: true}},
		{"data-stats", pageHeader{typ: pageData, uncompressedSize: 100, compressedSize: 80, numValues: 12, encoding: encRLEDict, defEncoding: 4, repEncoding: encRLE, hasDataHeader: true, hasStats: true,
			stats: statistics{max: []byte{9}, min: []byte{1, 2}, hasMax: true, hasMin: true, nullCount: 7, hasNullCount: true, maxValue: []byte("zz"), minValue: []byte("a"), hasMaxV: true, hasMinV: true}}},
	}
	for _, c := range headers {
		t.Run(c.name, func(t *testing.T) {
			var e encoder
			c.h.encode(&e)
			d := &decoder{buf: e.buf}
			var got pageHeader
			got.decode(d)
			if d.err != nil || d.pos != len(e.buf) {
				t.Fatalf("decoded %d of %d bytes: %v", d.pos, len(e.buf), d.err)
			}
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", c.h) {
				t.Fatalf("decoded %+v\nwant    %+v", got, c.h)
			}
		})
	}
	elems := []struct {
		name string
		s    schemaElement
	}{
		{"uint16", schemaElement{typ: typeInt32, hasType: true, hasRep: true, name: "u", hasConv: true, converted: 13, logical: logicalType{kind: 10, bitWidth: 16}}},
		{"int64", schemaElement{typ: typeInt64, hasType: true, hasRep: true, name: "i", hasConv: true, converted: convertedInt64, logical: logicalType{kind: 10, bitWidth: 64, signed: true}}},
		{"root", schemaElement{name: "schema", numChildren: 3, hasChildren: true}},
	}
	for _, c := range elems {
		t.Run(c.name, func(t *testing.T) {
			var e encoder
			c.s.encode(&e)
			d := &decoder{buf: e.buf}
			var got schemaElement
			got.decode(d)
			if d.err != nil || d.pos != len(e.buf) {
				t.Fatalf("decoded %d of %d bytes: %v", d.pos, len(e.buf), d.err)
			}
			if got != c.s {
				t.Fatalf("decoded %+v\nwant    %+v", got, c.s)
			}
		})
	}
}

// TestDecodeRejects: metadata the decoder must refuse. Mutation controls,
// each of which made its case decode without error: the check for a page
// header's type with d.err != nil for d.err == nil ("page-header-no-type");
// the same for a footer's version ("footer-no-version").
func TestDecodeRejects(t *testing.T) {
	cases := []struct {
		name   string
		build  func(e *encoder)
		decode func(d *decoder)
		want   string
	}{
		{"page-header-no-type", func(e *encoder) {
			e.begin()
			e.i32(2, 5)
			e.i32(3, 5)
			e.end()
		}, func(d *decoder) { var h pageHeader; h.decode(d) }, "page header without a type"},
		{"footer-no-version", func(e *encoder) {
			e.begin()
			e.list(2, tStruct, 0)
			e.i64(3, 0)
			e.list(4, tStruct, 0)
			e.end()
		}, func(d *decoder) { var m fileMetaData; m.decode(d) }, "file metadata without a version"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var e encoder
			c.build(&e)
			d := &decoder{buf: e.buf}
			c.decode(d)
			if d.err == nil || !strings.Contains(d.err.Error(), c.want) {
				t.Fatalf("error %v, want %q", d.err, c.want)
			}
		})
	}
}
