package ingest

import (
	"fmt"
	"io"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// writerName is recorded in Manifest.Writer and in the Parquet footer.
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

// documentsSchema is the Arrow schema of documents.parquet.
func documentsSchema(nfeat int, cs *commentSchema) *arrow.Schema {
	fields := []arrow.Field{
		{Name: "qid", Type: arrow.PrimitiveTypes.Int64},
		{Name: "doc", Type: arrow.PrimitiveTypes.Int32},
		{Name: "label", Type: arrow.PrimitiveTypes.Int32},
		{Name: "part", Type: arrow.BinaryTypes.String},
	}
	for j := 1; j <= nfeat; j++ {
		fields = append(fields, arrow.Field{Name: "f" + strconv.Itoa(j), Type: arrow.PrimitiveTypes.Float64})
	}
	for k, name := range cs.columns() {
		var t arrow.DataType = arrow.BinaryTypes.String
		if cs.isNumeric(k) {
			t = arrow.PrimitiveTypes.Float64
		}
		fields = append(fields, arrow.Field{Name: name, Type: t})
	}
	return arrow.NewSchema(fields, nil)
}

// docsWriter writes row groups of documents.parquet.
type docsWriter interface {
	writeRowGroup(rg *rowGroup) error
	close() error
}

// arrowWriter writes documents.parquet with arrow-go's pqarrow.
type arrowWriter struct {
	schema *arrow.Schema
	fw     *pqarrow.FileWriter
	parts  *[]string
	mem    memory.Allocator
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

func newArrowWriter(w io.Writer, nfeat int, cs *commentSchema, parts *[]string, rowGroupRows int) (*arrowWriter, error) {
	schema := documentsSchema(nfeat, cs)
	stringCols := []string{"part"}
	for k, name := range cs.columns() {
		if !cs.isNumeric(k) {
			stringCols = append(stringCols, name)
		}
	}
	fw, err := pqarrow.NewFileWriter(schema, w, writerProperties(rowGroupRows, stringCols), pqarrow.DefaultWriterProps())
	if err != nil {
		return nil, fmt.Errorf("parquet writer: %w", err)
	}
	return &arrowWriter{schema: schema, fw: fw, parts: parts, mem: memory.DefaultAllocator}, nil
}

// primitive wraps a Go slice as an Arrow array without copying.
func primitive[T int32 | int64 | float64](dt arrow.DataType, v []T) arrow.Array {
	var b []byte
	if len(v) > 0 {
		b = arrow.GetBytes(v)
	}
	data := array.NewData(dt, len(v), []*memory.Buffer{nil, memory.NewBufferBytes(b)}, nil, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

func (a *arrowWriter) strings(vals []string) arrow.Array {
	b := array.NewStringBuilder(a.mem)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewArray()
}

func (a *arrowWriter) writeRowGroup(rg *rowGroup) error {
	cols := make([]arrow.Array, 0, len(a.schema.Fields()))
	cols = append(cols,
		primitive(arrow.PrimitiveTypes.Int64, rg.qid),
		primitive(arrow.PrimitiveTypes.Int32, rg.doc),
		primitive(arrow.PrimitiveTypes.Int32, rg.label),
	)
	names := *a.parts
	pb := array.NewStringBuilder(a.mem)
	for _, p := range rg.part {
		pb.Append(names[p])
	}
	cols = append(cols, pb.NewArray())
	pb.Release()
	for _, x := range rg.x {
		cols = append(cols, primitive(arrow.PrimitiveTypes.Float64, x))
	}
	for k := range rg.cstr {
		if rg.cnum[k] != nil {
			cols = append(cols, primitive(arrow.PrimitiveTypes.Float64, rg.cnum[k]))
		} else {
			cols = append(cols, a.strings(rg.cstr[k]))
		}
	}
	rec := array.NewRecordBatch(a.schema, cols, int64(rg.n))
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	if err := a.fw.Write(rec); err != nil {
		return fmt.Errorf("write row group: %w", err)
	}
	return nil
}

func (a *arrowWriter) close() error {
	if err := a.fw.Close(); err != nil {
		return fmt.Errorf("close parquet writer: %w", err)
	}
	return nil
}
