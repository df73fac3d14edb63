package ingest

import (
	"fmt"
	"io"
	"strconv"

	"github.com/klauspost/compress/s2"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/fedbandit/fedbandit/internal/pqgroup"
)

// writerName is recorded in Manifest.Writer and in the Parquet footer
// (created_by). It names the library that wrote documents.parquet; the
// dataset's identity (Manifest.DataHash) does not depend on it.
const writerName = "fedbandit ingest (parquet-go v0.25.1)"

// defaultRowGroupRows is the number of rows per Parquet row group.
const defaultRowGroupRows = 1 << 16

// rowGroup is a column-major block of documents, written as one Parquet
// row group.
type rowGroup struct {
	n     int
	qid   []int64
	doc   []int32
	label []int32
	part  []int32     // index into parts
	parts []string    // the part names (set by the assembler when it sends the row group)
	x     [][]float64 // x[j] is feature f(j+1)
	cstr  [][]string  // per comment column: values when it is a string column
	cnum  [][]float64 // per comment column: values when it is a double column
}

func newRowGroup(nfeat int, cs *commentSchema, capacity int) *rowGroup {
	rg := &rowGroup{
		qid:   make([]int64, 0, capacity),
		doc:   make([]int32, 0, capacity),
		label: make([]int32, 0, capacity),
		part:  make([]int32, 0, capacity),
		x:     make([][]float64, nfeat),
	}
	for j := range rg.x {
		rg.x[j] = make([]float64, 0, capacity)
	}
	cols := cs.columns()
	rg.cstr = make([][]string, len(cols))
	rg.cnum = make([][]float64, len(cols))
	for k := range cols {
		if cs.isNumeric(k) {
			rg.cnum[k] = make([]float64, 0, capacity)
		} else {
			rg.cstr[k] = make([]string, 0, capacity)
		}
	}
	return rg
}

// isNumeric reports whether comment column k holds doubles.
func (s *commentSchema) isNumeric(k int) bool {
	return !s.raw && s.numeric[k]
}

// documentsSchema is the Parquet schema of documents.parquet (datasets.md):
// qid INT64 and doc, label INT32 with the signed-integer logical type, part
// a dictionary-encoded STRING, f1..fN DOUBLE, then the comment columns
// (STRING or DOUBLE); every column required, in this order.
func documentsSchema(nfeat int, cs *commentSchema) *parquet.Schema {
	g := pqgroup.Group{
		pqgroup.Of("qid", parquet.Int(64)),
		pqgroup.Of("doc", parquet.Int(32)),
		pqgroup.Of("label", parquet.Int(32)),
		pqgroup.Of("part", parquet.Encoded(parquet.String(), &parquet.RLEDictionary)),
	}
	for j := 1; j <= nfeat; j++ {
		g = append(g, pqgroup.Of("f"+strconv.Itoa(j), parquet.Leaf(parquet.DoubleType)))
	}
	for k, name := range cs.columns() {
		var n parquet.Node = parquet.String()
		if cs.isNumeric(k) {
			n = parquet.Leaf(parquet.DoubleType)
		}
		g = append(g, pqgroup.Of(name, n))
	}
	return parquet.NewSchema("schema", g)
}

// docsWriter writes row groups of documents.parquet.
type docsWriter interface {
	writeRowGroup(rg *rowGroup) error
	close() error
}

// columnWriter writes documents.parquet with parquet-go, one row group per
// call, column by column.
type columnWriter struct {
	w    *parquet.Writer
	vals []parquet.Value
	// partBytes caches the part names as byte slices.
	partBytes [][]byte
}

// newColumnWriter starts documents.parquet on w. The row group size (the
// last argument, in newDocsWriter's signature) is the caller's: the writer
// writes the row groups it is given.
func newColumnWriter(w io.Writer, nfeat int, cs *commentSchema, _ int) (*columnWriter, error) {
	pw := parquet.NewWriter(w,
		documentsSchema(nfeat, cs),
		parquet.Compression(fastSnappy{}),
		parquet.CreatedBy(writerName, "", ""),
		parquet.DataPageVersion(1),
		parquet.MaxRowsPerRowGroup(1<<40),
	)
	return &columnWriter{w: pw}, nil
}

func (c *columnWriter) writeRowGroup(rg *rowGroup) error {
	if err := c.writeColumns(rg); err != nil {
		return fmt.Errorf("write row group: %w", err)
	}
	return nil
}

// writeColumns writes each column of rg through its column writer. Every
// column is required and flat, so a value needs no levels: the column
// buffers of required columns read the values only (and
// TestWriterRoundTrip reads every one back).
func (c *columnWriter) writeColumns(rg *rowGroup) error {
	cws := c.w.ColumnWriters()
	ci := 0
	put := func(vals []parquet.Value) error {
		_, err := cws[ci].WriteRowValues(vals)
		c.vals = vals[:0]
		ci++
		return err
	}
	vals := c.vals[:0]
	for _, v := range rg.qid {
		vals = append(vals, parquet.Int64Value(v))
	}
	if err := put(vals); err != nil {
		return err
	}
	for _, col := range [][]int32{rg.doc, rg.label} {
		vals = c.vals
		for _, v := range col {
			vals = append(vals, parquet.Int32Value(v))
		}
		if err := put(vals); err != nil {
			return err
		}
	}
	for len(c.partBytes) < len(rg.parts) {
		c.partBytes = append(c.partBytes, []byte(rg.parts[len(c.partBytes)]))
	}
	vals = c.vals
	for _, p := range rg.part {
		vals = append(vals, parquet.ByteArrayValue(c.partBytes[p]))
	}
	if err := put(vals); err != nil {
		return err
	}
	doubles := func(col []float64) error {
		vals := c.vals
		for _, v := range col {
			vals = append(vals, parquet.DoubleValue(v))
		}
		return put(vals)
	}
	for _, x := range rg.x {
		if err := doubles(x); err != nil {
			return err
		}
	}
	for k := range rg.cstr {
		if rg.cnum[k] != nil {
			if err := doubles(rg.cnum[k]); err != nil {
				return err
			}
			continue
		}
		vals = c.vals
		for _, s := range rg.cstr[k] {
			vals = append(vals, parquet.ByteArrayValue([]byte(s)))
		}
		if err := put(vals); err != nil {
			return err
		}
	}
	return c.w.Flush()
}

func (c *columnWriter) close() error {
	if err := c.w.Close(); err != nil {
		return fmt.Errorf("close parquet writer: %w", err)
	}
	return nil
}

// fastSnappy is Parquet's SNAPPY codec with klauspost's fast Snappy
// encoder (s2.EncodeSnappy): parquet-go's own uses the "better" encoder,
// which cost a third of the write stage for a file 2% smaller. The
// output is standard Snappy; decoding is s2's (it reads Snappy).
type fastSnappy struct{}

func (fastSnappy) String() string                            { return "SNAPPY" }
func (fastSnappy) CompressionCodec() format.CompressionCodec { return format.Snappy }

func (fastSnappy) Encode(dst, src []byte) ([]byte, error) {
	return s2.EncodeSnappy(dst[:cap(dst)], src), nil
}

func (fastSnappy) Decode(dst, src []byte) ([]byte, error) {
	n, err := s2.DecodedLen(src)
	if err != nil {
		return nil, err
	}
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	return s2.Decode(dst[:n], src)
}
