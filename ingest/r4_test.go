package ingest

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/fedbandit/fedbandit/internal/pqgroup"
)

// The fourth bad-input round (attack-round4.md), the Parquet input's cases:
// every value read as what its type denotes, through the text format's
// rules, or refused naming the column and its type.

// pqColumn is one column of a test Parquet file: its name, its node and
// one value per row.
type pqColumn struct {
	name string
	node parquet.Node
	vals []parquet.Value
}

// writeColumns writes the columns (in the given order, names as given,
// even twice) as one Parquet file at path.
func writeColumns(t *testing.T, path string, cols ...pqColumn) string {
	t.Helper()
	var g pqgroup.Group
	for _, c := range cols {
		g = append(g, pqgroup.Of(c.name, c.node))
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewWriter(f, parquet.NewSchema("schema", g))
	rows := make([]parquet.Row, len(cols[0].vals))
	for i := range rows {
		for j, c := range cols {
			rows[i] = append(rows[i], c.vals[i].Level(0, 0, j))
		}
	}
	if _, err := w.WriteRows(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func i32s(xs ...int32) []parquet.Value {
	var v []parquet.Value
	for _, x := range xs {
		v = append(v, parquet.Int32Value(x))
	}
	return v
}

func i64s(xs ...int64) []parquet.Value {
	var v []parquet.Value
	for _, x := range xs {
		v = append(v, parquet.Int64Value(x))
	}
	return v
}

func f64s(xs ...float64) []parquet.Value {
	var v []parquet.Value
	for _, x := range xs {
		v = append(v, parquet.DoubleValue(x))
	}
	return v
}

// baseColumns are four documents of two queries: qid (INT64), label
// (INT32), f1, f2 (DOUBLE).
func baseColumns() []pqColumn {
	return []pqColumn{
		{"qid", parquet.Int(64), i64s(1, 1, 2, 2)},
		{"label", parquet.Int(32), i32s(0, 1, 2, 0)},
		{"f1", parquet.Leaf(parquet.DoubleType), f64s(0.5, 1.5, 2.5, 3.5)},
		{"f2", parquet.Leaf(parquet.DoubleType), f64s(1, 2, 3, 4)},
	}
}

// with returns cols with the column of c's name replaced by c (or c
// appended when none has its name).
func with(cols []pqColumn, c pqColumn) []pqColumn {
	out := append([]pqColumn(nil), cols...)
	for i := range out {
		if out[i].name == c.name {
			out[i] = c
			return out
		}
	}
	return append(out, c)
}

// ingestErr ingests the Parquet file at path with opts and returns the
// manifest and the error.
func ingestPQ(t *testing.T, path string, opts Options) (*Manifest, string, error) {
	t.Helper()
	opts.Inputs = []string{path}
	opts.Out = filepath.Join(t.TempDir(), "ds")
	m, err := Run(t.Context(), opts)
	return m, opts.Out, err
}

// wantErr checks that err is an error that says every part.
func wantErr(t *testing.T, name string, err error, parts ...string) {
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

// TestR4_02DecimalReadByItsScale: DECIMAL columns (on INT32, INT64 and
// FIXED_LEN_BYTE_ARRAY) are read as unscaled / 10^scale, and give the
// dataset (the same data_sha256) that text holding the same decimals
// gives; a DECIMAL label 1.0 is label 1, a DECIMAL qid 1.000 is qid 1,
// and a qid 1.500 is refused quoting "1.5".
func TestR4_02DecimalReadByItsScale(t *testing.T) {
	dir := t.TempDir()
	flba := func(xs ...int64) []parquet.Value { // 9-byte two's complement
		var v []parquet.Value
		for _, x := range xs {
			b := make([]byte, 9)
			u := uint64(x)
			for i := 8; i >= 1; i-- {
				b[i] = byte(u)
				u >>= 8
			}
			if x < 0 {
				b[0] = 0xff
			}
			v = append(v, parquet.FixedLenByteArrayValue(b))
		}
		return v
	}
	cols := []pqColumn{
		{"qid", parquet.Decimal(3, 18, parquet.Int64Type), i64s(1000, 1000, 2000, 2000)},
		{"label", parquet.Decimal(1, 4, parquet.Int32Type), i32s(0, 10, 20, 0)},
		{"f1", parquet.Decimal(2, 3, parquet.Int32Type), i32s(25, 75, -150, 0)},
		{"f2", parquet.Decimal(4, 10, parquet.Int64Type), i64s(1000, 11000, 1, -99999)},
		{"f3", parquet.Decimal(2, 20, parquet.FixedLenByteArrayType(9)), flba(-5, 12345, 0, 100)},
	}
	pdir := filepath.Join(dir, "pq")
	os.Mkdir(pdir, 0o755)
	m, out, err := ingestPQ(t, writeColumns(t, filepath.Join(pdir, "rows.parquet"), cols...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tdir := filepath.Join(dir, "txt")
	os.Mkdir(tdir, 0o755)
	text := "0 qid:1 1:0.25 2:0.1 3:-0.05\n1 qid:1 1:0.75 2:1.1 3:123.45\n2 qid:2 1:-1.50 2:0.0001 3:0\n0 qid:2 1:0 2:-9.9999 3:1.00\n"
	os.WriteFile(filepath.Join(tdir, "rows.txt"), []byte(text), 0o644)
	mt, err := Run(t.Context(), Options{Inputs: []string{filepath.Join(tdir, "rows.txt")}, Out: filepath.Join(dir, "dt")})
	if err != nil {
		t.Fatal(err)
	}
	if m.DataHash != mt.DataHash {
		t.Errorf("DECIMAL input: data_sha256 %s, the same decimals as text %s", m.DataHash, mt.DataHash)
	}
	d, err := Load(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if q := d.Queries[0]; q.QID != 1 || q.Labels[1] != 1 || q.X.At(0, 0) != 0.25 || q.X.At(0, 1) != 0.1 || q.X.At(0, 2) != -0.05 {
		t.Errorf("query 0: qid %d labels %v x %v", q.QID, q.Labels, q.X.RawRowView(0))
	}

	_, _, err = ingestPQ(t, writeColumns(t, filepath.Join(dir, "qid15.parquet"), with(cols, pqColumn{"qid", parquet.Decimal(3, 18, parquet.Int64Type), i64s(1000, 1500, 2000, 2000)})...), Options{})
	wantErr(t, "DECIMAL qid 1.500", err, "qid15.parquet", `column "qid"`, "row 1", `"1.5"`)
	_, _, err = ingestPQ(t, writeColumns(t, filepath.Join(dir, "lab.parquet"), with(cols, pqColumn{"label", parquet.Decimal(1, 4, parquet.Int32Type), i32s(0, 5, 20, 0)})...), Options{})
	wantErr(t, "DECIMAL label 0.5", err, `column "label"`, "row 1", "not an integer", `"0.5"`)
}

// TestR4_02TemporalAndBinaryRefused: DATE, TIME, TIMESTAMP, INT96, BOOLEAN,
// binary without the STRING annotation: refused as a label, qid, feature
// or extra column, naming the column and its type.
func TestR4_02TemporalAndBinaryRefused(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		col   pqColumn
		type_ string
	}{
		{pqColumn{"qid", parquet.Date(), i32s(18263, 18263, 18264, 18264)}, "DATE"},
		{pqColumn{"f2", parquet.Timestamp(parquet.Millisecond), i64s(1, 2, 3, 4)}, "TIMESTAMP"},
		{pqColumn{"f1", parquet.Time(parquet.Millisecond), i32s(1, 2, 3, 4)}, "TIME"},
		{pqColumn{"label", parquet.Date(), i32s(0, 1, 2, 0)}, "DATE"},
		{pqColumn{"when", parquet.Timestamp(parquet.Microsecond), i64s(1, 2, 3, 4)}, "TIMESTAMP"},
		{pqColumn{"blob", parquet.Leaf(parquet.ByteArrayType), []parquet.Value{parquet.ByteArrayValue([]byte{0}), parquet.ByteArrayValue([]byte{1}), parquet.ByteArrayValue(nil), parquet.ByteArrayValue([]byte{2})}}, "binary"},
		{pqColumn{"f1", parquet.Leaf(parquet.BooleanType), []parquet.Value{parquet.BooleanValue(true), parquet.BooleanValue(false), parquet.BooleanValue(true), parquet.BooleanValue(true)}}, "BOOLEAN"},
	}
	for i, c := range cases {
		p := writeColumns(t, filepath.Join(dir, c.col.name+string(rune('a'+i))+".parquet"), with(baseColumns(), c.col)...)
		_, _, err := ingestPQ(t, p, Options{})
		wantErr(t, c.col.name+" "+c.type_, err, filepath.Base(p), `column "`+c.col.name+`"`, c.type_)
	}
}

// TestR4_03UnsignedNeverWrapped: a UINT32 qid 3,000,000,001 is that qid
// (it wrapped to -1,294,967,295); a UINT64 qid beyond 2^63-1 and a
// negative INT64 qid are refused as the text format refuses them; a
// UINT64 label 2^64-1 is refused quoting 18446744073709551615.
func TestR4_03UnsignedNeverWrapped(t *testing.T) {
	dir := t.TempDir()
	u32 := uint32(3000000001)
	p := writeColumns(t, filepath.Join(dir, "u32.parquet"), with(baseColumns(), pqColumn{"qid", parquet.Uint(32), i32s(int32(u32), int32(u32), int32(u32+1), int32(u32+1))})...)
	_, out, err := ingestPQ(t, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Load(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Queries[0].QID != 3000000001 || d.Queries[1].QID != 3000000002 {
		t.Errorf("UINT32 qids read as %d, %d", d.Queries[0].QID, d.Queries[1].QID)
	}
	big := uint64(10000000000000000000)
	p = writeColumns(t, filepath.Join(dir, "u64.parquet"), with(baseColumns(), pqColumn{"qid", parquet.Uint(64), i64s(int64(big), int64(big), int64(big+1), int64(big+1))})...)
	_, _, err = ingestPQ(t, p, Options{})
	wantErr(t, "UINT64 qid 1e19", err, "u64.parquet", `column "qid"`, "row 0", "non-negative integer", `"10000000000000000000"`)
	p = writeColumns(t, filepath.Join(dir, "neg.parquet"), with(baseColumns(), pqColumn{"qid", parquet.Int(64), i64s(-1, -1, 2, 2)})...)
	_, _, err = ingestPQ(t, p, Options{})
	wantErr(t, "negative qid", err, "neg.parquet", `column "qid"`, "row 0", `"-1"`)
	p = writeColumns(t, filepath.Join(dir, "ulab.parquet"), with(baseColumns(), pqColumn{"label", parquet.Uint(64), i64s(0, -1, 2, 0)})...)
	_, _, err = ingestPQ(t, p, Options{})
	wantErr(t, "UINT64 label 2^64-1", err, "ulab.parquet", `column "label"`, "row 1", `"18446744073709551615"`)
	// A UINT64 feature beyond 2^53 is the nearest double, as its digits
	// in text would be.
	p = writeColumns(t, filepath.Join(dir, "ufeat.parquet"), with(baseColumns(), pqColumn{"f1", parquet.Uint(64), i64s(-1, 1, 2, 3)})...)
	_, out, err = ingestPQ(t, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d, err = Load(out, nil); err != nil || d.Queries[0].X.At(0, 0) != 18446744073709551615.0 {
		t.Errorf("UINT64 feature 2^64-1: %v %v", err, d)
	}
}

// TestR4_04DuplicateNamesRefused: two columns of one name, whatever the
// role, are refused naming both positions.
func TestR4_04DuplicateNamesRefused(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"label", "qid", "f1", "docid"} {
		cols := baseColumns()
		if name == "docid" {
			s := []parquet.Value{parquet.ByteArrayValue([]byte("a")), parquet.ByteArrayValue([]byte("b")), parquet.ByteArrayValue([]byte("c")), parquet.ByteArrayValue([]byte("d"))}
			cols = append(cols, pqColumn{"docid", parquet.String(), s})
		}
		var dup pqColumn
		for _, c := range cols {
			if c.name == name {
				dup = c
			}
		}
		cols = append(cols, dup)
		p := writeColumns(t, filepath.Join(dir, "dup"+name+".parquet"), cols...)
		_, _, err := ingestPQ(t, p, Options{})
		wantErr(t, "two "+name, err, "dup"+name+".parquet", `column "`+name+`"`, "appears twice", "rename one")
	}
}

// TestR4_05CarriedColumnNeverShadows: with --feature-columns (or
// --label-column, --qid-column), an input column that documents.parquet
// would hold under the same name as a chosen one (f1, label, qid) is
// refused; so are a column in two roles and a feature listed twice
// (R4-05, R4-06, R4-13), whether the features were named or are the
// default f1..fN.
func TestR4_05CarriedColumnNeverShadows(t *testing.T) {
	dir := t.TempDir()
	emb := pqColumn{"emb", parquet.Leaf(parquet.DoubleType), f64s(4, 3, 2, 1)}
	p := writeColumns(t, filepath.Join(dir, "emb.parquet"), append(baseColumns(), emb)...)
	cases := []struct {
		name  string
		opts  Options
		parts []string
	}{
		{"features emb beside f1", Options{FeatureColumns: []string{"emb"}}, []string{`column "f1"`, "documents.parquet gives this name", "drop or rename"}},
		{"label f2 beside label", Options{LabelColumn: "f2", FeatureColumns: []string{"f1"}}, []string{`column "label"`, "documents.parquet gives this name"}},
		{"label and qid one column", Options{LabelColumn: "qid", QIDColumn: "qid"}, []string{`column "qid"`, "both the label and the qid"}},
		{"f1 twice", Options{FeatureColumns: []string{"f1", "f1"}}, []string{`column "f1"`, "listed twice"}},
		{"label as a feature", Options{FeatureColumns: []string{"label", "f1"}}, []string{`column "label"`, "is the label", "cannot be a feature"}},
		{"qid as a feature", Options{FeatureColumns: []string{"qid", "f1"}}, []string{`column "qid"`, "is the qid"}},
	}
	for _, c := range cases {
		_, _, err := ingestPQ(t, p, c.opts)
		wantErr(t, c.name, err, c.parts...)
	}
	// A label column among the default features f1..fN is refused too
	// (it was feature N as well as the label); naming the features
	// leaves it the label alone.
	b := baseColumns()
	nolabel := writeColumns(t, filepath.Join(dir, "nolabel.parquet"), b[0], b[2], pqColumn{"f2", parquet.Int(32), i32s(0, 1, 2, 0)})
	_, _, err := ingestPQ(t, nolabel, Options{LabelColumn: "f2"})
	wantErr(t, "label f2 among the default features", err, `column "f2"`, "is the label", "default features f1..f2", "--feature-columns")
	if _, out, err := ingestPQ(t, nolabel, Options{LabelColumn: "f2", FeatureColumns: []string{"f1"}}); err != nil {
		t.Errorf("label f2, features f1: %v", err)
	} else if d, err := Load(out, nil); err != nil || d.Manifest.Features != 1 || d.Queries[1].Labels[0] != 2 {
		t.Errorf("label f2, features f1: %v", err)
	}
	// Without a clash, the chosen columns are the features.
	only := writeColumns(t, filepath.Join(dir, "only.parquet"), baseColumns()[0], baseColumns()[1], emb)
	_, out, err := ingestPQ(t, only, Options{FeatureColumns: []string{"emb"}})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := Load(out, nil); err != nil || d.Queries[0].X.At(0, 0) != 4 {
		t.Errorf("emb as f1: %v", err)
	}
}

// TestR4_01TooManyFeatures: documents.parquet holds at most 32,768
// columns; 32,765 features (text or a Parquet list) are refused with the
// limit, not a panic, and the limit leaves room for the comment columns.
func TestR4_01TooManyFeatures(t *testing.T) {
	dir := t.TempDir()
	txt := filepath.Join(dir, "w.txt")
	os.WriteFile(txt, []byte("0 qid:1 1:0.5 32765:1\n1 qid:1 2:0.5\n"), 0o644)
	_, err := Run(t.Context(), Options{Inputs: []string{txt}, Out: filepath.Join(dir, "d")})
	wantErr(t, "text 32765 features", err, "w.txt", "32765 features", "at most 32768 columns", "at most 32764 features")

	type wide struct {
		QID   int64     `parquet:"qid"`
		Label int32     `parquet:"label"`
		F     []float64 `parquet:"features,list"`
	}
	p := filepath.Join(dir, "wide.parquet")
	f, _ := os.Create(p)
	w := parquet.NewGenericWriter[wide](f)
	row := make([]float64, MaxFeatures+1)
	w.Write([]wide{{1, 0, row}, {1, 1, row}})
	w.Close()
	f.Close()
	_, _, err = ingestPQ(t, p, Options{})
	wantErr(t, "Parquet list of 32765", err, "wide.parquet", "32765 features", "at most 32764 features")

	if checkWidth("x", MaxFeatures, &commentSchema{}) != nil || checkWidth("x", MaxFeatures+1, &commentSchema{}) == nil {
		t.Errorf("checkWidth: the limit is not %d features", MaxFeatures)
	}
	if err := checkWidth("x", MaxFeatures, &commentSchema{keys: []string{"docid"}, numeric: []bool{false}}); err == nil || !strings.Contains(err.Error(), "at most 32763 features") {
		t.Errorf("checkWidth with a comment column: %v", err)
	}
}

// TestR4_15NonFiniteFeatureNamed: a NaN or infinite feature in a Parquet
// input is refused naming file, row group, column and row (as in text),
// not by the manifest's JSON encoder.
func TestR4_15NonFiniteFeatureNamed(t *testing.T) {
	dir := t.TempDir()
	for i, x := range []float64{math.NaN(), math.Inf(1)} {
		p := writeColumns(t, filepath.Join(dir, "nan"+string(rune('a'+i))+".parquet"), with(baseColumns(), pqColumn{"f2", parquet.Leaf(parquet.DoubleType), f64s(1, 2, x, 4)})...)
		_, _, err := ingestPQ(t, p, Options{})
		wantErr(t, "feature "+p, err, filepath.Base(p), "row group 0", `column "f2"`, "row 2", "NaN or infinite")
	}
}

// TestR4_07VerifyRehashesRows: a documents.parquet of other rows under a
// manifest whose documents_sha256 was updated to it (a stale data_sha256)
// is refused by Verify, which recomputes the rows' hash; the intact
// dataset verifies.
func TestR4_07VerifyRehashesRows(t *testing.T) {
	dir := t.TempDir()
	ingestText := func(name, text string) string {
		src := filepath.Join(dir, name, "rows.txt")
		os.MkdirAll(filepath.Dir(src), 0o755)
		os.WriteFile(src, []byte(text), 0o644)
		out := filepath.Join(dir, "d"+name)
		if _, err := Run(t.Context(), Options{Inputs: []string{src}, Out: out}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a := ingestText("a", "0 qid:1 1:0.5 2:1 # docid = x inc = 1\n1 qid:1 1:0.25 2:2 # docid = y inc = 2\n")
	b := ingestText("b", "2 qid:1 1:0.5 2:1 # docid = x inc = 1\n1 qid:1 1:0.25 2:2 # docid = y inc = 2\n")
	if _, err := Verify(a); err != nil {
		t.Fatalf("intact dataset: %v", err)
	}
	docs, err := os.ReadFile(filepath.Join(b, DocumentsFile))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(a, DocumentsFile), docs, 0o644)
	mb, _ := ReadManifest(b)
	raw, _ := os.ReadFile(filepath.Join(a, ManifestFile))
	ma, _ := ReadManifest(a)
	raw = []byte(strings.Replace(string(raw), ma.FileHash, mb.FileHash, 1))
	os.WriteFile(filepath.Join(a, ManifestFile), raw, 0o644)
	_, err = Verify(a)
	wantErr(t, "stale data_sha256", err, DocumentsFile, "rows hash to "+mb.DataHash, "data_sha256 "+ma.DataHash)
}

// TestR4_30TextNamedParquet: a file named .parquet without the Parquet
// magic bytes is refused as such, not parsed as text.
func TestR4_30TextNamedParquet(t *testing.T) {
	p := filepath.Join(t.TempDir(), "notpq.parquet")
	os.WriteFile(p, []byte("hello world, not parquet\n"), 0o644)
	_, _, err := ingestPQ(t, p, Options{})
	wantErr(t, "text named .parquet", err, "notpq.parquet", "named .parquet", "magic bytes (PAR1)")
}

// TestR4_32LabelRangeSaysWhere: a label above the range guessed from 46
// features says where the range came from and how to change it, from
// text and from Parquet.
func TestR4_32LabelRangeSaysWhere(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("3 qid:1")
	for j := 1; j <= 46; j++ {
		b.WriteString(" " + itoa(j) + ":0.5")
	}
	b.WriteString("\n")
	p := filepath.Join(dir, "l3.txt")
	os.WriteFile(p, []byte(b.String()), 0o644)
	_, err := Run(t.Context(), Options{Inputs: []string{p}, Out: filepath.Join(dir, "d")})
	wantErr(t, "text label 3 of 46 features", err, "l3.txt:1", "label out of range 0..2", "guessed from the 46 features", "--label-max")
	cols := []pqColumn{{"qid", parquet.Int(64), i64s(1, 1)}, {"label", parquet.Int(32), i32s(0, 3)}}
	for j := 1; j <= 46; j++ {
		cols = append(cols, pqColumn{"f" + itoa(j), parquet.Leaf(parquet.DoubleType), f64s(0.5, 1)})
	}
	_, _, err = ingestPQ(t, writeColumns(t, filepath.Join(dir, "l3.parquet"), cols...), Options{})
	wantErr(t, "Parquet label 3 of 46 features", err, "l3.parquet", `column "label"`, "row 1", "label out of range 0..2", "guessed from the 46 features", "--label-max")
}

// TestR4_34ListAmongScalarFeatures: a list column named in a list of
// scalar feature columns says what --feature-columns takes.
func TestR4_34ListAmongScalarFeatures(t *testing.T) {
	type row struct {
		QID   int64     `parquet:"qid"`
		Label int32     `parquet:"label"`
		F1    float64   `parquet:"f1"`
		F     []float64 `parquet:"features,list"`
	}
	p := filepath.Join(t.TempDir(), "listandf.parquet")
	f, _ := os.Create(p)
	w := parquet.NewGenericWriter[row](f)
	w.Write([]row{{1, 0, 1, []float64{1, 2}}, {1, 1, 2, []float64{3, 4}}})
	w.Close()
	f.Close()
	_, _, err := ingestPQ(t, p, Options{FeatureColumns: []string{"features", "f1"}})
	wantErr(t, "list among scalars", err, `column "features"`, "--feature-columns names one list column alone, or scalar columns")
}

// TestR4_33ForceIntoSymlink: --force into a symbolic link to a dataset
// says it is a link and to give the directory itself; nothing changes.
func TestR4_33ForceIntoSymlink(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "rows.txt")
	os.WriteFile(src, []byte("0 qid:1 1:0.5\n1 qid:1 1:0.25\n"), 0o644)
	real := filepath.Join(dir, "real")
	if _, err := Run(t.Context(), Options{Inputs: []string{src}, Out: real}); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("real", link); err != nil {
		t.Skip(err)
	}
	_, err := Run(t.Context(), Options{Inputs: []string{src}, Out: link, Force: true})
	wantErr(t, "--force into a link", err, link+" is a symbolic link (to real): give the directory itself")
}
