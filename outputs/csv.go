package outputs

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/fedbandit/fedbandit/internal/atomicfile"
)

// The CSV copies of the tables (`run export DIR --csv`), for a reader with
// neither Arrow nor Parquet support: pandas without pyarrow, as on a
// Debian 12 Python. A collect removes them (they would no longer match
// its tables).
const (
	RunsCSVFile   = "runs.csv"
	CurvesCSVFile = "curves.csv"
)

// ExportCSV writes DIR/runs.csv and DIR/curves.csv from DIR's tables,
// after checking them as ReadTables does (one collect's pair, this
// layout, every column readable): a header of the tables' column names,
// then one line per row. Cells: integers in decimal, floats in the
// shortest form that reads back to the same float64, booleans true or
// false, strings as they are (quoted where CSV needs it), a list as a
// JSON array ("[0.5,1.25]"), null as an empty cell. Both files are
// staged beside the tables and renamed into place only when both are
// written: a failure leaves the previous copies (or none) as they were.
// It returns the paths written.
func ExportCSV(dir string) ([]string, error) {
	if _, _, err := ReadTables(dir); err != nil {
		return nil, err
	}
	var staged []string
	defer func() {
		for _, t := range staged {
			os.Remove(t) // no-op once renamed
		}
	}()
	pairs := [][2]string{{RunsFile, RunsCSVFile}, {CurvesFile, CurvesCSVFile}}
	for _, p := range pairs {
		src := filepath.Join(dir, p[0])
		tmp, err := stageFile(dir, p[1], func(w io.Writer) error { return arrowToCSV(w, src) })
		if err != nil {
			return nil, fmt.Errorf("write %s from %s (the previous CSV copies are unchanged): %w", filepath.Join(dir, p[1]), src, err)
		}
		staged = append(staged, tmp)
	}
	var paths []string
	for i, p := range pairs {
		dst := filepath.Join(dir, p[1])
		if err := os.Rename(staged[i], dst); err != nil {
			return nil, fmt.Errorf("publish %s: %w", dst, err)
		}
		paths = append(paths, dst)
	}
	return paths, atomicfile.SyncDir(dir)
}

// removeCSV removes DIR's CSV copies, which no longer match tables just
// rewritten; a missing copy is no error.
func removeCSV(dir string) error {
	for _, name := range []string{RunsCSVFile, CurvesCSVFile} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("remove the stale %s: %w", filepath.Join(dir, name), err)
		}
	}
	return nil
}

// arrowToCSV writes the Arrow IPC file at path as CSV, batch by batch.
func arrowToCSV(w io.Writer, path string) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("corrupted Arrow file %s: %v", path, v)
		}
	}()
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	r, err := ipc.NewFileReader(f, ipc.WithMetadataSizeLimit(st.Size()), ipc.WithBodySizeLimit(st.Size()))
	if err != nil {
		return fmt.Errorf("%s: not a complete Arrow IPC file: %w", path, err)
	}
	defer r.Close()
	fields := r.Schema().Fields()
	head := make([]string, len(fields))
	for i, fl := range fields {
		if err := csvType(fl.Type); err != nil {
			return fmt.Errorf("%s: column %s: %w", path, fl.Name, err)
		}
		head[i] = fl.Name
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(head); err != nil {
		return err
	}
	row := make([]string, len(fields))
	for b := 0; b < r.NumRecords(); b++ {
		rec, err := r.RecordBatch(b)
		if err != nil {
			return fmt.Errorf("%s: record batch %d: %w", path, b, err)
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			for j := range fields {
				row[j] = csvCell(rec.Column(j), i)
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvType refuses a column type csvCell cannot write.
func csvType(t arrow.DataType) error {
	switch t := t.(type) {
	case *arrow.Int64Type, *arrow.Int32Type, *arrow.Uint64Type, *arrow.Float64Type, *arrow.BooleanType, *arrow.StringType:
		return nil
	case *arrow.ListType:
		if _, ok := t.Elem().(*arrow.Float64Type); ok {
			return nil
		}
	}
	return fmt.Errorf("type %s has no CSV form here", t)
}

// csvCell is row i of column a as a CSV cell (empty for null).
func csvCell(a arrow.Array, i int) string {
	if a.IsNull(i) {
		return ""
	}
	switch a := a.(type) {
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10)
	case *array.Uint64:
		return strconv.FormatUint(a.Value(i), 10)
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	case *array.String:
		return a.Value(i)
	case *array.List:
		vals := a.ListValues().(*array.Float64)
		lo, hi := a.ValueOffsets(i)
		parts := make([]string, 0, hi-lo)
		for k := lo; k < hi; k++ {
			if vals.IsNull(int(k)) {
				parts = append(parts, "null")
				continue
			}
			parts = append(parts, strconv.FormatFloat(vals.Value(int(k)), 'g', -1, 64))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	panic(fmt.Sprintf("csvCell: type %s", a.DataType())) // csvType refuses it first
}
