package parquetfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/snappy"
)

// readAll reads every column of every row group of b into groups shaped
// like the writer's input.
func readAll(b []byte) ([]group, error) {
	f, err := NewFile(bytes.NewReader(b), int64(len(b)), "test.parquet")
	if err != nil {
		return nil, err
	}
	var out []group
	for g := 0; g < f.NumRowGroups(); g++ {
		n := f.RowGroupRows(g)
		var gr group
		for c, col := range f.Columns() {
			var err error
			switch col.Kind {
			case Int64:
				v := make([]int64, n)
				err = f.ReadInt64(g, c, v)
				gr = append(gr, v)
			case Int32:
				v := make([]int32, n)
				err = f.ReadInt32(g, c, v)
				gr = append(gr, v)
			case Double:
				v := make([]float64, n)
				err = f.ReadDouble(g, c, v)
				gr = append(gr, v)
			case String:
				v := make([]string, n)
				err = f.ReadStrings(g, c, v)
				gr = append(gr, v)
			}
			if err != nil {
				return nil, err
			}
		}
		out = append(out, gr)
	}
	return out, nil
}

func sameGroups(t *testing.T, got, want []group) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d row groups, want %d", len(got), len(want))
	}
	for g := range want {
		for c := range want[g] {
			switch w := want[g][c].(type) {
			case []float64:
				gv := got[g][c].([]float64)
				for i := range w {
					if math.Float64bits(gv[i]) != math.Float64bits(w[i]) {
						t.Fatalf("row group %d column %d row %d: %v, want %v", g, c, i, gv[i], w[i])
					}
				}
			case []string:
				gv := got[g][c].([]string)
				for i := range w {
					if gv[i] != w[i] {
						t.Fatalf("row group %d column %d row %d: %q, want %q", g, c, i, gv[i], w[i])
					}
				}
			case []int64:
				gv := got[g][c].([]int64)
				for i := range w {
					if gv[i] != w[i] {
						t.Fatalf("row group %d column %d row %d: %d, want %d", g, c, i, gv[i], w[i])
					}
				}
			case []int32:
				gv := got[g][c].([]int32)
				for i := range w {
					if gv[i] != w[i] {
						t.Fatalf("row group %d column %d row %d: %d, want %d", g, c, i, gv[i], w[i])
					}
				}
			}
		}
	}
}

// TestReadBack: every value of every test case reads back bit for bit,
// through PLAIN pages, dictionary pages of every bit width, fallback
// pages, leaked metadata bytes between chunks and NaNs. Mutation control:
// the literal-run decoder taking groups*8 values past the page's count
// made it fail (dictionary-widths).
func TestReadBack(t *testing.T) {
	for _, c := range testCases() {
		t.Run(c.name, func(t *testing.T) {
			got, err := readAll(ourWrite(t, c.cols, c.groups))
			if err != nil {
				t.Fatal(err)
			}
			sameGroups(t, got, c.groups)
		})
	}
}

// smallFile is a valid file of two row groups with every kind of column.
func smallFile(t *testing.T) ([]byte, []group) {
	cols := []Column{{"qid", Int64}, {"label", Int32}, {"part", String}, {"f1", Double}}
	groups := []group{
		{[]int64{1, 1, 2}, []int32{0, 2, 1}, []string{"train", "train", "test"}, []float64{0.5, -1, 3}},
		{[]int64{7}, []int32{4}, []string{""}, []float64{math.NaN()}},
	}
	return ourWrite(t, cols, groups), groups
}

// withFooter re-encodes b's footer after edit changes it.
func withFooter(t *testing.T, b []byte, edit func(m *fileMetaData)) []byte {
	t.Helper()
	f, err := NewFile(bytes.NewReader(b), int64(len(b)), "x")
	if err != nil {
		t.Fatal(err)
	}
	m := f.meta
	edit(&m)
	return buildFile(b[:f.dataEnd], &m)
}

// buildFile appends the footer m to data.
func buildFile(data []byte, m *fileMetaData) []byte {
	var e encoder
	m.encode(&e)
	out := append([]byte(nil), data...)
	out = append(out, e.buf...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(e.buf)))
	return append(out, magic...)
}

// withPage rebuilds b with the first page of row group 0's column col
// replaced by edit's header and page bytes, moving the later offsets.
func withPage(t *testing.T, b []byte, col int, edit func(h *pageHeader, data []byte) (hdr pageHeader, body []byte)) []byte {
	t.Helper()
	return withPageN(t, b, col, 0, edit)
}

// withPageN is withPage for the page after the first skip pages.
func withPageN(t *testing.T, b []byte, col, skip int, edit func(h *pageHeader, data []byte) (hdr pageHeader, body []byte)) []byte {
	t.Helper()
	f, err := NewFile(bytes.NewReader(b), int64(len(b)), "x")
	if err != nil {
		t.Fatal(err)
	}
	cc := f.meta.rowGroups[0].columns[col]
	start, end := chunkRange(&cc)
	d := &decoder{buf: b[start:end]}
	var h pageHeader
	h.decode(d)
	for range skip {
		start += int64(d.pos) + int64(h.compressedSize)
		d = &decoder{buf: b[start:end]}
		h = pageHeader{}
		h.decode(d)
	}
	body := b[start+int64(d.pos) : start+int64(d.pos)+int64(h.compressedSize)]
	data, err := snappy.Decode(nil, body)
	if err != nil {
		t.Fatal(err)
	}
	oldLen := int64(d.pos) + int64(h.compressedSize) // before edit changes h
	nh, nbody := edit(&h, data)
	var e encoder
	nh.encode(&e)
	page := append(e.buf, nbody...)
	delta := int64(len(page)) - oldLen
	out := append(append(append([]byte(nil), b[:start]...), page...), b[start+oldLen:f.dataEnd]...)
	m := f.meta
	for g := range m.rowGroups {
		for c := range m.rowGroups[g].columns {
			x := &m.rowGroups[g].columns[c]
			if g == 0 && c == col {
				x.totalCompressedSize += delta
			}
			if x.dataPageOffset > start {
				x.dataPageOffset += delta
			}
			if x.hasDictPageOffset && x.dictPageOffset > start {
				x.dictPageOffset += delta
			}
			if x.fileOffset > start {
				x.fileOffset += delta
			}
		}
	}
	return buildFile(out, &m)
}

// pageAt returns where the header of the page after the first skip pages
// of row group 0's column col starts, the header, and its length.
func pageAt(t *testing.T, b []byte, col, skip int) (off int64, h pageHeader, n int) {
	t.Helper()
	f, err := NewFile(bytes.NewReader(b), int64(len(b)), "x")
	if err != nil {
		t.Fatal(err)
	}
	off, end := chunkRange(&f.meta.rowGroups[0].columns[col])
	for i := 0; ; i++ {
		d := &decoder{buf: b[off:end]}
		h = pageHeader{}
		h.decode(d)
		if d.err != nil {
			t.Fatal(d.err)
		}
		if i == skip {
			return off, h, d.pos
		}
		off += int64(d.pos) + int64(h.compressedSize)
	}
}

// compressed returns a header for data compressed with Snappy.
func compressed(h pageHeader, data []byte) (pageHeader, []byte) {
	c := snappy.Encode(nil, data)
	h.uncompressedSize, h.compressedSize = int32(len(data)), int32(len(c))
	return h, c
}

// TestReadRejects: corrupt and unsupported files fail with an error
// naming the file and, for a column chunk, the row group and column; none
// panics; and so does every truncation of a valid file. Mutation controls,
// each of which made its case read the file without error: no CRC check
// ("crc"), no check of the Snappy length against the page header
// ("snappy-length"), no check for bytes left in the column chunk
// ("chunk-trailing"); the decoder taking another logical type (kind -1)
// for STRING (kind 1) ("logical-json"). Without the check of converted and
// logical types, "unsigned", "narrow", "converted-date",
// "converted-on-double" and "logical-json" read the file.
func TestReadRejects(t *testing.T) {
	good, groups := smallFile(t)
	if got, err := readAll(good); err != nil {
		t.Fatal(err)
	} else {
		sameGroups(t, got, groups)
	}
	fix := func(b []byte) []byte { return b }
	// The first data page of part in row group 0 (after its dictionary
	// page): a corrupt header, and a compressed size past the chunk's end.
	partOff, _, _ := pageAt(t, good, 2, 1)
	headerCorrupt := bytes.Clone(good)
	headerCorrupt[partOff] = 0x0f // a field of type 15
	pastChunk := withPageN(t, good, 2, 1, func(h *pageHeader, data []byte) (pageHeader, []byte) {
		nh, body := compressed(*h, data)
		nh.compressedSize += 5
		return nh, body
	})
	pastOff, pastH, pastLen := pageAt(t, pastChunk, 2, 1)
	cases := []struct {
		name string
		file func() []byte
		want string // in the error
	}{
		{"empty", func() []byte { return nil }, "too short"},
		{"head-magic", func() []byte { b := fix(bytes.Clone(good)); b[0] = 'X'; return b }, "no PAR1 magic"},
		{"tail-magic", func() []byte { b := bytes.Clone(good); b[len(b)-1] = 'X'; return b }, "no PAR1 magic"},
		{"footer-length", func() []byte {
			b := bytes.Clone(good)
			binary.LittleEndian.PutUint32(b[len(b)-8:], uint32(len(b)))
			return b
		}, "footer of"},
		{"footer-thrift", func() []byte {
			b := bytes.Clone(good)
			n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
			b[len(b)-8-n] = 0x0f // a field of type 15
			return b
		}, "bad thrift"},
		{"truncated", func() []byte {
			b := good[:len(good)-20]
			return append(bytes.Clone(b), good[len(good)-8:]...)
		}, ""},
		{"chunk-outside", func() []byte {
			return withFooter(t, good, func(m *fileMetaData) { m.rowGroups[1].columns[3].dataPageOffset = 1 << 40 })
		}, "row group 1, column f1: column chunk at bytes"},
		{"chunk-into-footer", func() []byte {
			return withFooter(t, good, func(m *fileMetaData) { m.rowGroups[1].columns[3].totalCompressedSize += 8 })
		}, "row group 1, column f1: column chunk at bytes"},
		{"chunk-empty", func() []byte {
			return withFooter(t, good, func(m *fileMetaData) { m.rowGroups[0].columns[1].totalCompressedSize = 0 })
		}, "row group 0, column label: not a supported Parquet file: column chunk ends after 0 of 3 values"},
		{"chunk-negative-size", func() []byte {
			return withFooter(t, good, func(m *fileMetaData) { m.rowGroups[0].columns[0].totalCompressedSize = -1 })
		}, "row group 0, column qid: column chunk at bytes 4..-1 outside the data"},
		{"path", func() []byte {
			return withFooter(t, good, func(m *fileMetaData) { m.rowGroups[0].columns[2].path = []string{"other"} })
		}, `row group 0, column part: path ["other"] in the metadata`},
		{"path-nested", func() []byte {
			return withFooter(t, good, func(m *fileMetaData) { m.rowGroups[1].columns[2].path = []string{"part", "x"} })
		}, `row group 1, column part: path ["part" "x"] in the metadata`},
		{"chunk-type", func() []byte {
			return withFooter(t, good, func(m *fileMetaData) { m.rowGroups[0].columns[0].typ = typeInt32 })
		}, "row group 0, column qid: type 1 in the metadata, 2 in the schema"},
		{"codec", func() []byte {
			return withFooter(t, good, func(m *fileMetaData) { m.rowGroups[0].columns[0].codec = 2 })
		}, "row group 0, column qid: compression codec 2 is not supported"},
		{"type", func() []byte {
			return withFooter(t, good, func(m *fileMetaData) { m.schema[4].typ = 4; m.rowGroups[0].columns[3].typ = 4 })
		}, `column "f1": physical type 4 is not supported`},
		{"optional", func() []byte {
			return withFooter(t, good, func(m *fileMetaData) { m.schema[2].repetition = 1 })
		}, `column "label": not a required column`},
		{"unsigned", func() []byte {
			return withFooter(t, good, func(m *fileMetaData) { m.schema[2].logical.signed = false })
		}, `column "label": logical type`},
		{"narrow", func() []byte {
			return withFooter(t, good, func(m *fileMetaData) { m.schema[1].logical.bitWidth = 32 })
		}, `column "qid": logical type`},
		{"converted-date", func() []byte {
			return withFooter(t, good, func(m *fileMetaData) { m.schema[2].logical.kind, m.schema[2].converted = 0, 6 })
		}, `column "label": converted type 6 is not supported for INT32`},
		{"converted-on-double", func() []byte {
			return withFooter(t, good, func(m *fileMetaData) { m.schema[4].hasConv, m.schema[4].converted = true, convertedInt64 })
		}, `column "f1": converted type 18 is not supported for DOUBLE`},
		{"logical-json", func() []byte {
			// The STRING logical type of part (union field 1) made JSON
			// (field 12), which the decoder reads as another logical type.
			b := bytes.Clone(good)
			n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
			footer := b[len(b)-8-n : len(b)-8]
			i := bytes.Index(footer, []byte("part\x25\x00\x4c\x1c\x00\x00"))
			if i < 0 || bytes.LastIndex(footer, []byte("part\x25")) != i {
				t.Fatal("no unique STRING logical type of part in the footer")
			}
			footer[i+7] = 0xcc
			return b
		}, `column "part": logical type`},
		{"rows", func() []byte {
			return withFooter(t, good, func(m *fileMetaData) { m.numRows++ })
		}, "row groups hold 4 rows, the footer says 5"},
		{"num-values", func() []byte {
			return withFooter(t, good, func(m *fileMetaData) { m.rowGroups[0].columns[1].numValues = 2 })
		}, "row group 0, column label: 2 values in a row group of 3 rows"},
		{"chunk-size", func() []byte {
			return withFooter(t, good, func(m *fileMetaData) { m.rowGroups[0].columns[0].totalCompressedSize -= 3 })
		}, "row group 0, column qid"},
		{"chunk-trailing", func() []byte {
			return withFooter(t, good, func(m *fileMetaData) { m.rowGroups[0].columns[0].totalCompressedSize += 2 })
		}, "row group 0, column qid: not a supported Parquet file: 2 bytes after the column chunk's 3 values"},
		{"encoding", func() []byte {
			return withPage(t, good, 3, func(h *pageHeader, data []byte) (pageHeader, []byte) {
				h.encoding = 9 // BYTE_STREAM_SPLIT
				return compressed(*h, data)
			})
		}, "row group 0, column f1: not a supported Parquet file: page at byte"},
		{"crc", func() []byte {
			return withPage(t, good, 0, func(h *pageHeader, data []byte) (pageHeader, []byte) {
				nh, body := compressed(*h, data)
				nh.hasCRC, nh.crc = true, int32(crc32.ChecksumIEEE(body))+1
				return nh, body
			})
		}, "row group 0, column qid: not a supported Parquet file: page at byte"},
		{"crc-good", func() []byte {
			return withPage(t, good, 0, func(h *pageHeader, data []byte) (pageHeader, []byte) {
				nh, body := compressed(*h, data)
				nh.hasCRC, nh.crc = true, int32(crc32.ChecksumIEEE(body))
				return nh, body
			})
		}, "-"},
		{"page-values", func() []byte {
			return withPage(t, good, 3, func(h *pageHeader, data []byte) (pageHeader, []byte) {
				h.numValues = 2
				return compressed(*h, data)
			})
		}, "24 bytes for 2 values"},
		{"snappy-length", func() []byte {
			return withPage(t, good, 0, func(h *pageHeader, data []byte) (pageHeader, []byte) {
				nh, body := compressed(*h, data)
				nh.uncompressedSize--
				return nh, body
			})
		}, "bad Snappy data"},
		{"snappy-garbage", func() []byte {
			return withPage(t, good, 0, func(h *pageHeader, data []byte) (pageHeader, []byte) {
				nh, body := compressed(*h, data)
				body = bytes.Repeat([]byte{0xff}, len(body))
				return nh, body
			})
		}, "bad Snappy data"},
		{"dict-index", func() []byte {
			return withPage(t, good, 2, func(h *pageHeader, data []byte) (pageHeader, []byte) {
				// The first page of part is its dictionary; make it one entry
				// so the data page's index 1 is out of range.
				nh, body := compressed(pageHeader{typ: pageDict, numValues: 1, hasDictHeader: true}, []byte{5, 0, 0, 0, 't', 'r', 'a', 'i', 'n'})
				return nh, body
			})
		}, "dictionary index 1 out of range 0..0"},
		{"dict-data-plain-dictionary", func() []byte {
			// PLAIN_DICTIONARY, the v1 name of RLE_DICTIONARY, on a data page.
			return withPageN(t, good, 2, 1, func(h *pageHeader, data []byte) (pageHeader, []byte) {
				h.encoding = encPlainDictV1
				return compressed(*h, data)
			})
		}, "-"},
		{"string-encoding", func() []byte {
			return withPageN(t, good, 2, 1, func(h *pageHeader, data []byte) (pageHeader, []byte) {
				h.encoding = 9 // BYTE_STREAM_SPLIT
				return compressed(*h, data)
			})
		}, "row group 0, column part: not a supported Parquet file: page at byte 217: encoding 9 is not supported"},
		{"dict-count", func() []byte {
			// 3 entries cannot fit in 9 bytes: refused before allocating.
			return withPage(t, good, 2, func(h *pageHeader, data []byte) (pageHeader, []byte) {
				return compressed(pageHeader{typ: pageDict, numValues: 3, hasDictHeader: true}, []byte("\x05\x00\x00\x00train"))
			})
		}, "dictionary page: 3 values in 9 bytes"},
		{"dict-short", func() []byte {
			return withPage(t, good, 2, func(h *pageHeader, data []byte) (pageHeader, []byte) {
				return compressed(pageHeader{typ: pageDict, numValues: 2, hasDictHeader: true}, []byte("\x05\x00\x00\x00train"))
			})
		}, "dictionary page: value 1 of 2: data ends"},
		{"dict-length", func() []byte {
			return withPage(t, good, 2, func(h *pageHeader, data []byte) (pageHeader, []byte) {
				return compressed(pageHeader{typ: pageDict, numValues: 2, hasDictHeader: true}, []byte("\x05\x00\x00\x00train\x09\x00\x00\x00abc"))
			})
		}, "dictionary page: value 1 of 2: length 9 past the end of the page"},
		{"dict-trailing", func() []byte {
			return withPage(t, good, 2, func(h *pageHeader, data []byte) (pageHeader, []byte) {
				return compressed(pageHeader{typ: pageDict, numValues: 2, hasDictHeader: true}, []byte("\x05\x00\x00\x00train\x04\x00\x00\x00testxy"))
			})
		}, "dictionary page: 2 bytes after the page's 2 values"},
		{"page-header-corrupt", func() []byte { return headerCorrupt },
			fmt.Sprintf("row group 0, column part: not a supported Parquet file: page header at byte %d: bad thrift", partOff)},
		{"page-past-chunk", func() []byte { return pastChunk },
			fmt.Sprintf("row group 0, column part: not a supported Parquet file: page at byte %d: compressed size %d, uncompressed size %d, %d values, %d bytes left in the column chunk",
				pastOff+int64(pastLen), pastH.compressedSize, pastH.uncompressedSize, pastH.numValues, pastH.compressedSize-5)},
		{"page-type", func() []byte {
			return withPage(t, good, 0, func(h *pageHeader, data []byte) (pageHeader, []byte) {
				h.typ = 3 // DATA_PAGE_V2
				return compressed(*h, data)
			})
		}, "page type 3 is not supported"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.file()
			got, err := readAll(b)
			if c.want == "-" {
				if err != nil {
					t.Fatal(err)
				}
				sameGroups(t, got, groups)
				return
			}
			if err == nil {
				t.Fatalf("read a bad file without error: %v", got)
			}
			if !strings.Contains(err.Error(), "test.parquet") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not name the file and %q", err, c.want)
			}
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %q is not ErrFormat", err)
			}
		})
	}
	// Every truncation of the file fails cleanly.
	for n := 0; n < len(good); n++ {
		if _, err := readAll(good[:n]); err == nil {
			t.Fatalf("read the first %d of %d bytes without error", n, len(good))
		}
	}
}

// FuzzReader: arbitrary bytes never panic the reader.
func FuzzReader(f *testing.F) {
	t := &testing.T{}
	good, _ := smallFile(t)
	f.Add(good)
	for _, c := range testCases()[1:3] {
		f.Add(ourWrite(t, c.cols, c.groups))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<20 {
			return
		}
		// The caller allocates the values: Load checks the row count
		// against the manifest first. Here it is bounded by hand.
		if pf, err := NewFile(bytes.NewReader(b), int64(len(b)), "fuzz"); err != nil || pf.NumRows() > 1<<16 {
			return
		}
		readAll(b)
	})
}

// TestOpen: Open reads a file from disk and Close closes it (a second
// Close fails); a missing file and a file that is not Parquet fail with
// the error of each; Close of a File made by NewFile does nothing.
// Mutation controls, each of which made it fail: each of Open's three
// error checks negated; Close's f.f != nil negated.
func TestOpen(t *testing.T) {
	good, groups := smallFile(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "good.parquet")
	if err := os.WriteFile(path, good, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]int64, f.RowGroupRows(0))
	if err := f.ReadInt64(0, 0, v); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v, groups[0][0].([]int64)) {
		t.Fatalf("read %v, want %v", v, groups[0][0])
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("second Close: %v, want %v", err, os.ErrClosed)
	}
	if _, err := Open(filepath.Join(dir, "missing.parquet")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.parquet")
	if err := os.WriteFile(bad, good[:len(good)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(bad); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), bad) {
		t.Fatalf("truncated file: %v", err)
	}
	nf, err := NewFile(bytes.NewReader(good), int64(len(good)), "mem")
	if err != nil {
		t.Fatal(err)
	}
	if err := nf.Close(); err != nil {
		t.Fatalf("Close of a NewFile: %v", err)
	}
}

// TestNoRowGroups: a file without row groups, whose footer fills all but
// the 12 bytes of magic and length, reads as zero rows. Mutation control:
// NewFile's footer bound n > size-12 as n >= size-12 made it fail.
func TestNoRowGroups(t *testing.T) {
	b := ourWrite(t, []Column{{"a", Int64}, {"s", String}}, nil)
	f, err := NewFile(bytes.NewReader(b), int64(len(b)), "empty")
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRows() != 0 || f.NumRowGroups() != 0 || len(f.Columns()) != 2 {
		t.Fatalf("%d rows in %d row groups, %d columns", f.NumRows(), f.NumRowGroups(), len(f.Columns()))
	}
}

// TestColumnIndex: ColumnIndex finds each column by name, and -1 for a
// name that is not a column. Mutation controls, each of which made it
// fail: c.Name == name negated; -1 returned as 1.
func TestColumnIndex(t *testing.T) {
	good, _ := smallFile(t)
	f, err := NewFile(bytes.NewReader(good), int64(len(good)), "x")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want int
	}{{"qid", 0}, {"label", 1}, {"part", 2}, {"f1", 3}, {"schema", -1}, {"", -1}, {"F1", -1}} {
		if got := f.ColumnIndex(c.name); got != c.want {
			t.Errorf("ColumnIndex(%q) = %d, want %d", c.name, got, c.want)
		}
	}
	if got := f.CreatedBy(); got != testCreatedBy {
		t.Errorf("CreatedBy() = %q, want %q", got, testCreatedBy)
	}
}

// TestReadOutOfRange: reading a row group or column past the last, or
// before the first, is an error, not a panic. Mutation controls, each of
// which made it panic: g >= len(row groups) as g > len, col >= len(cols)
// as col > len.
func TestReadOutOfRange(t *testing.T) {
	good, _ := smallFile(t)
	f, err := NewFile(bytes.NewReader(good), int64(len(good)), "x")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		g, col int
	}{{"group-past", 2, 0}, {"group-negative", -1, 0}, {"column-past", 0, 4}, {"column-negative", 0, -1}} {
		t.Run(c.name, func(t *testing.T) {
			err := f.ReadInt64(c.g, c.col, make([]int64, 3))
			if err == nil || !strings.Contains(err.Error(), "no row group") {
				t.Fatalf("error %v, want no row group", err)
			}
		})
	}
}

// TestPageRejects: pages with unsupported or corrupt contents fail with an
// error naming the column and the byte where the page's body starts (%d
// in want), and pages of supported variants read back. Mutation controls,
// each of which made its case fail: the offset start+pos-len(raw) of each
// message computed with + for - or - for + ("crc", "snappy-length",
// "snappy-garbage", "encoding"); the dictionary page encoding check with
// == encPlainDictV1 ("dict-page-encoding", "dict-page-plain-dictionary");
// the level encoding checks with == 4 ("def-levels-bit-packed",
// "rep-levels-bit-packed", "level-encoding"); the values left n-got as
// n+got ("second-page-values"); the size check of an UNCOMPRESSED page
// negated (the first two checks).
func TestPageRejects(t *testing.T) {
	good, groups := smallFile(t)
	// Two data pages of int64s: 131,072 values (1 MiB) and 8,928.
	long := make([]int64, 140000)
	for i := range long {
		long[i] = int64(i) * 7
	}
	twoPages := ourWrite(t, []Column{{"v", Int64}}, []group{{long}})
	edit := func(f func(h *pageHeader)) func(h *pageHeader, data []byte) (pageHeader, []byte) {
		return func(h *pageHeader, data []byte) (pageHeader, []byte) {
			f(h)
			return compressed(*h, data)
		}
	}
	// qid in row group 0 stored UNCOMPRESSED.
	plain := func(delta int32) []byte {
		b := withPage(t, good, 0, func(h *pageHeader, data []byte) (pageHeader, []byte) {
			h.uncompressedSize, h.compressedSize = int32(len(data))+delta, int32(len(data))
			return *h, data
		})
		return withFooter(t, b, func(m *fileMetaData) { m.rowGroups[0].columns[0].codec = 0 })
	}
	if got, err := readAll(plain(0)); err != nil {
		t.Fatalf("uncompressed: %v", err)
	} else {
		sameGroups(t, got, groups)
	}
	if _, err := readAll(plain(1)); err == nil || !strings.Contains(err.Error(), "row group 0, column qid: not a supported Parquet file: uncompressed page of 24 bytes, header says 25") {
		t.Fatalf("uncompressed page of a wrong size: %v", err)
	}
	cases := []struct {
		name      string
		file      []byte
		col, skip int
		edit      func(h *pageHeader, data []byte) (pageHeader, []byte)
		want      string // with %d for the page body's offset; "" for none
	}{
		{"crc", good, 0, 0, func(h *pageHeader, data []byte) (pageHeader, []byte) {
			nh, body := compressed(*h, data)
			nh.hasCRC, nh.crc = true, int32(crc32.ChecksumIEEE(body))+1
			return nh, body
		}, "row group 0, column qid: not a supported Parquet file: page at byte %d: CRC mismatch"},
		{"snappy-length", good, 1, 0, func(h *pageHeader, data []byte) (pageHeader, []byte) {
			nh, body := compressed(*h, data)
			nh.uncompressedSize++
			return nh, body
		}, "row group 0, column label: not a supported Parquet file: page at byte %d: bad Snappy data (12 bytes, header says 13 uncompressed)"},
		{"snappy-garbage", good, 3, 0, func(h *pageHeader, data []byte) (pageHeader, []byte) {
			nh, body := compressed(*h, data)
			// The decoded length kept, the rest garbage.
			body = append(body[:1], 0xfe, 0xff, 0xff, 0xff)
			nh.compressedSize = int32(len(body))
			return nh, body
		}, "row group 0, column f1: not a supported Parquet file: page at byte %d: bad Snappy data"},
		{"encoding", good, 3, 0, edit(func(h *pageHeader) { h.encoding = 9 }),
			"row group 0, column f1: not a supported Parquet file: page at byte %d: encoding 9 is not supported (only PLAIN)"},
		{"dict-page-encoding", good, 2, 0, edit(func(h *pageHeader) { h.encoding = encRLEDict }),
			"row group 0, column part: not a supported Parquet file: dictionary page encoding 8 is not supported"},
		{"dict-page-plain-dictionary", good, 2, 0, edit(func(h *pageHeader) { h.encoding = encPlainDictV1 }), ""},
		{"def-levels-bit-packed", good, 0, 0, edit(func(h *pageHeader) { h.defEncoding = 4 }), ""},
		{"rep-levels-bit-packed", good, 1, 0, edit(func(h *pageHeader) { h.repEncoding = 4 }), ""},
		{"level-encoding", good, 1, 0, edit(func(h *pageHeader) { h.repEncoding = encPlainDictV1 }),
			"row group 0, column label: not a supported Parquet file: level encodings 3, 2 are not supported"},
		{"def-level-encoding", good, 1, 0, edit(func(h *pageHeader) { h.defEncoding = 0 }),
			"row group 0, column label: not a supported Parquet file: level encodings 0, 3 are not supported"},
		{"second-page-values", twoPages, 0, 1, edit(func(h *pageHeader) { h.numValues++ }),
			"row group 0, column v: not a supported Parquet file: data page of 8929 values after 131072 of 140000"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := withPageN(t, c.file, c.col, c.skip, c.edit)
			got, err := readAll(b)
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if bytes.Equal(c.file, good) {
					sameGroups(t, got, groups)
				}
				return
			}
			off, _, n := pageAt(t, b, c.col, c.skip)
			want := c.want
			if strings.Contains(want, "%d") {
				want = fmt.Sprintf(want, off+int64(n))
			}
			if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v, want %q", err, want)
			}
		})
	}
}

// indexPage is an INDEX_PAGE (page type 1, which parquet.thrift reserves
// and no writer makes) whose body is not Snappy data.
func indexPage(badCRC bool) []byte {
	body := []byte("an index page body, not Snappy")
	h := pageHeader{typ: 1, uncompressedSize: int32(len(body)), compressedSize: int32(len(body)),
		hasCRC: true, crc: int32(crc32.ChecksumIEEE(body))}
	if badCRC {
		h.crc++
	}
	var e encoder
	h.encode(&e)
	return append(e.buf, body...)
}

// TestIndexPagesSkipped: index pages before a chunk's first page, between
// its dictionary page and first data page, and between two data pages are
// skipped, their bodies not decompressed, and the values read back; an
// index page's CRC is checked all the same; one after the last data page
// is refused, as bytes after the chunk's values. Mutation controls, each
// of which made cases fail: the index page case removed (refused as page
// type 1) or negated; its continue as break (which leaves the switch
// only: the body is decompressed as a page's); the CRC check skipped for
// index pages ("bad-crc" reads back).
func TestIndexPagesSkipped(t *testing.T) {
	good, groups := smallFile(t)
	long := make([]int64, 140000)
	for i := range long {
		long[i] = int64(i) * 7
	}
	twoPages := ourWrite(t, []Column{{"v", Int64}}, []group{{long}})
	// before puts an index page before the page after the first skip
	// pages of row group 0's column col; after puts it after that page.
	before := func(b []byte, col, skip int, badCRC bool) []byte {
		return withPageN(t, b, col, skip, func(h *pageHeader, data []byte) (pageHeader, []byte) {
			nh, body := compressed(*h, data)
			var e encoder
			nh.encode(&e)
			ip := indexPage(badCRC)
			// The index page's header is the replaced page's; the page
			// itself follows the index page's body.
			d := &decoder{buf: ip}
			var ih pageHeader
			ih.decode(d)
			return ih, append(append(ip[d.pos:], e.buf...), body...)
		})
	}
	after := func(b []byte, col, skip int) []byte {
		return withPageN(t, b, col, skip, func(h *pageHeader, data []byte) (pageHeader, []byte) {
			nh, body := compressed(*h, data)
			return nh, append(body, indexPage(false)...)
		})
	}
	for _, c := range []struct {
		name string
		file []byte
		want []group
		err  string
	}{
		{"chunk-start", before(good, 0, 0, false), groups, ""},
		{"after-dictionary", before(good, 2, 1, false), groups, ""},
		{"between-data-pages", before(twoPages, 0, 1, false), []group{{long}}, ""},
		{"bad-crc", before(good, 3, 0, true), nil, "row group 0, column f1: not a supported Parquet file: page at byte 235: CRC mismatch"},
		{"after-last-page", after(good, 1, 0), nil, "row group 0, column label: not a supported Parquet file: %d bytes after the column chunk's 3 values"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := readAll(c.file)
			if c.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				sameGroups(t, got, c.want)
				return
			}
			want := strings.ReplaceAll(c.err, "%d", fmt.Sprint(len(indexPage(false))))
			if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v, want %q", err, want)
			}
		})
	}
}
