package ingest

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"gonum.org/v1/gonum/mat"
)

// Load reads the dataset in dir: the 1-based feature columns cols (in that
// order; nil or empty means all features f1..fN), every document's label,
// and each query's qid and part. Only the requested columns are read from
// documents.parquet. The per-query matrices share one backing array, so a
// loaded MSLR-WEB10K-sized dataset costs rows x len(cols) x 8 bytes.
func Load(dir string, cols []int) (*Dataset, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", dir, err)
	}
	if err := verifyDocuments(dir, m); err != nil {
		return nil, fmt.Errorf("load %s: %w", dir, err)
	}
	if len(cols) == 0 {
		cols = make([]int, m.Features)
		for i := range cols {
			cols[i] = i + 1
		}
	}
	for _, c := range cols {
		if c < 1 || c > m.Features {
			return nil, fmt.Errorf("load %s: feature column %d out of range 1..%d", dir, c, m.Features)
		}
	}
	cols = append([]int(nil), cols...)
	path := filepath.Join(dir, DocumentsFile)
	rdr, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	defer rdr.Close()
	n := int(rdr.NumRows())
	if n != m.Rows {
		return nil, fmt.Errorf("load %s: %d rows, manifest says %d", path, n, m.Rows)
	}
	sc := rdr.MetaData().Schema
	colIndex := func(name string) (int, error) {
		i := sc.ColumnIndexByName(name)
		if i < 0 {
			return 0, fmt.Errorf("load %s: no column %q", path, name)
		}
		return i, nil
	}
	qidCol, err := colIndex("qid")
	if err != nil {
		return nil, err
	}
	labelCol, err := colIndex("label")
	if err != nil {
		return nil, err
	}
	partCol, err := colIndex("part")
	if err != nil {
		return nil, err
	}
	featCols := make([]int, len(cols))
	for i, c := range cols {
		if featCols[i], err = colIndex("f" + strconv.Itoa(c)); err != nil {
			return nil, err
		}
	}

	k := len(cols)
	x := make([]float64, n*k)
	qids := make([]int64, n)
	labels := make([]int32, n)
	parts := make([]string, n) // interned: equal neighbours share one string

	// One task per (row group, column); tasks write disjoint elements.
	type task struct {
		rg, off, rows int
		col           int // parquet column index
		dst           int // -1 qid, -2 label, -3 part, >= 0 feature position in cols
	}
	var tasks []task
	off := 0
	for g := 0; g < rdr.NumRowGroups(); g++ {
		rows := int(rdr.MetaData().RowGroup(g).NumRows())
		tasks = append(tasks, task{g, off, rows, qidCol, -1}, task{g, off, rows, labelCol, -2}, task{g, off, rows, partCol, -3})
		for i, fc := range featCols {
			tasks = append(tasks, task{g, off, rows, fc, i})
		}
		off += rows
	}
	taskCh := make(chan task)
	errs := make(chan error, 1)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []float64
			for t := range taskCh {
				cr, err := rdr.RowGroup(t.rg).Column(t.col)
				if err != nil {
					select {
					case errs <- fmt.Errorf("load %s: row group %d column %d: %w", path, t.rg, t.col, err):
					default:
					}
					continue
				}
				switch t.dst {
				case -1:
					err = readAll(cr, t.rows, func(r *file.Int64ColumnChunkReader, lo, hi int) (int64, int, error) {
						return r.ReadBatch(int64(hi-lo), qids[t.off+lo:t.off+hi], nil, nil)
					})
				case -2:
					err = readAll(cr, t.rows, func(r *file.Int32ColumnChunkReader, lo, hi int) (int64, int, error) {
						return r.ReadBatch(int64(hi-lo), labels[t.off+lo:t.off+hi], nil, nil)
					})
				case -3:
					ba := make([]parquet.ByteArray, t.rows)
					err = readAll(cr, t.rows, func(r *file.ByteArrayColumnChunkReader, lo, hi int) (int64, int, error) {
						return r.ReadBatch(int64(hi-lo), ba[lo:hi], nil, nil)
					})
					last := ""
					for i, b := range ba {
						if string(b) != last {
							last = string(b)
						}
						parts[t.off+i] = last
					}
				default:
					if cap(buf) < t.rows {
						buf = make([]float64, t.rows)
					}
					buf = buf[:t.rows]
					err = readAll(cr, t.rows, func(r *file.Float64ColumnChunkReader, lo, hi int) (int64, int, error) {
						return r.ReadBatch(int64(hi-lo), buf[lo:hi], nil, nil)
					})
					base := t.off*k + t.dst
					for i, v := range buf {
						x[base+i*k] = v
					}
				}
				if err != nil {
					select {
					case errs <- fmt.Errorf("load %s: row group %d column %d: %w", path, t.rg, t.col, err):
					default:
					}
				}
			}
		}()
	}
	for _, t := range tasks {
		taskCh <- t
	}
	close(taskCh)
	wg.Wait()
	select {
	case err := <-errs:
		return nil, err
	default:
	}

	ds := &Dataset{Dir: dir, Manifest: *m, Columns: cols, Queries: make([]Query, 0, m.Queries)}
	flabels := make([]float64, n)
	for i, l := range labels {
		flabels[i] = float64(l)
	}
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && qids[hi] == qids[lo] {
			hi++
		}
		q := Query{QID: qids[lo], Part: parts[lo], Labels: flabels[lo:hi:hi]}
		if k > 0 {
			q.X = mat.NewDense(hi-lo, k, x[lo*k:hi*k:hi*k])
		}
		ds.Queries = append(ds.Queries, q)
		lo = hi
	}
	if len(ds.Queries) != m.Queries {
		return nil, fmt.Errorf("load %s: %d queries, manifest says %d", path, len(ds.Queries), m.Queries)
	}
	return ds, nil
}

// readAll reads exactly rows values from a column chunk of reader type R.
func readAll[R file.ColumnChunkReader](cr file.ColumnChunkReader, rows int, read func(r R, lo, hi int) (int64, int, error)) error {
	r, ok := cr.(R)
	if !ok {
		return fmt.Errorf("unexpected column type %s", cr.Type())
	}
	for got := 0; got < rows; {
		_, nv, err := read(r, got, rows)
		if err != nil {
			return err
		}
		if nv == 0 {
			return fmt.Errorf("column ends after %d of %d values", got, rows)
		}
		got += nv
	}
	return nil
}
