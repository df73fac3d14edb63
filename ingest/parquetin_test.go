package ingest

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/fedbandit/fedbandit/datasets/mq2008"
	"github.com/fedbandit/fedbandit/internal/nodetool"
)

// mq2008Text ingests the embedded MQ2008 text (S1..S5) and returns the
// dataset directory, its manifest and the rows as an independent reader
// (arrow-go) finds them in documents.parquet.
func mq2008Text(t *testing.T) (string, *Manifest, []*rowGroup, *commentSchema) {
	t.Helper()
	dir := t.TempDir()
	mq := filepath.Join(dir, "mq")
	if _, err := mq2008.Extract(mq); err != nil {
		t.Fatal(err)
	}
	ds := filepath.Join(dir, "text")
	m, err := Run(t.Context(), Options{Inputs: []string{mq}, Out: ds})
	if err != nil {
		t.Fatal(err)
	}
	rgs, cs := arrowRowGroups(t, filepath.Join(ds, DocumentsFile))
	return ds, m, rgs, cs
}

// listRow is one MQ2008 document in the list layout: the features as one
// list column.
type listRow struct {
	Label    int32     `parquet:"label"`
	QID      int64     `parquet:"qid"`
	Part     string    `parquet:"part"`
	Features []float64 `parquet:"features,list"`
	DocID    string    `parquet:"docid"`
	Inc      float64   `parquet:"inc"`
	Prob     float64   `parquet:"prob"`
}

// writeListLayout writes the rows of rgs in the list layout with
// parquet-go (ZSTD, row groups of rowsPerGroup) and returns the path.
func writeListLayout(t *testing.T, path string, rgs []*rowGroup, rowsPerGroup int, edit func(i int, r *listRow)) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[listRow](f, parquet.Compression(&zstd.Codec{}), parquet.MaxRowsPerRowGroup(int64(rowsPerGroup)))
	i := 0
	for _, rg := range rgs {
		rows := make([]listRow, rg.n)
		for r := range rows {
			x := make([]float64, len(rg.x))
			for j := range x {
				x[j] = rg.x[j][r]
			}
			rows[r] = listRow{Label: rg.label[r], QID: rg.qid[r], Part: rg.parts[rg.part[r]], Features: x,
				DocID: rg.cstr[0][r], Inc: rg.cnum[1][r], Prob: rg.cnum[2][r]}
			if edit != nil {
				edit(i, &rows[r])
			}
			i++
		}
		if _, err := w.Write(rows); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestParquetInputSameDataset: MQ2008 published as Parquet ingests to the
// dataset of its text (the same data_sha256, counts, label histogram,
// parts and feature statistics), whatever wrote it: our own
// documents.parquet; arrow-go's writer with ZSTD in row groups of 1,000
// rows; and parquet-go in the list layout (label, qid, part, a list
// column of the features, the comment columns) in row groups of 777.
// (tools/duckdb-check adds DuckDB's rewrite, TestDuckDBRewrite.)
// Mutation control: the Parquet reader taking the features in reverse
// order (pc.x[l.nfeat-1-k]) made the list case fail; taking the label
// column for the qid made every case fail.
func TestParquetInputSameDataset(t *testing.T) {
	_, want, rgs, _ := mq2008Text(t)
	dir := t.TempDir()

	own := filepath.Join(dir, "own.parquet")
	mq := filepath.Join(t.TempDir(), "mq")
	if _, err := mq2008.Extract(mq); err != nil {
		t.Fatal(err)
	}
	b := documentsWith(t, Options{Inputs: []string{mq}}, nil)
	writeFile(t, own, b)

	arrowCodec = compress.Codecs.Zstd
	zb := documentsWith(t, Options{Inputs: []string{mq}, RowGroupRows: 1000}, arrowDocsWriter)
	arrowCodec = compress.Codecs.Snappy
	arrowZstd := writeFile(t, filepath.Join(dir, "arrow-zstd-rg1000.parquet"), zb)

	list := writeListLayout(t, filepath.Join(dir, "list.parquet"), rgs, 777, nil)

	for _, in := range []string{own, arrowZstd, list} {
		t.Run(filepath.Base(in), func(t *testing.T) {
			got, err := Run(t.Context(), Options{Inputs: []string{in}, Out: filepath.Join(t.TempDir(), "ds")})
			if err != nil {
				t.Fatal(err)
			}
			sameRows(t, got, want)
		})
	}
}

// sameRows checks that got is the dataset of want: its identity and every
// field derived from the rows.
func sameRows(t *testing.T, got, want *Manifest) {
	t.Helper()
	if got.DataHash != want.DataHash || got.DataHash != mq2008DataHash {
		t.Errorf("data_sha256 %s, the text's %s", got.DataHash, want.DataHash)
	}
	if got.Rows != want.Rows || got.Queries != want.Queries || got.Features != want.Features || got.Format != want.Format ||
		!reflect.DeepEqual(got.LabelHistogram, want.LabelHistogram) || !reflect.DeepEqual(got.Parts, want.Parts) ||
		!reflect.DeepEqual(got.FeatureStats, want.FeatureStats) || !reflect.DeepEqual(got.CommentColumns, want.CommentColumns) ||
		got.DocsPerQuery != want.DocsPerQuery {
		t.Errorf("manifest differs from the text's: rows %d/%d queries %d/%d parts %v/%v comments %v/%v",
			got.Rows, want.Rows, got.Queries, want.Queries, got.Parts, want.Parts, got.CommentColumns, want.CommentColumns)
	}
}

// TestParquetInputErrors: bad Parquet input is one error naming the file,
// the row group and the column: a missing column, nulls in the label or
// the qid, ragged feature lists, a non-numeric column, a label out of
// range; and the flags name the columns of a file whose names differ.
func TestParquetInputErrors(t *testing.T) {
	_, _, rgs, _ := mq2008Text(t)
	dir := t.TempDir()
	run := func(in string, opts Options) (*Manifest, error) {
		opts.Inputs = []string{in}
		opts.Out = filepath.Join(t.TempDir(), "ds")
		return Run(t.Context(), opts)
	}
	expect := func(name string, err error, parts ...string) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: accepted", name)
			return
		}
		for _, p := range parts {
			if !strings.Contains(err.Error(), p) {
				t.Errorf("%s: error %q does not say %q", name, err, p)
			}
		}
	}

	// Ragged lists: row 1500 (row group 1 of 777-row groups, its row 723)
	// has one feature less.
	ragged := writeListLayout(t, filepath.Join(dir, "ragged.parquet"), rgs, 777, func(i int, r *listRow) {
		if i == 1500 {
			r.Features = r.Features[:45]
		}
	})
	_, err := run(ragged, Options{})
	expect("ragged", err, "ragged.parquet", "row group 1", `column "features"`, "row 723", "45 features")

	// Optional columns: nulls in the label, in the qid; and an optional
	// column without nulls is accepted.
	type optRow struct {
		Label *int32   `parquet:"label,optional"`
		QID   *int64   `parquet:"qid,optional"`
		F1    float64  `parquet:"f1"`
		F2    *float64 `parquet:"f2,optional"`
	}
	writeOpt := func(name string, rows []optRow, extra ...parquet.WriterOption) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		w := parquet.NewGenericWriter[optRow](f, append(extra, parquet.MaxRowsPerRowGroup(3))...)
		if _, err := w.Write(rows); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return p
	}
	i32 := func(v int32) *int32 { return &v }
	i64 := func(v int64) *int64 { return &v }
	f64 := func(v float64) *float64 { return &v }
	good := []optRow{{i32(1), i64(7), 0.5, f64(1)}, {i32(0), i64(7), 1.5, f64(2)}, {i32(2), i64(8), 2.5, f64(3)}, {i32(0), i64(9), 3, f64(4)}}
	m, err := run(writeOpt("optional.parquet", good), Options{})
	if err != nil || m.Rows != 4 || m.Queries != 3 || m.Features != 2 {
		t.Errorf("optional columns without nulls: %v, %+v", err, m)
	}
	nullLabel := append([]optRow(nil), good...)
	nullLabel[3].Label = nil
	_, err = run(writeOpt("nulllabel.parquet", nullLabel), Options{})
	expect("null label", err, "nulllabel.parquet", "row group 1", `column "label"`, "row 0", "null")
	nullQID := append([]optRow(nil), good...)
	nullQID[1].QID = nil
	_, err = run(writeOpt("nullqid.parquet", nullQID), Options{})
	expect("null qid", err, "nullqid.parquet", "row group 0", `column "qid"`, "row 1", "null")
	nullFeat := append([]optRow(nil), good...)
	nullFeat[2].F2 = nil
	_, err = run(writeOpt("nullfeat.parquet", nullFeat), Options{})
	expect("null feature", err, "nullfeat.parquet", "row group 0", `column "f2"`, "row 2", "null")
	badLabel := append([]optRow(nil), good...)
	badLabel[0].Label = i32(9)
	_, err = run(writeOpt("badlabel.parquet", badLabel), Options{})
	expect("label out of range", err, "badlabel.parquet", "row group 0", `column "label"`, "label out of range 0..4", `"9"`)

	// A missing column, and the flags that name it.
	type renamed struct {
		Rel   int32     `parquet:"relevance"`
		Query int64     `parquet:"query_id"`
		X     []float64 `parquet:"x,list"`
	}
	rp := filepath.Join(dir, "renamed.parquet")
	f, err := os.Create(rp)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[renamed](f)
	w.Write([]renamed{{1, 5, []float64{1, 2}}, {0, 5, []float64{3, 4}}})
	w.Close()
	f.Close()
	_, err = run(rp, Options{})
	expect("missing label", err, "renamed.parquet", `column "label"`, "missing", "--label-column")
	m, err = run(rp, Options{LabelColumn: "relevance", QIDColumn: "query_id"})
	if err != nil || m.Rows != 2 || m.Features != 2 {
		t.Errorf("named columns: %v %+v", err, m)
	}

	// A non-numeric feature column.
	type strFeat struct {
		Label int32  `parquet:"label"`
		QID   int64  `parquet:"qid"`
		F1    string `parquet:"f1"`
	}
	sp := filepath.Join(dir, "strfeat.parquet")
	f, err = os.Create(sp)
	if err != nil {
		t.Fatal(err)
	}
	ws := parquet.NewGenericWriter[strFeat](f)
	ws.Write([]strFeat{{1, 5, "a"}})
	ws.Close()
	f.Close()
	_, err = run(sp, Options{})
	expect("non-numeric", err, "strfeat.parquet", `column "f1"`, "not numeric")

	// The Parquet flags on text.
	_, err = Run(t.Context(), Options{Inputs: []string{"testdata/mslr/mslr_sample.txt"}, Out: filepath.Join(t.TempDir(), "x"), LabelColumn: "label"})
	expect("flag on text", err, "--label-column")
}

// TestDuckDBRewrite: MQ2008's documents.parquet rewritten by DuckDB
// (tools/duckdb-check/rewrite.mjs: ZSTD, ROW_GROUP_SIZE 1000, which DuckDB
// rounds up to 2,048-row groups), with its columns as they are and with
// the features as one list column, ingests to the dataset of the text
// (same data_sha256 and manifest). Skipped when node or the package is
// not installed, unless FEDBANDIT_REQUIRE_READERS=1 (CI).
func TestDuckDBRewrite(t *testing.T) {
	node, script, ok := nodetool.Find(t, "..", "duckdb-check", "@duckdb/node-api")
	if !ok {
		t.Skip("DuckDB not installed (cd tools/duckdb-check && npm ci)")
	}
	ds, want, _, _ := mq2008Text(t)
	dir := t.TempDir()
	cols, list := filepath.Join(dir, "duckdb-columns.parquet"), filepath.Join(dir, "duckdb-list.parquet")
	out, err := exec.Command(node, filepath.Join(filepath.Dir(script), "rewrite.mjs"), filepath.Join(ds, DocumentsFile), cols, list).CombinedOutput()
	if err != nil {
		t.Fatalf("duckdb rewrite: %v\n%s", err, out)
	}
	for _, in := range []string{cols, list} {
		got, err := Run(t.Context(), Options{Inputs: []string{in}, Out: filepath.Join(t.TempDir(), "ds")})
		if err != nil {
			t.Fatal(err)
		}
		sameRows(t, got, want)
	}
}
