package parquetfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"sync"

	"github.com/klauspost/compress/snappy"
)

// ErrFormat is wrapped by every error about the contents of a file (as
// opposed to an error reading it).
var ErrFormat = errors.New("not a supported Parquet file")

// maxFooterSize bounds the footer the reader accepts (arrow-go's default
// limit on thrift message sizes is 100 MB as well).
const maxFooterSize = 100 << 20

// File is an open Parquet file of flat, required columns.
type File struct {
	r    io.ReaderAt
	f    *os.File // when opened by Open
	name string
	size int64
	meta fileMetaData
	cols []Column
	// dataEnd is where the footer starts: column chunks must end before it.
	dataEnd int64
}

// Open opens the Parquet file at path and reads its footer.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	pf, err := NewFile(f, fi.Size(), path)
	if err != nil {
		f.Close()
		return nil, err
	}
	pf.f = f
	return pf, nil
}

// Close closes the file if Open opened it.
func (f *File) Close() error {
	if f.f != nil {
		return f.f.Close()
	}
	return nil
}

func (f *File) errorf(format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", f.name, ErrFormat, fmt.Sprintf(format, args...))
}

// NewFile reads the footer of the size-byte Parquet file r; name is used
// in errors.
func NewFile(r io.ReaderAt, size int64, name string) (*File, error) {
	f := &File{r: r, name: name, size: size}
	if size < 12 {
		return nil, f.errorf("%d bytes, too short for a Parquet file", size)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var head [4]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if string(head[:]) != magic || string(tail[4:]) != magic {
		return nil, f.errorf("no PAR1 magic at the start and end (an encrypted or truncated file?)")
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n > size-12 || n > maxFooterSize {
		return nil, f.errorf("footer of %d bytes in a file of %d", n, size)
	}
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, size-8-n); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	f.dataEnd = size - 8 - n
	d := &decoder{buf: buf}
	f.meta.decode(d)
	if d.err != nil {
		return nil, f.errorf("footer: %v", d.err)
	}
	if err := f.checkMeta(); err != nil {
		return nil, err
	}
	return f, nil
}

// checkMeta checks that the schema is a root of required primitive columns
// of the supported types and that every row group matches it.
func (f *File) checkMeta() error {
	m := &f.meta
	if len(m.schema) == 0 {
		return f.errorf("empty schema")
	}
	root := m.schema[0]
	if int(root.numChildren) != len(m.schema)-1 {
		return f.errorf("schema root has %d children in a schema of %d elements: nested columns are not supported", root.numChildren, len(m.schema))
	}
	seen := make(map[string]bool)
	for _, el := range m.schema[1:] {
		if el.hasChildren || !el.hasType {
			return f.errorf("column %q: nested columns are not supported", el.name)
		}
		if !el.hasRep || el.repetition != 0 {
			return f.errorf("column %q: not a required column", el.name)
		}
		var k Kind
		switch el.typ {
		case typeInt64:
			k = Int64
		case typeInt32:
			k = Int32
		case typeDouble:
			k = Double
		case typeByteArray:
			k = String
		default:
			return f.errorf("column %q: physical type %d is not supported", el.name, el.typ)
		}
		// An annotation other than the kind's (an unsigned or narrower
		// integer, a date, a decimal, JSON) gives the values another
		// meaning.
		want, _ := columnElement(Column{Kind: k})
		if el.hasConv && (!want.hasConv || el.converted != want.converted) {
			return f.errorf("column %q: converted type %d is not supported for %s", el.name, el.converted, k)
		}
		if el.logical.kind != 0 && el.logical != want.logical {
			return f.errorf("column %q: logical type %+v is not supported for %s", el.name, el.logical, k)
		}
		if seen[el.name] {
			return f.errorf("duplicate column %q", el.name)
		}
		seen[el.name] = true
		f.cols = append(f.cols, Column{Name: el.name, Kind: k})
	}
	var total int64
	for g := range m.rowGroups {
		rg := &m.rowGroups[g]
		if len(rg.columns) != len(f.cols) {
			return f.errorf("row group %d has %d columns, the schema %d", g, len(rg.columns), len(f.cols))
		}
		if rg.numRows < 0 || rg.numRows > math.MaxInt32 {
			return f.errorf("row group %d has %d rows", g, rg.numRows)
		}
		total += rg.numRows
		for i := range rg.columns {
			cc := &rg.columns[i]
			c := f.cols[i]
			where := fmt.Sprintf("row group %d, column %s", g, c.Name)
			switch {
			case !cc.hasMeta:
				return f.errorf("%s: no column metadata", where)
			case len(cc.path) != 1 || cc.path[0] != c.Name:
				return f.errorf("%s: path %q in the metadata", where, cc.path)
			case cc.typ != m.schema[i+1].typ:
				return f.errorf("%s: type %d in the metadata, %d in the schema", where, cc.typ, m.schema[i+1].typ)
			case cc.codec != 0 && cc.codec != codecSnappy:
				return f.errorf("%s: compression codec %d is not supported (only UNCOMPRESSED and SNAPPY)", where, cc.codec)
			case cc.numValues != rg.numRows:
				return f.errorf("%s: %d values in a row group of %d rows", where, cc.numValues, rg.numRows)
			}
			start, end := chunkRange(cc)
			if start < 4 || end < start || end > f.dataEnd {
				return f.errorf("%s: column chunk at bytes %d..%d outside the data (4..%d)", where, start, end, f.dataEnd)
			}
		}
	}
	if total != m.numRows {
		return f.errorf("row groups hold %d rows, the footer says %d", total, m.numRows)
	}
	return nil
}

func chunkRange(cc *columnChunk) (start, end int64) {
	start = cc.dataPageOffset
	if cc.hasDictPageOffset && cc.dictPageOffset < start {
		start = cc.dictPageOffset
	}
	if cc.totalCompressedSize < 0 || start > math.MaxInt64-cc.totalCompressedSize {
		return start, -1
	}
	return start, start + cc.totalCompressedSize
}

// NumRows is the number of rows in the file.
func (f *File) NumRows() int64 { return f.meta.numRows }

// NumRowGroups is the number of row groups.
func (f *File) NumRowGroups() int { return len(f.meta.rowGroups) }

// RowGroupRows is the number of rows in row group g.
func (f *File) RowGroupRows(g int) int { return int(f.meta.rowGroups[g].numRows) }

// Columns returns the file's columns.
func (f *File) Columns() []Column { return f.cols }

// ColumnIndex returns the index of the named column, or -1.
func (f *File) ColumnIndex(name string) int {
	for i, c := range f.cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// CreatedBy is the footer's created_by.
func (f *File) CreatedBy() string { return f.meta.createdBy }

// ReadInt64 reads column col of row group g into dst, which must have the
// row group's length.
func (f *File) ReadInt64(g, col int, dst []int64) error {
	return f.readFixed(g, col, Int64, len(dst), 8, func(off int, b []byte) {
		for i := range len(b) / 8 {
			dst[off+i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
		}
	})
}

// ReadInt32 reads column col of row group g into dst.
func (f *File) ReadInt32(g, col int, dst []int32) error {
	return f.readFixed(g, col, Int32, len(dst), 4, func(off int, b []byte) {
		for i := range len(b) / 4 {
			dst[off+i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
		}
	})
}

// ReadDouble reads column col of row group g into dst.
func (f *File) ReadDouble(g, col int, dst []float64) error {
	return f.readFixed(g, col, Double, len(dst), 8, func(off int, b []byte) {
		for i := range len(b) / 8 {
			dst[off+i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
	})
}

// ReadStrings reads column col of row group g into dst. Values from a
// dictionary share the dictionary's strings.
func (f *File) ReadStrings(g, col int, dst []string) error {
	var dict []string
	return f.readChunk(g, col, String, len(dst), func(h *pageHeader, data []byte, off int) error {
		n := int(h.numValues)
		switch {
		case h.typ == pageDict:
			if dict != nil || off > 0 {
				return errors.New("a second dictionary page, or one after data pages")
			}
			var err error
			if dict, err = decodePlainStrings(data, n, nil); err != nil {
				return fmt.Errorf("dictionary page: %w", err)
			}
			return nil
		case h.encoding == encPlain:
			_, err := decodePlainStrings(data, n, dst[off:off+n])
			return err
		case h.encoding == encRLEDict || h.encoding == encPlainDictV1:
			if dict == nil {
				return errors.New("dictionary-encoded page without a dictionary page")
			}
			if len(data) < 1 {
				return fmt.Errorf("%w: empty page", errRLE)
			}
			idx := make([]int32, n)
			if err := decodeRLE(data[1:], int(data[0]), idx, len(dict)); err != nil {
				return err
			}
			for i, j := range idx {
				dst[off+i] = dict[j]
			}
			return nil
		}
		return fmt.Errorf("encoding %d is not supported", h.encoding)
	})
}

// decodePlainStrings decodes n PLAIN byte arrays from data into dst (or a
// new slice if dst is nil); the strings share one copy of data.
func decodePlainStrings(data []byte, n int, dst []string) ([]string, error) {
	if dst == nil {
		if n > len(data)/4 {
			return nil, fmt.Errorf("%d values in %d bytes", n, len(data))
		}
		dst = make([]string, n)
	}
	all := string(data)
	p := 0
	for i := range n {
		if len(all)-p < 4 {
			return nil, fmt.Errorf("value %d of %d: data ends", i, n)
		}
		l := int(binary.LittleEndian.Uint32(data[p:]))
		p += 4
		if l < 0 || l > len(all)-p {
			return nil, fmt.Errorf("value %d of %d: length %d past the end of the page", i, n, l)
		}
		dst[i] = all[p : p+l]
		p += l
	}
	if p != len(all) {
		return nil, fmt.Errorf("%d bytes after the page's %d values", len(all)-p, n)
	}
	return dst, nil
}

// readFixed reads a PLAIN-encoded fixed-width column.
func (f *File) readFixed(g, col int, k Kind, n, size int, put func(off int, b []byte)) error {
	return f.readChunk(g, col, k, n, func(h *pageHeader, data []byte, off int) error {
		if h.typ == pageDict {
			return errors.New("dictionary page in a column of fixed-width values (only PLAIN is supported)")
		}
		if h.encoding != encPlain {
			return fmt.Errorf("encoding %d is not supported (only PLAIN)", h.encoding)
		}
		if len(data) != int(h.numValues)*size {
			return fmt.Errorf("%d bytes for %d values of %d bytes", len(data), h.numValues, size)
		}
		put(off, data)
		return nil
	})
}

// chunkBufs are a column chunk's bytes and a decompressed page, reused
// across reads (Load reads a thousand chunks of half a megabyte).
type chunkBufs struct{ raw, dec []byte }

var bufPool = sync.Pool{New: func() any { return new(chunkBufs) }}

// pageFunc handles a decompressed page; off is the number of values in
// earlier data pages. It must not keep data.
type pageFunc func(h *pageHeader, data []byte, off int) error

// readChunk reads the pages of column col of row group g, which must hold
// exactly n values of kind k, calling page for each.
func (f *File) readChunk(g, col int, k Kind, n int, page pageFunc) error {
	if g < 0 || g >= len(f.meta.rowGroups) || col < 0 || col >= len(f.cols) {
		return fmt.Errorf("%s: no row group %d, column %d", f.name, g, col)
	}
	c := f.cols[col]
	err := f.readChunkPages(g, col, k, n, page)
	if err != nil {
		return fmt.Errorf("%s: row group %d, column %s: %w", f.name, g, c.Name, err)
	}
	return nil
}

func (f *File) readChunkPages(g, col int, k Kind, n int, page pageFunc) error {
	c := f.cols[col]
	if c.Kind != k {
		return fmt.Errorf("column is %s, read as %s", c.Kind, k)
	}
	rg := &f.meta.rowGroups[g]
	if int64(n) != rg.numRows {
		return fmt.Errorf("reading %d values of a row group of %d rows", n, rg.numRows)
	}
	cc := &rg.columns[col]
	start, end := chunkRange(cc)
	bufs := bufPool.Get().(*chunkBufs)
	defer bufPool.Put(bufs)
	if int64(cap(bufs.raw)) < end-start {
		bufs.raw = make([]byte, end-start)
	}
	buf := bufs.raw[:end-start]
	if _, err := f.r.ReadAt(buf, start); err != nil {
		return err
	}
	// Pages are decompressed into dec; page functions copy what they keep.
	dec := bufs.dec
	defer func() { bufs.dec = dec }()
	got := 0
	pos := 0
	for got < n {
		if pos >= len(buf) {
			return fmt.Errorf("%w: column chunk ends after %d of %d values", ErrFormat, got, n)
		}
		d := &decoder{buf: buf[pos:]}
		var h pageHeader
		h.decode(d)
		if d.err != nil {
			return fmt.Errorf("%w: page header at byte %d: %v", ErrFormat, start+int64(pos), d.err)
		}
		pos += d.pos
		if h.compressedSize < 0 || int(h.compressedSize) > len(buf)-pos || h.uncompressedSize < 0 || h.numValues < 0 {
			return fmt.Errorf("%w: page at byte %d: compressed size %d, uncompressed size %d, %d values, %d bytes left in the column chunk",
				ErrFormat, start+int64(pos), h.compressedSize, h.uncompressedSize, h.numValues, len(buf)-pos)
		}
		raw := buf[pos : pos+int(h.compressedSize)]
		pos += int(h.compressedSize)
		if h.hasCRC && int32(crc32.ChecksumIEEE(raw)) != h.crc {
			return fmt.Errorf("%w: page at byte %d: CRC mismatch", ErrFormat, start+int64(pos)-int64(len(raw)))
		}
		switch {
		case h.typ == pageDict && h.hasDictHeader:
			if h.encoding != encPlain && h.encoding != encPlainDictV1 {
				return fmt.Errorf("%w: dictionary page encoding %d is not supported", ErrFormat, h.encoding)
			}
		case h.typ == pageData && h.hasDataHeader:
			if h.defEncoding != encRLE && h.defEncoding != 4 || h.repEncoding != encRLE && h.repEncoding != 4 {
				// Levels of required flat columns take no bytes; the level
				// encodings are RLE or BIT_PACKED by convention only.
				return fmt.Errorf("%w: level encodings %d, %d are not supported", ErrFormat, h.defEncoding, h.repEncoding)
			}
			if int(h.numValues) > n-got {
				return fmt.Errorf("%w: data page of %d values after %d of %d", ErrFormat, h.numValues, got, n)
			}
		case h.typ == 1: // index page: skipped (after the last data page, trailing bytes)
			continue
		default:
			return fmt.Errorf("%w: page type %d is not supported (only v1 data pages and dictionary pages)", ErrFormat, h.typ)
		}
		data := raw
		if cc.codec == codecSnappy {
			dl, err := snappy.DecodedLen(raw)
			if err != nil || dl != int(h.uncompressedSize) {
				return fmt.Errorf("%w: page at byte %d: bad Snappy data (%d bytes, header says %d uncompressed)", ErrFormat, start+int64(pos)-int64(len(raw)), dl, h.uncompressedSize)
			}
			if cap(dec) < dl {
				dec = make([]byte, dl)
			}
			if data, err = snappy.Decode(dec[:dl], raw); err != nil || len(data) != dl {
				return fmt.Errorf("%w: page at byte %d: bad Snappy data: %v", ErrFormat, start+int64(pos)-int64(len(raw)), err)
			}
		} else if len(raw) != int(h.uncompressedSize) {
			return fmt.Errorf("%w: uncompressed page of %d bytes, header says %d", ErrFormat, len(raw), h.uncompressedSize)
		}
		if err := page(&h, data, got); err != nil {
			return fmt.Errorf("%w: page at byte %d: %v", ErrFormat, start+int64(pos)-int64(len(raw)), err)
		}
		if h.typ == pageData {
			got += int(h.numValues)
		}
	}
	if pos != len(buf) {
		return fmt.Errorf("%w: %d bytes after the column chunk's %d values", ErrFormat, len(buf)-pos, n)
	}
	return nil
}
