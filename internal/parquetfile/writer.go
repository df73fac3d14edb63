// Package parquetfile writes and reads the flat Parquet files of
// fedbandit (documents.parquet): required INT32, INT64, DOUBLE and STRING
// columns, PLAIN-encoded or dictionary-encoded, in Snappy-compressed v1
// data pages, with statistics.
//
// The writer reproduces, byte for byte, what arrow-go v18.8.0's
// parquet/file column writers make of the same columns with the writer
// properties documents.parquet has always used (Snappy, dictionary
// encoding for the string columns only, statistics, format version 2.6,
// v1 data pages, 1 MiB data page and dictionary page limits, write
// batches of 1024 values). That file's sha256 is pinned (ingest's
// TestDocumentsBytes), and this package's tests compare the two writers
// on many shapes of input. Each rule copied from arrow-go is noted where
// it is implemented.
//
// The reader reads such files and rejects, with an error naming the
// column and row group, anything else: other types, encodings, codecs,
// nesting, optional columns, and corrupt bytes.
package parquetfile

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/klauspost/compress/snappy"
)

// magic starts and ends every Parquet file.
const magic = "PAR1"

// Arrow-go's default writer properties that shape the bytes.
const (
	dataPageSize     = 1 << 20 // a page is cut once its buffered values reach this
	dictPageSizeMax  = 1 << 20 // the dictionary falls back to PLAIN at this size
	writeBatchSize   = 1024    // values are encoded, and the limits checked, per batch
	maxStatsSize     = 4096    // a longer min or max is left out of the statistics
	thriftBufferSize = 4096    // see leakedPrefix
)

// Kind is the type of a column.
type Kind int

const (
	// Int64 is INT64 with the INTEGER(64, signed) logical type.
	Int64 Kind = iota
	// Int32 is INT32 with the INTEGER(32, signed) logical type.
	Int32
	// Double is DOUBLE without a logical type.
	Double
	// String is BYTE_ARRAY with the STRING logical type, dictionary-encoded.
	String
)

func (k Kind) String() string {
	switch k {
	case Int64:
		return "INT64"
	case Int32:
		return "INT32"
	case Double:
		return "DOUBLE"
	case String:
		return "STRING"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Column names and types a column. Every column is required.
type Column struct {
	Name string
	Kind Kind
}

// Writer writes a Parquet file one row group at a time.
type Writer struct {
	w    io.Writer
	pos  int64
	cols []Column
	meta fileMetaData
	err  error

	// per-chunk scratch, reused
	plain   []byte
	page    []byte
	comp    []byte
	indices []int32
}

// NewWriter writes the file's leading magic to w and returns a writer of
// the given columns under a root named "schema"; createdBy goes into the
// footer.
func NewWriter(w io.Writer, cols []Column, createdBy string) (*Writer, error) {
	fw := &Writer{w: w, cols: append([]Column(nil), cols...)}
	fw.meta = fileMetaData{version: 2, createdBy: createdBy}
	fw.meta.schema = append(fw.meta.schema, schemaElement{name: "schema", numChildren: int32(len(cols)), hasChildren: true})
	seen := make(map[string]bool, len(cols))
	for _, c := range cols {
		if seen[c.Name] {
			return nil, fmt.Errorf("parquetfile: duplicate column %q", c.Name)
		}
		seen[c.Name] = true
		el, ok := columnElement(c)
		if !ok {
			return nil, fmt.Errorf("parquetfile: column %q: unknown kind %d", c.Name, c.Kind)
		}
		fw.meta.schema = append(fw.meta.schema, el)
	}
	if err := fw.write([]byte(magic)); err != nil {
		return nil, err
	}
	return fw, nil
}

// columnElement is the schema element of column c: its physical type and
// the converted and logical types of its kind. The reader accepts these
// annotations, or none.
func columnElement(c Column) (schemaElement, bool) {
	el := schemaElement{name: c.Name, hasType: true, hasRep: true, repetition: 0}
	switch c.Kind {
	case Int64:
		el.typ, el.hasConv, el.converted = typeInt64, true, convertedInt64
		el.logical = logicalType{kind: 10, bitWidth: 64, signed: true}
	case Int32:
		el.typ, el.hasConv, el.converted = typeInt32, true, convertedInt32
		el.logical = logicalType{kind: 10, bitWidth: 32, signed: true}
	case Double:
		el.typ = typeDouble
	case String:
		el.typ, el.hasConv, el.converted = typeByteArray, true, convertedUTF8
		el.logical = logicalType{kind: 1}
	default:
		return el, false
	}
	return el, true
}

func (w *Writer) write(b []byte) error {
	if w.err != nil {
		return w.err
	}
	n, err := w.w.Write(b)
	w.pos += int64(n)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	w.err = err
	return err
}

// RowGroup is the row group being written: one call per column, in the
// columns' order, then Close.
type RowGroup struct {
	w    *Writer
	rows int
	rg   rowGroup
	next int
}

// NewRowGroup starts a row group of rows rows.
func (w *Writer) NewRowGroup(rows int) (*RowGroup, error) {
	if w.err != nil {
		return nil, w.err
	}
	if rows <= 0 {
		return nil, fmt.Errorf("parquetfile: row group of %d rows", rows)
	}
	return &RowGroup{w: w, rows: rows}, nil
}

func (g *RowGroup) column(k Kind, n int) (Column, error) {
	if g.next >= len(g.w.cols) {
		return Column{}, fmt.Errorf("parquetfile: row group has only %d columns", len(g.w.cols))
	}
	c := g.w.cols[g.next]
	if c.Kind != k {
		return c, fmt.Errorf("parquetfile: column %s is %s, not %s", c.Name, c.Kind, k)
	}
	if n != g.rows {
		return c, fmt.Errorf("parquetfile: column %s: %d values in a row group of %d rows", c.Name, n, g.rows)
	}
	return c, nil
}

// Int64 writes the next column, which must be of kind Int64.
func (g *RowGroup) Int64(v []int64) error {
	c, err := g.column(Int64, len(v))
	if err != nil {
		return err
	}
	return g.writeFixed(c, typeInt64, len(v), func(lo, hi int, out []byte) []byte {
		for _, x := range v[lo:hi] {
			out = binary.LittleEndian.AppendUint64(out, uint64(x))
		}
		return out
	}, intStats(func(i int) int64 { return v[i] }, 8))
}

// Int32 writes the next column, which must be of kind Int32.
func (g *RowGroup) Int32(v []int32) error {
	c, err := g.column(Int32, len(v))
	if err != nil {
		return err
	}
	return g.writeFixed(c, typeInt32, len(v), func(lo, hi int, out []byte) []byte {
		for _, x := range v[lo:hi] {
			out = binary.LittleEndian.AppendUint32(out, uint32(x))
		}
		return out
	}, intStats(func(i int) int64 { return int64(v[i]) }, 4))
}

// Double writes the next column, which must be of kind Double.
func (g *RowGroup) Double(v []float64) error {
	c, err := g.column(Double, len(v))
	if err != nil {
		return err
	}
	return g.writeFixed(c, typeDouble, len(v), func(lo, hi int, out []byte) []byte {
		for _, x := range v[lo:hi] {
			out = binary.LittleEndian.AppendUint64(out, math.Float64bits(x))
		}
		return out
	}, doubleStats(v))
}

// pageStats accumulates the statistics of one page of a fixed-width
// column; it reports whether the values [lo, hi) have a min and max, and
// their encodings.
type pageStats func(lo, hi int) (min, max []byte, ok bool)

// intStats: signed minimum and maximum.
func intStats(at func(int) int64, size int) pageStats {
	return func(lo, hi int) ([]byte, []byte, bool) {
		mn, mx := at(lo), at(lo)
		for i := lo + 1; i < hi; i++ {
			x := at(i)
			mn, mx = min(mn, x), max(mx, x)
		}
		return leBytes(uint64(mn), size), leBytes(uint64(mx), size), true
	}
}

func leBytes(v uint64, size int) []byte {
	b := make([]byte, 8)
	binary.LittleEndian.PutUint64(b, v)
	return b[:size]
}

// doubleStats: the least and greatest values that are not NaN, none if all
// are NaN; a zero minimum is written as -0 and a zero maximum as +0, as
// arrow-go's Float64Statistics.cleanStat does.
func doubleStats(v []float64) pageStats {
	return func(lo, hi int) ([]byte, []byte, bool) {
		mn, mx := math.Inf(1), math.Inf(-1)
		for _, x := range v[lo:hi] {
			if x < mn {
				mn = x
			}
			if x > mx {
				mx = x
			}
		}
		if mn > mx { // all NaN
			return nil, nil, false
		}
		if mn == 0 {
			mn = math.Copysign(0, -1)
		}
		if mx == 0 {
			mx = 0
		}
		return leBytes(math.Float64bits(mn), 8), leBytes(math.Float64bits(mx), 8), true
	}
}

// chunk accumulates a column chunk's pages and metadata.
type chunk struct {
	cc        columnChunk
	dictStats []encodingStat
	dataStats []encodingStat
	// statistics of the whole chunk
	hasMinMax bool
	min, max  []byte
	less      func(a, b []byte) bool
}

func (ch *chunk) countPage(stats *[]encodingStat, pageType, enc int32) {
	for i := range *stats {
		if (*stats)[i].encoding == enc {
			(*stats)[i].count++
			return
		}
	}
	*stats = append(*stats, encodingStat{pageType: pageType, encoding: enc, count: 1})
}

// mergeStats folds a page's min and max into the chunk's, as arrow-go's
// Statistics.Merge does: a new minimum wins ties, the old maximum does.
func (ch *chunk) mergeStats(min, max []byte) {
	if !ch.hasMinMax {
		ch.min, ch.max, ch.hasMinMax = min, max, true
		return
	}
	if !ch.less(ch.min, min) {
		ch.min = min
	}
	if ch.less(ch.max, max) {
		ch.max = max
	}
}

// encodeStats builds the statistics written for min and max: the signed
// columns also fill the deprecated min and max fields; a value longer than
// maxStatsSize is left out; the null count is always 0.
func encodeStats(min, max []byte, ok, signed bool) statistics {
	s := statistics{hasNullCount: true}
	if ok && len(max) <= maxStatsSize {
		s.maxValue, s.hasMaxV = max, true
		if signed {
			s.max, s.hasMax = max, true
		}
	}
	if ok && len(min) <= maxStatsSize {
		s.minValue, s.hasMinV = min, true
		if signed {
			s.min, s.hasMin = min, true
		}
	}
	return s
}

// writeFixed writes a PLAIN-encoded fixed-width column chunk. appendVals
// appends the PLAIN encoding of values [lo, hi) to out.
func (g *RowGroup) writeFixed(c Column, typ int32, n int, appendVals func(lo, hi int, out []byte) []byte, ps pageStats) error {
	w := g.w
	ch := &chunk{less: lessFixed(typ)}
	ch.cc = columnChunk{typ: typ, path: []string{c.Name}, codec: codecSnappy, encodings: []int32{encPlain, encRLE}}
	// Pages: values are added in batches of writeBatchSize and a page is
	// cut after the batch that brings it to dataPageSize bytes.
	lo := 0
	w.plain = w.plain[:0]
	for b := 0; b < n; b += writeBatchSize {
		hi := min(b+writeBatchSize, n)
		w.plain = appendVals(b, hi, w.plain)
		if len(w.plain) >= dataPageSize || hi == n {
			mn, mx, ok := ps(lo, hi)
			if ok {
				ch.mergeStats(mn, mx)
			}
			if err := w.writeDataPage(ch, w.plain, hi-lo, encPlain, encodeStats(mn, mx, ok, true)); err != nil {
				return fmt.Errorf("column %s: %w", c.Name, err)
			}
			w.plain = w.plain[:0]
			lo = hi
		}
	}
	return g.finishChunk(c, ch, true)
}

func lessFixed(typ int32) func(a, b []byte) bool {
	switch typ {
	case typeInt32:
		return func(a, b []byte) bool {
			return int32(binary.LittleEndian.Uint32(a)) < int32(binary.LittleEndian.Uint32(b))
		}
	case typeInt64:
		return func(a, b []byte) bool {
			return int64(binary.LittleEndian.Uint64(a)) < int64(binary.LittleEndian.Uint64(b))
		}
	default:
		return func(a, b []byte) bool {
			return math.Float64frombits(binary.LittleEndian.Uint64(a)) < math.Float64frombits(binary.LittleEndian.Uint64(b))
		}
	}
}

// writeDataPage compresses and writes a v1 data page of num values.
func (w *Writer) writeDataPage(ch *chunk, data []byte, num int, enc int32, st statistics) error {
	h := w.dataPageHeader(data, num, enc, st)
	return w.writePage(ch, &h, w.comp, pageData)
}

// dataPageHeader compresses data into w.comp and returns its page header.
func (w *Writer) dataPageHeader(data []byte, num int, enc int32, st statistics) pageHeader {
	w.comp = snappy.Encode(w.comp[:cap(w.comp)], data)
	return pageHeader{
		typ: pageData, uncompressedSize: int32(len(data)), compressedSize: int32(len(w.comp)),
		numValues: int32(num), encoding: enc, defEncoding: encRLE, repEncoding: encRLE,
		stats: st, hasStats: true, hasDataHeader: true,
	}
}

// writePage writes a page header and its compressed bytes, and accounts
// for them in the chunk's metadata as arrow-go's serializedPageWriter does.
func (w *Writer) writePage(ch *chunk, h *pageHeader, comp []byte, pageType int32) error {
	var e encoder
	e.buf = w.page[:0]
	h.encode(&e)
	w.page = e.buf
	start := w.pos
	if err := w.write(e.buf); err != nil {
		return err
	}
	if err := w.write(comp); err != nil {
		return err
	}
	hdr := int64(len(e.buf))
	ch.cc.totalUncompressedSize += int64(h.uncompressedSize) + hdr
	ch.cc.totalCompressedSize += hdr + int64(len(comp))
	if pageType == pageDict {
		ch.cc.dictPageOffset, ch.cc.hasDictPageOffset = start, true
		ch.countPage(&ch.dictStats, pageDict, h.encoding)
		return nil
	}
	if len(ch.dataStats) == 0 {
		ch.cc.dataPageOffset = start
	}
	ch.cc.numValues += int64(h.numValues)
	ch.countPage(&ch.dataStats, pageData, h.encoding)
	return nil
}

// finishChunk completes a column chunk's metadata.
func (g *RowGroup) finishChunk(c Column, ch *chunk, signed bool) error {
	w := g.w
	cc := &ch.cc
	if cc.hasDictPageOffset {
		cc.fileOffset = cc.dictPageOffset
	} else {
		cc.fileOffset = cc.dataPageOffset
	}
	// The chunk's statistics come from the merged page statistics, before
	// the size limit is applied.
	cc.stats = encodeStats(ch.min, ch.max, ch.hasMinMax, signed)
	cc.hasStats = true
	cc.encodingStats = append(append([]encodingStat(nil), ch.dictStats...), ch.dataStats...)
	// arrow-go serialises the column chunk to the file after the chunk
	// through a 4 KiB bufio.Writer that is never flushed: nothing reaches
	// the file unless the serialisation is longer than the buffer.
	var e encoder
	e.begin()
	cc.encode(&e)
	e.end()
	if leak := leakedPrefix(&e); leak > 0 {
		if err := w.write(e.buf[:leak]); err != nil {
			return fmt.Errorf("column %s: %w", c.Name, err)
		}
	}
	if w.err != nil {
		return fmt.Errorf("column %s: %w", c.Name, w.err)
	}
	g.rg.columns = append(g.rg.columns, *cc)
	g.next++
	return nil
}

// leakedPrefix is how many leading bytes of e.buf a bufio.Writer of
// thriftBufferSize bytes passes to its writer when Apache Thrift's compact
// protocol writes the struct into it, before the (never made) final Flush:
// the protocol writes every byte through the buffer except binary values,
// each written in one Write call, which bufio passes straight through when
// it is longer than the free space in an empty buffer.
func leakedPrefix(e *encoder) int {
	if len(e.buf) <= thriftBufferSize {
		return 0
	}
	flushed, n := 0, 0 // bytes passed on; bytes buffered
	small := func(k int) {
		for ; k > 0; k-- {
			if n == thriftBufferSize {
				flushed += n
				n = 0
			}
			n++
		}
	}
	pos := 0
	for _, p := range e.payloads {
		small(p[0] - pos)
		k := p[1] - p[0]
		for k > thriftBufferSize-n {
			if n == 0 {
				flushed += k
				k = 0
				break
			}
			k -= thriftBufferSize - n
			flushed += thriftBufferSize
			n = 0
		}
		n += k
		pos = p[1]
	}
	small(len(e.buf) - pos)
	return flushed
}

// Strings writes the next column, which must be of kind String.
func (g *RowGroup) Strings(v []string) error {
	c, err := g.column(String, len(v))
	if err != nil {
		return err
	}
	if err := g.writeStrings(c, v); err != nil {
		return fmt.Errorf("column %s: %w", c.Name, err)
	}
	return nil
}

// writeStrings writes a dictionary-encoded byte-array column chunk the way
// arrow-go's ByteArrayColumnChunkWriter does: the values go in batches of
// writeBatchSize into a dictionary (in order of first appearance) and a
// list of indices; after each batch, a page is cut once the batch brings
// the page's raw size (4+len per value) to dataPageSize, and the dictionary
// falls back to PLAIN once its size (4+len per entry) reaches
// dictPageSizeMax. Dictionary-encoded data pages are held back until the
// dictionary page is written: at the fallback, or when the chunk ends.
//
// So every chunk has a dictionary page. arrow-go drops the dictionary at a
// fallback that comes before any page was cut, but with its default limits
// that never happens: until the first cut, the page holds every value so
// far, so its raw size is at least the dictionary's; the page is checked
// first, and dataPageSize <= dictPageSizeMax. The batch that brings the
// dictionary to its limit therefore cuts a page if none was cut before.
func (g *RowGroup) writeStrings(c Column, v []string) error {
	w := g.w
	ch := &chunk{less: func(a, b []byte) bool { return string(a) < string(b) }}
	ch.cc = columnChunk{typ: typeByteArray, path: []string{c.Name}, codec: codecSnappy}

	dict := make(map[string]int32)
	var entries []string
	dictSize := 0  // 4+len of each entry
	rawSize := 0   // 4+len of each value buffered in the page
	dictOn := true // dictionary encoding active
	fallback := false
	type heldPage struct {
		h    pageHeader
		comp []byte
	}
	var held []heldPage
	w.indices = w.indices[:0]
	w.plain = w.plain[:0]
	lo := 0 // first value of the current page

	writeDict := func() error {
		var data []byte
		for _, s := range entries {
			data = binary.LittleEndian.AppendUint32(data, uint32(len(s)))
			data = append(data, s...)
		}
		comp := snappy.Encode(nil, data)
		h := pageHeader{typ: pageDict, uncompressedSize: int32(len(data)), compressedSize: int32(len(comp)),
			numValues: int32(len(entries)), encoding: encPlain, hasDictHeader: true}
		if err := w.writePage(ch, &h, comp, pageDict); err != nil {
			return err
		}
		for i := range held {
			if err := w.writePage(ch, &held[i].h, held[i].comp, pageData); err != nil {
				return err
			}
		}
		held = nil
		return nil
	}
	flushPage := func(hi int) error {
		mn, mx, ok := stringStats(v[lo:hi])
		if ok {
			ch.mergeStats(mn, mx)
		}
		st := encodeStats(mn, mx, ok, false)
		num := hi - lo
		lo = hi
		if !dictOn {
			err := w.writeDataPage(ch, w.plain, num, encPlain, st)
			w.plain = w.plain[:0]
			return err
		}
		width := 0
		switch len(entries) {
		case 0:
		case 1:
			width = 1
		default:
			width = bitLen(uint32(len(entries) - 1))
		}
		data := append(w.page[:0], byte(width))
		rle := newRLEEncoder(data, width)
		for _, i := range w.indices {
			rle.put(uint64(i))
		}
		data = rle.flush()
		w.page = data
		w.indices = w.indices[:0]
		rawSize = 0
		h := w.dataPageHeader(data, num, encRLEDict, st)
		held = append(held, heldPage{h, append([]byte(nil), w.comp...)})
		return nil
	}

	n := len(v)
	for b := 0; b < n; b += writeBatchSize {
		hi := min(b+writeBatchSize, n)
		if dictOn {
			for _, s := range v[b:hi] {
				i, ok := dict[s]
				if !ok {
					i = int32(len(entries))
					dict[s] = i
					entries = append(entries, s)
					dictSize += 4 + len(s)
				}
				w.indices = append(w.indices, i)
				rawSize += 4 + len(s)
			}
		} else {
			w.plain = appendPlainStrings(w.plain, v[b:hi])
		}
		buffered := len(w.plain)
		if dictOn {
			buffered = rawSize
		}
		if buffered >= dataPageSize {
			if err := flushPage(hi); err != nil {
				return err
			}
		}
		if dictOn && dictSize >= dictPageSizeMax {
			// A page has been cut (see above): held is not empty.
			if err := writeDict(); err != nil {
				return err
			}
			// The values of the page being filled are re-encoded PLAIN.
			for _, i := range w.indices {
				w.plain = binary.LittleEndian.AppendUint32(w.plain, uint32(len(entries[i])))
				w.plain = append(w.plain, entries[i]...)
			}
			w.indices = w.indices[:0]
			dictOn, fallback = false, true
		}
	}
	if dictOn {
		if err := writeDict(); err != nil {
			return err
		}
	}
	if lo < n {
		if err := flushPage(n); err != nil {
			return err
		}
	}
	for i := range held {
		if err := w.writePage(ch, &held[i].h, held[i].comp, pageData); err != nil {
			return err
		}
	}
	ch.cc.encodings = []int32{encRLEDict, encPlain, encRLE}
	if fallback {
		ch.cc.encodings = append(ch.cc.encodings, encPlain)
	}
	return g.finishChunk(c, ch, false)
}

func bitLen(x uint32) int {
	n := 0
	for ; x != 0; x >>= 1 {
		n++
	}
	return n
}

func appendPlainStrings(out []byte, v []string) []byte {
	for _, s := range v {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(s)))
		out = append(out, s...)
	}
	return out
}

// stringStats: the byte-wise least and greatest values.
func stringStats(v []string) (lo, hi []byte, ok bool) {
	if len(v) == 0 {
		return nil, nil, false
	}
	mn, mx := v[0], v[0]
	for _, s := range v[1:] {
		mn, mx = min(mn, s), max(mx, s)
	}
	return []byte(mn), []byte(mx), true
}

// Close ends the row group.
func (g *RowGroup) Close() error {
	if g.next != len(g.w.cols) {
		return fmt.Errorf("parquetfile: row group closed after %d of %d columns", g.next, len(g.w.cols))
	}
	rg := &g.rg
	rg.numRows = int64(g.rows)
	// The ordinal is an i16 in parquet.thrift; arrow-go converts the row
	// group count to it, wrapping after 32,767 row groups, and so does
	// this writer (readers use the ordinal only with encryption).
	rg.ordinal = int16(len(g.w.meta.rowGroups))
	for i, c := range rg.columns {
		if i == 0 {
			rg.fileOffset = c.fileOffset
		}
		rg.totalByteSize += c.totalUncompressedSize
		rg.totalCompressedSize += c.totalCompressedSize
	}
	g.w.meta.rowGroups = append(g.w.meta.rowGroups, *rg)
	g.w.meta.numRows += rg.numRows
	return nil
}

// Close writes the footer. It does not close the underlying writer.
func (w *Writer) Close() error {
	var e encoder
	w.meta.encode(&e)
	e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(len(e.buf)))
	e.buf = append(e.buf, magic...)
	return w.write(e.buf)
}
