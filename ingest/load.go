package ingest

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"

	"github.com/parquet-go/parquet-go"
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
	rdr, err := openParquet(path)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	defer rdr.close()
	if rdr.pf.NumRows() != int64(m.Rows) {
		return nil, fmt.Errorf("load %s: %d rows, manifest says %d", path, rdr.pf.NumRows(), m.Rows)
	}
	n := m.Rows
	colIndex := func(name string, kind parquet.Kind) (int, error) {
		c, ok := rdr.column(name)
		if !ok {
			return 0, fmt.Errorf("load %s: no column %q", path, name)
		}
		if k := c.Node.Type().Kind(); k != kind || !c.Node.Required() {
			return 0, fmt.Errorf("load %s: column %q is %s (required %v), want a required %s", path, name, k, c.Node.Required(), kind)
		}
		return c.ColumnIndex, nil
	}
	qidCol, err := colIndex("qid", parquet.Int64)
	if err != nil {
		return nil, err
	}
	labelCol, err := colIndex("label", parquet.Int32)
	if err != nil {
		return nil, err
	}
	partCol, err := colIndex("part", parquet.ByteArray)
	if err != nil {
		return nil, err
	}
	featCols := make([]int, len(cols))
	for i, c := range cols {
		if featCols[i], err = colIndex("f"+strconv.Itoa(c), parquet.Double); err != nil {
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
	rowGroups := rdr.pf.RowGroups()
	for g, rg := range rowGroups {
		rows := int(rg.NumRows())
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
				var err error
				cc := rowGroups[t.rg].ColumnChunks()[t.col]
				switch t.dst {
				case -1:
					err = readRequiredInt64(cc, qids[t.off:t.off+t.rows])
				case -2:
					err = readRequiredInt32(cc, labels[t.off:t.off+t.rows])
				case -3:
					err = readStrings(cc, parts[t.off:t.off+t.rows])
				default:
					if cap(buf) < t.rows {
						buf = make([]float64, t.rows)
					}
					buf = buf[:t.rows]
					err = readRequiredDouble(cc, buf)
					base := t.off*k + t.dst
					for i, v := range buf {
						x[base+i*k] = v
					}
				}
				if err != nil {
					name := rdr.pf.Schema().Columns()[t.col][0]
					select {
					case errs <- fmt.Errorf("load: %w", &colError{File: path, RowGroup: t.rg, Column: name, Msg: err.Error()}):
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
