package ingest

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"
)

// pqFile is an open Parquet file read with parquet-go.
type pqFile struct {
	path string
	f    *os.File
	pf   *parquet.File
}

// openParquet opens the Parquet file at path (its footer only; pages are
// read on demand, concurrently by row group and column).
func openParquet(path string) (*pqFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	pf, err := openFile(f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: not a readable Parquet file: %w", path, err)
	}
	return &pqFile{path: path, f: f, pf: pf}, nil
}

// openFile is parquet.OpenFile, with the panics parquet-go raises on
// some valid footers it does not support (a DECIMAL on BYTE_ARRAY, more
// than 32,768 columns) turned into errors.
func openFile(f *os.File, size int64) (pf *parquet.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("parquet-go cannot read its schema: %v", r)
		}
	}()
	return parquet.OpenFile(f, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
}

func (p *pqFile) close() error { return p.f.Close() }

// column returns the leaf column called name at the top level of the
// schema, or ok false.
func (p *pqFile) column(name string) (parquet.LeafColumn, bool) {
	return p.pf.Schema().Lookup(name)
}

// colError is a Parquet error naming the file, the row group (-1: about
// the column's schema, so every row group) and the column.
type colError struct {
	File     string
	RowGroup int
	Column   string
	Msg      string
	// missing: the column is not in the file (Unwrap: ErrMissingColumn).
	missing bool
}

// ErrMissingColumn is wrapped by the error of a Parquet input that lacks
// a column of a role (label, qid, features): the caller may say how to
// name another (prep all has no column flags).
var ErrMissingColumn = errors.New("a column is missing")

// Unwrap returns ErrMissingColumn for a missing column's error.
func (e *colError) Unwrap() error {
	if e.missing {
		return ErrMissingColumn
	}
	return nil
}

func (e *colError) Error() string {
	if e.RowGroup < 0 {
		return fmt.Sprintf("%s: column %q (every row group): %s", e.File, e.Column, e.Msg)
	}
	return fmt.Sprintf("%s: row group %d, column %q: %s", e.File, e.RowGroup, e.Column, e.Msg)
}

// eachPage calls fn with the values of every page of column chunk cc, in
// order.
func eachPage(cc parquet.ColumnChunk, fn func(p parquet.Page) error) error {
	pages := cc.Pages()
	defer pages.Close()
	for {
		pg, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		err = fn(pg)
		parquet.Release(pg)
		if err != nil {
			return err
		}
	}
}

// readValues reads every value (levels included) of column chunk cc into
// dst[:0].
func readValues(cc parquet.ColumnChunk, dst []parquet.Value) ([]parquet.Value, error) {
	dst = dst[:0]
	var buf [256]parquet.Value
	err := eachPage(cc, func(pg parquet.Page) error {
		r := pg.Values()
		for {
			n, err := r.ReadValues(buf[:])
			for _, v := range buf[:n] {
				dst = append(dst, v.Clone())
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
		}
	})
	return dst, err
}

// readRequiredInt64 reads a required INT64 column chunk into dst (its
// length is the row group's row count).
func readRequiredInt64(cc parquet.ColumnChunk, dst []int64) error {
	return readTyped(cc, dst, func(pg parquet.Page) (func([]int64) (int, error), bool) {
		r, ok := pg.Values().(parquet.Int64Reader)
		if !ok {
			return nil, false
		}
		return r.ReadInt64s, true
	})
}

// readRequiredInt32 reads a required INT32 column chunk into dst.
func readRequiredInt32(cc parquet.ColumnChunk, dst []int32) error {
	return readTyped(cc, dst, func(pg parquet.Page) (func([]int32) (int, error), bool) {
		r, ok := pg.Values().(parquet.Int32Reader)
		if !ok {
			return nil, false
		}
		return r.ReadInt32s, true
	})
}

// readRequiredDouble reads a required DOUBLE column chunk into dst.
func readRequiredDouble(cc parquet.ColumnChunk, dst []float64) error {
	return readTyped(cc, dst, func(pg parquet.Page) (func([]float64) (int, error), bool) {
		r, ok := pg.Values().(parquet.DoubleReader)
		if !ok {
			return nil, false
		}
		return r.ReadDoubles, true
	})
}

// readTyped reads the pages of cc with the typed reader that reader
// returns for each, into dst, which the values must fill exactly.
func readTyped[T any](cc parquet.ColumnChunk, dst []T, reader func(parquet.Page) (func([]T) (int, error), bool)) error {
	off := 0
	err := eachPage(cc, func(pg parquet.Page) error {
		if pg.NumNulls() > 0 {
			return fmt.Errorf("%d nulls in a page", pg.NumNulls())
		}
		if int64(len(dst)-off) < pg.NumValues() {
			return fmt.Errorf("more values than the row group's %d rows", len(dst))
		}
		read, ok := reader(pg)
		if !ok {
			return fmt.Errorf("unexpected page type %T", pg)
		}
		end := off + int(pg.NumValues())
		for off < end {
			n, err := read(dst[off:end])
			off += n
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			if n == 0 {
				return fmt.Errorf("page ended after %d of its %d values", off, end)
			}
		}
		if off != end {
			return fmt.Errorf("page ended after %d of its %d values", off, end)
		}
		return nil
	})
	if err == nil && off != len(dst) {
		err = fmt.Errorf("%d values for %d rows", off, len(dst))
	}
	return err
}

// readStrings reads a required STRING column chunk into dst, whose length
// is the row group's row count; equal neighbours share one string (a part
// name is stored once per run of rows).
func readStrings(cc parquet.ColumnChunk, dst []string) error {
	off := 0
	var buf [256]parquet.Value
	err := eachPage(cc, func(pg parquet.Page) error {
		if pg.NumNulls() > 0 {
			return fmt.Errorf("%d nulls in a page", pg.NumNulls())
		}
		r := pg.Values()
		for {
			n, err := r.ReadValues(buf[:])
			if off+n > len(dst) {
				return fmt.Errorf("more values than the row group's %d rows", len(dst))
			}
			for _, v := range buf[:n] {
				if b := v.ByteArray(); off > 0 && string(b) == dst[off-1] {
					dst[off] = dst[off-1]
				} else {
					dst[off] = string(b)
				}
				off++
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
		}
	})
	if err == nil && off != len(dst) {
		err = fmt.Errorf("%d values for %d rows", off, len(dst))
	}
	return err
}
