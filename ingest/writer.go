package ingest

import (
	"fmt"
	"io"
	"strconv"
	"unsafe"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// writerName is recorded in Manifest.Writer and in the Parquet footer
// (created_by). It names the file layout rather than the code path:
// documents.parquet is byte-for-byte what arrow-go v18's pqarrow wrote
// before the writer moved to arrow-go's column writers (TestDocumentsBytes
// pins it), so it stays unchanged while the bytes do. A new name would
// change every dataset's documents_sha256, and with it the ltr run ids and
// the validity of fitted theta* and partition artifacts.
const writerName = "fedbandit ingest (arrow-go v18 pqarrow)"

// defaultRowGroupRows is the number of rows per Parquet row group.
const defaultRowGroupRows = 1 << 16

// rowGroup is a column-major block of documents, written as one Parquet
// row group.
type rowGroup struct {
	n     int
	qid   []int64
	doc   []int32
	label []int32
	part  []int32     // index into the writer's part names
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
// a STRING byte array, f1..fN DOUBLE, then the comment columns (STRING or
// DOUBLE); every column required, no field ids, under a root group named
// and repeated as props says. It is the schema pqarrow derived from the
// Arrow schema of the earlier writer, node for node.
func documentsSchema(nfeat int, cs *commentSchema, props *parquet.WriterProperties) (*schema.GroupNode, error) {
	var nodes schema.FieldList
	add := func(name string, lt schema.LogicalType, t parquet.Type) error {
		n, err := schema.NewPrimitiveNodeLogical(name, parquet.Repetitions.Required, lt, t, -1, -1)
		if err != nil {
			return fmt.Errorf("parquet schema: column %s: %w", name, err)
		}
		nodes = append(nodes, n)
		return nil
	}
	str := func(name string) error { return add(name, schema.StringLogicalType{}, parquet.Types.ByteArray) }
	double := func(name string) error { return add(name, schema.NoLogicalType{}, parquet.Types.Double) }
	if err := add("qid", schema.NewIntLogicalType(64, true), parquet.Types.Int64); err != nil {
		return nil, err
	}
	if err := add("doc", schema.NewIntLogicalType(32, true), parquet.Types.Int32); err != nil {
		return nil, err
	}
	if err := add("label", schema.NewIntLogicalType(32, true), parquet.Types.Int32); err != nil {
		return nil, err
	}
	if err := str("part"); err != nil {
		return nil, err
	}
	for j := 1; j <= nfeat; j++ {
		if err := double("f" + strconv.Itoa(j)); err != nil {
			return nil, err
		}
	}
	for k, name := range cs.columns() {
		add := str
		if cs.isNumeric(k) {
			add = double
		}
		if err := add(name); err != nil {
			return nil, err
		}
	}
	return schema.NewGroupNode(props.RootName(), props.RootRepetition(), nodes, -1)
}

// stringColumns names the byte-array columns: part and the string comment
// columns.
func stringColumns(cs *commentSchema) []string {
	cols := []string{"part"}
	for k, name := range cs.columns() {
		if !cs.isNumeric(k) {
			cols = append(cols, name)
		}
	}
	return cols
}

// docsWriter writes row groups of documents.parquet.
type docsWriter interface {
	writeRowGroup(rg *rowGroup) error
	close() error
}

// documentsCodec compresses the pages of documents.parquet.
var documentsCodec = compress.Codecs.Snappy

// writerProperties are the Parquet settings of documents.parquet: Snappy
// pages; plain encoding for the numeric columns (dictionary encoding of
// float64 features cost ~40% more CPU and slowed Load 2x for a 5% smaller
// file, see docs/bench/ingest.md); dictionary encoding for the string
// columns; column statistics; a constant created_by and no timestamps, so
// the bytes depend on the data only.
func writerProperties(rowGroupRows int, stringCols []string) *parquet.WriterProperties {
	opts := []parquet.WriterProperty{
		parquet.WithCompression(documentsCodec),
		parquet.WithDictionaryDefault(false),
		parquet.WithMaxRowGroupLength(int64(rowGroupRows)),
		parquet.WithCreatedBy(writerName),
		parquet.WithStats(true),
	}
	for _, c := range stringCols {
		opts = append(opts, parquet.WithDictionaryFor(c, true))
	}
	return parquet.NewWriterProperties(opts...)
}

// columnWriter writes documents.parquet with arrow-go's Parquet column
// writers (parquet/file), one row group per call, each column in one
// batch straight from the row group's slices.
type columnWriter struct {
	fw    *file.Writer
	parts *[]string
	// partBytes[i] is (*parts)[i] as a byte array, made once per name.
	partBytes []parquet.ByteArray
	// byteBuf holds one column of byte arrays at a time.
	byteBuf []parquet.ByteArray
}

// newColumnWriter starts documents.parquet on w. parts holds the part names
// that rowGroup.part indexes; it may grow between row groups.
func newColumnWriter(w io.Writer, nfeat int, cs *commentSchema, parts *[]string, rowGroupRows int) (*columnWriter, error) {
	props := writerProperties(rowGroupRows, stringColumns(cs))
	root, err := documentsSchema(nfeat, cs, props)
	if err != nil {
		return nil, err
	}
	// An empty, non-nil key-value list, as pqarrow passed: the footer then
	// has an empty key_value_metadata field, not none.
	fw, err := file.NewParquetWriterWithError(w, root, file.WithWriterProps(props), file.WithWriteMetadata(metadata.KeyValueMetadata{}))
	if err != nil {
		return nil, fmt.Errorf("parquet writer: %w", err)
	}
	return &columnWriter{fw: fw, parts: parts}, nil
}

// bytesOf views s as a byte array without copying; the writer only reads
// it. The empty string is a non-nil empty array: the column statistics
// skip a nil one as if it were no value, and would miss an empty minimum.
func bytesOf(s string) parquet.ByteArray {
	if s == "" {
		return parquet.ByteArray{}
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

func (c *columnWriter) writeRowGroup(rg *rowGroup) error {
	if err := c.writeColumns(rg); err != nil {
		return fmt.Errorf("write row group: %w", err)
	}
	return nil
}

func (c *columnWriter) writeColumns(rg *rowGroup) error {
	for i := len(c.partBytes); i < len(*c.parts); i++ {
		c.partBytes = append(c.partBytes, parquet.ByteArray((*c.parts)[i]))
	}
	rgw, err := c.fw.AppendRowGroupChecked()
	if err != nil {
		return err
	}
	next := func() (file.ColumnChunkWriter, error) { return rgw.NextColumn() }
	if err := writeColumn(next, rg.qid); err != nil {
		return err
	}
	if err := writeColumn(next, rg.doc); err != nil {
		return err
	}
	if err := writeColumn(next, rg.label); err != nil {
		return err
	}
	c.byteBuf = c.byteBuf[:0]
	for _, p := range rg.part {
		c.byteBuf = append(c.byteBuf, c.partBytes[p])
	}
	if err := writeColumn(next, c.byteBuf); err != nil {
		return err
	}
	for _, x := range rg.x {
		if err := writeColumn(next, x); err != nil {
			return err
		}
	}
	for k := range rg.cstr {
		if rg.cnum[k] != nil {
			if err := writeColumn(next, rg.cnum[k]); err != nil {
				return err
			}
			continue
		}
		c.byteBuf = c.byteBuf[:0]
		for _, s := range rg.cstr[k] {
			c.byteBuf = append(c.byteBuf, bytesOf(s))
		}
		if err := writeColumn(next, c.byteBuf); err != nil {
			return err
		}
	}
	clear(c.byteBuf) // drop the references to the row group's strings
	return rgw.Close()
}

// batchWriter is the typed column chunk writer for values of type T.
type batchWriter[T any] interface {
	WriteBatch(values []T, defLevels, repLevels []int16) (int64, error)
}

// writeColumn writes vals as the next column chunk of the row group.
func writeColumn[T int32 | int64 | float64 | parquet.ByteArray](next func() (file.ColumnChunkWriter, error), vals []T) error {
	cw, err := next()
	if err != nil {
		return err
	}
	w, ok := cw.(batchWriter[T])
	if !ok {
		return fmt.Errorf("column %s: writer %T does not take %T", cw.Descr().Name(), cw, vals)
	}
	if _, err := w.WriteBatch(vals, nil, nil); err != nil {
		return fmt.Errorf("column %s: %w", cw.Descr().Name(), err)
	}
	return nil
}

func (c *columnWriter) close() error {
	if err := c.fw.Close(); err != nil {
		return fmt.Errorf("close parquet writer: %w", err)
	}
	return nil
}
