package ingest

import (
	"fmt"
	"io"
	"strconv"

	"github.com/fedbandit/fedbandit/internal/parquetfile"
)

// writerName is recorded in Manifest.Writer and in the Parquet footer
// (created_by). It names the file layout rather than the code path:
// documents.parquet is byte-for-byte what arrow-go v18's pqarrow wrote
// before the writer moved to arrow-go's column writers and then to
// internal/parquetfile (TestDocumentsBytes pins it), so it stays unchanged
// while the bytes do. A new name would
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

// documentsColumns are the columns of documents.parquet (datasets.md): qid
// INT64 and doc, label INT32 with the signed-integer logical type, part a
// dictionary-encoded STRING, f1..fN DOUBLE, then the comment columns
// (STRING or DOUBLE); every column required.
func documentsColumns(nfeat int, cs *commentSchema) []parquetfile.Column {
	cols := []parquetfile.Column{
		{Name: "qid", Kind: parquetfile.Int64},
		{Name: "doc", Kind: parquetfile.Int32},
		{Name: "label", Kind: parquetfile.Int32},
		{Name: "part", Kind: parquetfile.String},
	}
	for j := 1; j <= nfeat; j++ {
		cols = append(cols, parquetfile.Column{Name: "f" + strconv.Itoa(j), Kind: parquetfile.Double})
	}
	for k, name := range cs.columns() {
		kind := parquetfile.String
		if cs.isNumeric(k) {
			kind = parquetfile.Double
		}
		cols = append(cols, parquetfile.Column{Name: name, Kind: kind})
	}
	return cols
}

// docsWriter writes row groups of documents.parquet.
type docsWriter interface {
	writeRowGroup(rg *rowGroup) error
	close() error
}

// columnWriter writes documents.parquet with internal/parquetfile, one row
// group per call.
type columnWriter struct {
	fw    *parquetfile.Writer
	parts *[]string
	// strBuf holds the part column of one row group.
	strBuf []string
}

// newColumnWriter starts documents.parquet on w. parts holds the part names
// that rowGroup.part indexes; it may grow between row groups. The row
// group size (the last argument, in newDocsWriter's signature) is the
// caller's: the writer writes the row groups it is given.
func newColumnWriter(w io.Writer, nfeat int, cs *commentSchema, parts *[]string, _ int) (*columnWriter, error) {
	fw, err := parquetfile.NewWriter(w, documentsColumns(nfeat, cs), writerName)
	if err != nil {
		return nil, fmt.Errorf("parquet writer: %w", err)
	}
	return &columnWriter{fw: fw, parts: parts}, nil
}

func (c *columnWriter) writeRowGroup(rg *rowGroup) error {
	if err := c.writeColumns(rg); err != nil {
		return fmt.Errorf("write row group: %w", err)
	}
	return nil
}

func (c *columnWriter) writeColumns(rg *rowGroup) error {
	g, err := c.fw.NewRowGroup(rg.n)
	if err != nil {
		return err
	}
	if err := g.Int64(rg.qid); err != nil {
		return err
	}
	if err := g.Int32(rg.doc); err != nil {
		return err
	}
	if err := g.Int32(rg.label); err != nil {
		return err
	}
	c.strBuf = c.strBuf[:0]
	for _, p := range rg.part {
		c.strBuf = append(c.strBuf, (*c.parts)[p])
	}
	if err := g.Strings(c.strBuf); err != nil {
		return err
	}
	for _, x := range rg.x {
		if err := g.Double(x); err != nil {
			return err
		}
	}
	for k := range rg.cstr {
		if rg.cnum[k] != nil {
			err = g.Double(rg.cnum[k])
		} else {
			err = g.Strings(rg.cstr[k])
		}
		if err != nil {
			return err
		}
	}
	return g.Close()
}

func (c *columnWriter) close() error {
	if err := c.fw.Close(); err != nil {
		return fmt.Errorf("close parquet writer: %w", err)
	}
	return nil
}
