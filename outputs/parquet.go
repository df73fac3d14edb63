package outputs

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/parquet-go/parquet-go"

	"github.com/fedbandit/fedbandit/internal/pqgroup"
)

// Parquet copies of the result tables, beside the Arrow files: the same
// columns and types (struct and list columns included) for the readers
// that have no Arrow IPC reader built in (DuckDB without its extension, R
// without arrow, Spark); see outputs/README.md.
const (
	RunsParquetFile   = "runs.parquet"
	CurvesParquetFile = "curves.parquet"
)

// ParquetOf converts an Arrow IPC file (the bytes of a result table) into
// a Parquet file with the same schema (WriteParquet).
func ParquetOf(arrowFile []byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := WriteParquet(&buf, bytes.NewReader(arrowFile), int64(len(arrowFile))); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// parquetChunkRows is how many rows of a record batch are shredded before
// they are handed to the Parquet writer (its row group is still the whole
// batch): the shredded values of a chunk are the conversion's only
// per-row memory besides the writer's encoded pages.
const parquetChunkRows = 4096

// WriteParquet converts the Arrow IPC file src (of size bytes) into a
// Parquet file with the same schema, whatever it is, written to w record
// batch by record batch: it walks the Arrow schema (integers, floats,
// booleans, strings, binary, structs, lists; nullable fields become
// optional columns) and writes every record batch as one row group, with
// the Arrow schema's metadata as the Parquet file's key-value metadata
// and the Arrow schema itself under ArrowSchemaKey.
// It holds one record batch and its row group at a time, never the file
// (a collect converts a curves.arrow of several GB: outputs/README.md,
// "Collect at scale"). A struct without fields has no Parquet form (a
// group needs a field) and is left out. Any other Arrow type is an error.
// Pages are Parquet v2 data pages (parquet-go v0.25.1's v1 pages garble
// optional columns nested in an optional group that hold nulls: DuckDB
// and arrow-go read them as corrupt).
func WriteParquet(w io.Writer, src ipc.ReadAtSeeker, size int64) error {
	r, err := ipc.NewFileReader(src, ipc.WithMetadataSizeLimit(size), ipc.WithBodySizeLimit(size))
	if err != nil {
		return err
	}
	defer r.Close()
	sc := r.Schema()
	root := pqgroup.Group{}
	plans := make([]*pqPlan, len(sc.Fields()))
	leaves := 0
	for i, f := range sc.Fields() {
		node, plan, err := planField(f.Type, f.Nullable, &leaves)
		if err != nil {
			return fmt.Errorf("column %s: %w", f.Name, err)
		}
		if node == nil {
			continue // a struct without fields: no Parquet column
		}
		root = append(root, pqgroup.Of(f.Name, node))
		plans[i] = plan
	}
	opts := []parquet.WriterOption{
		parquet.NewSchema("schema", root),
		parquet.Compression(&parquet.Snappy),
		parquet.CreatedBy("fedbandit outputs (parquet-go v0.25.1)", "", ""),
	}
	md := sc.Metadata()
	for i, k := range md.Keys() {
		opts = append(opts, parquet.KeyValueMetadata(k, md.Values()[i]))
	}
	// The Arrow schema itself, as pyarrow and arrow-go keep it: a reader
	// of Arrow schemas gets the fields' metadata (unit, applies-to,
	// meaning) and nullability back.
	arrowSchema, err := serializeSchema(sc)
	if err != nil {
		return err
	}
	opts = append(opts, parquet.KeyValueMetadata(ArrowSchemaKey, arrowSchema))
	pw := parquet.NewWriter(w, opts...)
	cols := make([][]parquet.Value, leaves)
	// The rows of a chunk, reused chunk after chunk (the writer copies
	// their values into its column buffers).
	rows := make([]parquet.Row, parquetChunkRows)
	for b := 0; b < r.NumRecords(); b++ {
		// The reader's batch is valid until the next call (it reads
		// only that batch's buffers from src).
		rec, err := r.RecordBatch(b)
		if err != nil {
			return fmt.Errorf("record batch %d: %w", b, err)
		}
		n := int(rec.NumRows())
		for lo := 0; lo < n; lo += parquetChunkRows {
			k := 0
			for i := lo; i < min(n, lo+parquetChunkRows); i++ {
				for c := range cols {
					cols[c] = cols[c][:0]
				}
				for j, p := range plans {
					if p != nil {
						p.shred(rec.Column(j), i, 0, 0, 0, cols)
					}
				}
				row := rows[k][:0]
				for _, vs := range cols {
					row = append(row, vs...)
				}
				rows[k] = row
				k++
			}
			if _, err := pw.WriteRows(rows[:k]); err != nil {
				return err
			}
		}
		if n > 0 {
			// The batch's row group, written out.
			if err := pw.Flush(); err != nil {
				return err
			}
		}
	}
	return pw.Close()
}

// pqPlan says how one Arrow field becomes Parquet values: its node's kind,
// whether it is optional, its leaf column (leaf) or children (struct,
// list), and the leaves under it.
type pqPlan struct {
	optional bool
	leaf     int                                      // leaf column index; -1 for a group
	value    func(a arrow.Array, i int) parquet.Value // leaf: the value of row i
	fields   []*pqPlan                                // struct: its non-empty fields
	index    []int                                    // struct: each field's index in the Arrow struct
	elem     *pqPlan                                  // list
	first    int                                      // first leaf under the node
	n        int                                      // number of leaves under it
}

var errUnsupported = errors.New("Arrow type without a Parquet mapping here")

// planField maps an Arrow type to a Parquet node and its plan; leaves
// counts the leaf columns so far.
func planField(t arrow.DataType, nullable bool, leaves *int) (parquet.Node, *pqPlan, error) {
	p := &pqPlan{optional: nullable, leaf: -1, first: *leaves}
	var node parquet.Node
	leaf := func(n parquet.Node, v func(a arrow.Array, i int) parquet.Value) {
		node, p.value, p.leaf = n, v, *leaves
		*leaves++
	}
	switch t := t.(type) {
	case *arrow.Int8Type:
		leaf(parquet.Int(8), func(a arrow.Array, i int) parquet.Value { return parquet.Int32Value(int32(a.(*array.Int8).Value(i))) })
	case *arrow.Int16Type:
		leaf(parquet.Int(16), func(a arrow.Array, i int) parquet.Value { return parquet.Int32Value(int32(a.(*array.Int16).Value(i))) })
	case *arrow.Int32Type:
		leaf(parquet.Int(32), func(a arrow.Array, i int) parquet.Value { return parquet.Int32Value(a.(*array.Int32).Value(i)) })
	case *arrow.Int64Type:
		leaf(parquet.Int(64), func(a arrow.Array, i int) parquet.Value { return parquet.Int64Value(a.(*array.Int64).Value(i)) })
	case *arrow.Uint8Type:
		leaf(parquet.Uint(8), func(a arrow.Array, i int) parquet.Value { return parquet.Int32Value(int32(a.(*array.Uint8).Value(i))) })
	case *arrow.Uint16Type:
		leaf(parquet.Uint(16), func(a arrow.Array, i int) parquet.Value { return parquet.Int32Value(int32(a.(*array.Uint16).Value(i))) })
	case *arrow.Uint32Type:
		leaf(parquet.Uint(32), func(a arrow.Array, i int) parquet.Value { return parquet.Int32Value(int32(a.(*array.Uint32).Value(i))) })
	case *arrow.Uint64Type:
		leaf(parquet.Uint(64), func(a arrow.Array, i int) parquet.Value { return parquet.Int64Value(int64(a.(*array.Uint64).Value(i))) })
	case *arrow.Float32Type:
		leaf(parquet.Leaf(parquet.FloatType), func(a arrow.Array, i int) parquet.Value { return parquet.FloatValue(a.(*array.Float32).Value(i)) })
	case *arrow.Float64Type:
		leaf(parquet.Leaf(parquet.DoubleType), func(a arrow.Array, i int) parquet.Value { return parquet.DoubleValue(a.(*array.Float64).Value(i)) })
	case *arrow.BooleanType:
		leaf(parquet.Leaf(parquet.BooleanType), func(a arrow.Array, i int) parquet.Value { return parquet.BooleanValue(a.(*array.Boolean).Value(i)) })
	case *arrow.StringType:
		leaf(parquet.String(), func(a arrow.Array, i int) parquet.Value {
			return parquet.ByteArrayValue([]byte(a.(*array.String).Value(i)))
		})
	case *arrow.LargeStringType:
		leaf(parquet.String(), func(a arrow.Array, i int) parquet.Value {
			return parquet.ByteArrayValue([]byte(a.(*array.LargeString).Value(i)))
		})
	case *arrow.BinaryType:
		leaf(parquet.Leaf(parquet.ByteArrayType), func(a arrow.Array, i int) parquet.Value {
			return parquet.ByteArrayValue(a.(*array.Binary).Value(i))
		})
	case *arrow.StructType:
		g := pqgroup.Group{}
		for k, f := range t.Fields() {
			n, c, err := planField(f.Type, f.Nullable, leaves)
			if err != nil {
				return nil, nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			if n == nil {
				continue // an empty struct field
			}
			g = append(g, pqgroup.Of(f.Name, n))
			p.fields = append(p.fields, c)
			p.index = append(p.index, k)
		}
		if len(g) == 0 {
			return nil, nil, nil
		}
		node = g
	case arrow.ListLikeType:
		switch t.(type) {
		case *arrow.ListType, *arrow.LargeListType, *arrow.FixedSizeListType:
		default:
			return nil, nil, fmt.Errorf("%s: %w", t, errUnsupported)
		}
		ef := t.ElemField()
		n, c, err := planField(ef.Type, ef.Nullable, leaves)
		if err != nil {
			return nil, nil, fmt.Errorf("list element: %w", err)
		}
		if n == nil {
			return nil, nil, fmt.Errorf("list of empty structs: %w", errUnsupported)
		}
		node, p.elem = parquet.List(n), c
	default:
		return nil, nil, fmt.Errorf("%s: %w", t, errUnsupported)
	}
	if nullable {
		node = parquet.Optional(node)
	} else {
		node = parquet.Required(node)
	}
	p.n = *leaves - p.first
	return node, p, nil
}

// shred appends the values of row i of a (nil: an absent parent) to the
// leaf columns cols, with repetition level rep for the first value and
// definition levels counted from def; maxRep is the repetition level of
// the innermost list above the node (the Dremel encoding Parquet uses).
func (p *pqPlan) shred(a arrow.Array, i, rep, def, maxRep int, cols [][]parquet.Value) {
	if p.optional {
		if a == nil || a.IsNull(i) {
			p.nulls(rep, def, cols)
			return
		}
		def++
	} else if a == nil {
		p.nulls(rep, def, cols)
		return
	}
	switch {
	case p.leaf >= 0:
		cols[p.leaf] = append(cols[p.leaf], p.value(a, i).Level(rep, def, p.leaf))
	case p.elem != nil:
		lo, hi := listRange(a, i)
		if lo == hi {
			p.elem.nulls(rep, def, cols) // an empty list: defined to the list, no element
			return
		}
		values := a.(array.ListLike).ListValues()
		for j := lo; j < hi; j++ {
			r := rep
			if j > lo {
				r = maxRep + 1
			}
			// The repeated group adds one definition level.
			p.elem.shred(values, int(j), r, def+1, maxRep+1, cols)
		}
	default:
		s := a.(*array.Struct)
		for k, f := range p.fields {
			f.shred(s.Field(p.index[k]), i, rep, def, maxRep, cols)
		}
	}
}

// nulls appends a null (definition level def) to every leaf under p.
func (p *pqPlan) nulls(rep, def int, cols [][]parquet.Value) {
	for c := p.first; c < p.first+p.n; c++ {
		cols[c] = append(cols[c], parquet.NullValue().Level(rep, def, c))
	}
}

// listRange returns the range of row i's elements in the list array's values.
func listRange(a arrow.Array, i int) (int64, int64) {
	return a.(array.ListLike).ValueOffsets(i)
}
