package ingest

import (
	"fmt"
	"io"
	"strconv"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// This file keeps an earlier writer of documents.parquet (arrow-go
// v18.8.0's parquet/file column writers, whose files were byte for byte
// those of release 98ad0ae) as a second, independent writer: the Parquet
// input tests ingest its files (other codecs, other row groups) and must
// get the dataset of the text, and BenchmarkWriter compares it with ours.

// arrowDocumentsSchema is the Parquet schema of documents.parquet (datasets.md):
// qid INT64 and doc, label INT32 with the signed-integer logical type, part
// a STRING byte array, f1..fN DOUBLE, then the comment columns (STRING or
// DOUBLE); every column required, no field ids, under a root group named
// and repeated as props says. It is the schema pqarrow derived from the
// Arrow schema of the earlier writer, node for node.
func arrowDocumentsSchema(nfeat int, cs *commentSchema, props *parquet.WriterProperties) (*schema.GroupNode, error) {
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

// arrowStringColumns names the byte-array columns: part and the string comment
// columns.
func arrowStringColumns(cs *commentSchema) []string {
	cols := []string{"part"}
	for k, name := range cs.columns() {
		if !cs.isNumeric(k) {
			cols = append(cols, name)
		}
	}
	return cols
}

// arrowCodec compresses the pages of documents.parquet.
var arrowCodec = compress.Codecs.Snappy

// arrowWriterProperties are the Parquet settings of documents.parquet: Snappy
// pages; plain encoding for the numeric columns (dictionary encoding of
// float64 features cost ~40% more CPU and slowed Load 2x for a 5% smaller
// file, see docs/bench/ingest.md); dictionary encoding for the string
// columns; column statistics; a constant created_by and no timestamps, so
// the bytes depend on the data only.
func arrowWriterProperties(rowGroupRows int, stringCols []string) *parquet.WriterProperties {
	opts := []parquet.WriterProperty{
		parquet.WithCompression(arrowCodec),
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

// arrowWriter writes documents.parquet with arrow-go's Parquet column
// writers (parquet/file), one row group per call, each column in one
// batch straight from the row group's slices.
type arrowWriter struct {
	fw *file.Writer
	// partBytes[i] is rowGroup.parts[i] as a byte array, made once per name.
	partBytes []parquet.ByteArray
	// byteBuf holds one column of byte arrays at a time.
	byteBuf []parquet.ByteArray
}

// newArrowWriter starts documents.parquet on w.
func newArrowWriter(w io.Writer, nfeat int, cs *commentSchema, rowGroupRows int) (*arrowWriter, error) {
	props := arrowWriterProperties(rowGroupRows, arrowStringColumns(cs))
	root, err := arrowDocumentsSchema(nfeat, cs, props)
	if err != nil {
		return nil, err
	}
	// An empty, non-nil key-value list, as pqarrow passed: the footer then
	// has an empty key_value_metadata field, not none.
	fw, err := file.NewParquetWriterWithError(w, root, file.WithWriterProps(props), file.WithWriteMetadata(metadata.KeyValueMetadata{}))
	if err != nil {
		return nil, fmt.Errorf("parquet writer: %w", err)
	}
	return &arrowWriter{fw: fw}, nil
}

// arrowBytesOf views s as a byte array without copying; the writer only reads
// it. The empty string is a non-nil empty array: the column statistics
// skip a nil one as if it were no value, and would miss an empty minimum.
func arrowBytesOf(s string) parquet.ByteArray {
	if s == "" {
		return parquet.ByteArray{}
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

func (c *arrowWriter) writeRowGroup(rg *rowGroup) error {
	if err := c.arrowWriteColumns(rg); err != nil {
		return fmt.Errorf("write row group: %w", err)
	}
	return nil
}

func (c *arrowWriter) arrowWriteColumns(rg *rowGroup) error {
	for i := len(c.partBytes); i < len(rg.parts); i++ {
		c.partBytes = append(c.partBytes, parquet.ByteArray(rg.parts[i]))
	}
	rgw, err := c.fw.AppendRowGroupChecked()
	if err != nil {
		return err
	}
	next := func() (file.ColumnChunkWriter, error) { return rgw.NextColumn() }
	if err := arrowWriteColumn(next, rg.qid); err != nil {
		return err
	}
	if err := arrowWriteColumn(next, rg.doc); err != nil {
		return err
	}
	if err := arrowWriteColumn(next, rg.label); err != nil {
		return err
	}
	c.byteBuf = c.byteBuf[:0]
	for _, p := range rg.part {
		c.byteBuf = append(c.byteBuf, c.partBytes[p])
	}
	if err := arrowWriteColumn(next, c.byteBuf); err != nil {
		return err
	}
	for _, x := range rg.x {
		if err := arrowWriteColumn(next, x); err != nil {
			return err
		}
	}
	for k := range rg.cstr {
		if rg.cnum[k] != nil {
			if err := arrowWriteColumn(next, rg.cnum[k]); err != nil {
				return err
			}
			continue
		}
		c.byteBuf = c.byteBuf[:0]
		for _, s := range rg.cstr[k] {
			c.byteBuf = append(c.byteBuf, arrowBytesOf(s))
		}
		if err := arrowWriteColumn(next, c.byteBuf); err != nil {
			return err
		}
	}
	clear(c.byteBuf) // drop the references to the row group's strings
	return rgw.Close()
}

// arrowBatchWriter is the typed column chunk writer for values of type T.
type arrowBatchWriter[T any] interface {
	WriteBatch(values []T, defLevels, repLevels []int16) (int64, error)
}

// arrowWriteColumn writes vals as the next column chunk of the row group.
func arrowWriteColumn[T int32 | int64 | float64 | parquet.ByteArray](next func() (file.ColumnChunkWriter, error), vals []T) error {
	cw, err := next()
	if err != nil {
		return err
	}
	w, ok := cw.(arrowBatchWriter[T])
	if !ok {
		return fmt.Errorf("column %s: writer %T does not take %T", cw.Descr().Name(), cw, vals)
	}
	if _, err := w.WriteBatch(vals, nil, nil); err != nil {
		return fmt.Errorf("column %s: %w", cw.Descr().Name(), err)
	}
	return nil
}

func (c *arrowWriter) close() error {
	if err := c.fw.Close(); err != nil {
		return fmt.Errorf("close parquet writer: %w", err)
	}
	return nil
}

// arrowRowGroups reads documents.parquet at path with arrow-go's
// parquet/file column readers (a reader sharing no code with parquet-go)
// into row groups, with the comment schema its columns after f1..fN give.
// Part names are interned in order of first appearance.
func arrowRowGroups(t *testing.T, path string) ([]*rowGroup, *commentSchema) {
	t.Helper()
	r, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sc := r.MetaData().Schema
	nfeat := 0
	cs := &commentSchema{}
	for c := 4; c < sc.NumColumns(); c++ {
		col := sc.Column(c)
		name := col.Name()
		if name == "f"+strconv.Itoa(nfeat+1) && col.PhysicalType() == parquet.Types.Double {
			nfeat++
			continue
		}
		if name == "comment" {
			cs.raw = true
			continue
		}
		cs.keys = append(cs.keys, name)
		cs.numeric = append(cs.numeric, col.PhysicalType() == parquet.Types.Double)
	}
	var parts []string
	partIdx := map[string]int32{}
	var out []*rowGroup
	for g := 0; g < r.NumRowGroups(); g++ {
		rgr := r.RowGroup(g)
		n := rgr.NumRows()
		rg := newRowGroup(nfeat, cs, int(n))
		rg.n = int(n)
		for c := 0; c < sc.NumColumns(); c++ {
			ccr, err := rgr.Column(c)
			if err != nil {
				t.Fatal(err)
			}
			var got int64
			switch rd := ccr.(type) {
			case *file.Int64ColumnChunkReader:
				rg.qid = rg.qid[:n]
				got, _, err = rd.ReadBatch(n, rg.qid, nil, nil)
			case *file.Int32ColumnChunkReader:
				dst := make([]int32, n)
				got, _, err = rd.ReadBatch(n, dst, nil, nil)
				if c == 1 {
					rg.doc = dst
				} else {
					rg.label = dst
				}
			case *file.Float64ColumnChunkReader:
				dst := make([]float64, n)
				got, _, err = rd.ReadBatch(n, dst, nil, nil)
				if c-4 < nfeat {
					rg.x[c-4] = dst
				} else {
					rg.cnum[c-4-nfeat] = dst
				}
			case *file.ByteArrayColumnChunkReader:
				dst := make([]parquet.ByteArray, n)
				got, _, err = rd.ReadBatch(n, dst, nil, nil)
				strs := make([]string, n)
				for i, b := range dst {
					strs[i] = string(b)
				}
				if c == 3 {
					for _, s := range strs {
						k, ok := partIdx[s]
						if !ok {
							k = int32(len(parts))
							partIdx[s] = k
							parts = append(parts, s)
						}
						rg.part = append(rg.part, k)
					}
				} else {
					rg.cstr[c-4-nfeat] = strs
				}
			default:
				t.Fatalf("column %d: reader %T", c, ccr)
			}
			if err != nil || got != n {
				t.Fatalf("row group %d column %d: %d of %d values: %v", g, c, got, n, err)
			}
		}
		rg.parts = parts
		out = append(out, rg)
	}
	return out, cs
}
