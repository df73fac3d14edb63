package ingest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"
)

// sourceRow is one line of a LETOR file, parsed independently of the
// ingest parser: label, qid and the 46 feature values by index.
type sourceRow struct {
	label float64
	qid   int64
	x     []float64
}

func readSource(t *testing.T, path string) []sourceRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []sourceRow
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		toks := strings.Fields(line)
		if len(toks) == 0 {
			continue
		}
		var r sourceRow
		r.label, _ = strconv.ParseFloat(toks[0], 64)
		r.qid, _ = strconv.ParseInt(strings.TrimPrefix(toks[1], "qid:"), 10, 64)
		r.x = make([]float64, len(toks)-2)
		for _, tok := range toks[2:] {
			k, v, _ := strings.Cut(tok, ":")
			i, _ := strconv.Atoi(k)
			r.x[i-1], _ = strconv.ParseFloat(v, 64)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestLoadManyRowGroups ingests the whole real MQ2008 (15,211 rows) with
// small row groups and compares every loaded cell with the source text,
// parsed independently: a row group whose features land in another row
// group's rows (load.go's offset t.off*k + t.dst written as t.off + t.dst,
// re-injected: fails here) or a lost trailing row group is caught at the
// sizes real data has (MSLR-WEB files have many row groups). 2535 rows
// per group make 7 groups, the last of exactly one row, asserted directly
// from the file's metadata.
func TestLoadManyRowGroups(t *testing.T) {
	var src []sourceRow
	var inputs []string
	for i := 1; i <= 5; i++ {
		p := filepath.Join("..", "datasets", "mq2008", "S"+strconv.Itoa(i)+".txt")
		inputs = append(inputs, p)
		src = append(src, readSource(t, p)...)
	}
	if len(src) != 15211 {
		t.Fatalf("source has %d rows, want 15211", len(src))
	}
	const rg = 2535 // 15211 = 6 * 2535 + 1
	out := filepath.Join(t.TempDir(), "mq")
	m, err := Run(context.Background(), Options{Inputs: inputs, Out: out, RowGroupRows: rg})
	if err != nil {
		t.Fatal(err)
	}
	if m.Rows != len(src) || m.RowGroupRows != rg {
		t.Fatalf("manifest: %d rows, row groups of %d", m.Rows, m.RowGroupRows)
	}
	pf, err := file.OpenParquetFile(filepath.Join(out, DocumentsFile), false)
	if err != nil {
		t.Fatal(err)
	}
	n := pf.NumRowGroups()
	last := pf.MetaData().RowGroup(n - 1).NumRows()
	pf.Close()
	if n != 7 || last != 1 {
		t.Fatalf("%d row groups, the last of %d rows; want 7, the last of 1", n, last)
	}
	ds, err := Load(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Rows() != len(src) {
		t.Fatalf("loaded %d rows, want %d", ds.Rows(), len(src))
	}
	r := 0
	for qi, q := range ds.Queries {
		rows, cols := q.X.Dims()
		if cols != 46 || rows != len(q.Labels) {
			t.Fatalf("query %d: X is %dx%d for %d labels", qi, rows, cols, len(q.Labels))
		}
		for i := range rows {
			s := src[r]
			if q.QID != s.qid || q.Labels[i] != s.label {
				t.Fatalf("row %d: qid %d label %v, source qid %d label %v", r, q.QID, q.Labels[i], s.qid, s.label)
			}
			for j := range cols {
				if got := q.X.At(i, j); got != s.x[ds.Columns[j]-1] {
					t.Fatalf("row %d (row group %d) feature %d: loaded %v, source %v", r, r/rg, ds.Columns[j], got, s.x[ds.Columns[j]-1])
				}
			}
			r++
		}
	}
}

// TestRowGroupsExactMultiple: rows that fill their row groups exactly give
// no empty row group after them (6 rows in groups of 3 and of 6, 7 rows in
// groups of 3 end with a group of 1).
func TestRowGroupsExactMultiple(t *testing.T) {
	dir := t.TempDir()
	var in strings.Builder
	for i := 0; i < 7; i++ {
		fmt.Fprintf(&in, "%d qid:%d 1:%d 2:0.5\n", i%3, 1+i/2, i)
	}
	lines := strings.SplitAfter(in.String(), "\n")
	for _, c := range []struct {
		rows, per int
		want      []int64
	}{{6, 3, []int64{3, 3}}, {6, 6, []int64{6}}, {7, 3, []int64{3, 3, 1}}} {
		src := writeFile(t, filepath.Join(dir, fmt.Sprintf("in%d", c.rows), "in.txt"), []byte(strings.Join(lines[:c.rows], "")))
		out := filepath.Join(dir, fmt.Sprintf("out-%d-%d", c.rows, c.per))
		if _, err := Run(context.Background(), Options{Inputs: []string{src}, Out: out, RowGroupRows: c.per}); err != nil {
			t.Fatal(err)
		}
		r, err := openParquet(filepath.Join(out, DocumentsFile))
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, g := range r.pf.RowGroups() {
			got = append(got, g.NumRows())
		}
		r.close()
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%d rows in groups of %d: row groups of %v rows, want %v", c.rows, c.per, got, c.want)
		}
	}
}
