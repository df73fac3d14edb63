package ingest

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/datasets/mq2008"
)

// TestMSLRRoundTrip: the 10 real MSLR rows (CRLF, trailing space) read back
// through Load reproduce every input number exactly.
func TestMSLRRoundTrip(t *testing.T) {
	src := filepath.Join("testdata", "mslr", "mslr_sample.txt")
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(" \r\n")) {
		t.Fatal("test data lost its CRLF / trailing space")
	}
	out := filepath.Join(t.TempDir(), "mslr")
	m, err := Run(context.Background(), Options{Inputs: []string{src}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if m.Rows != 10 || m.Queries != 1 || m.Features != 136 || m.Format != FormatMSLR || m.LabelMax != 4 {
		t.Fatalf("manifest %d rows %d queries %d features %s/%d", m.Rows, m.Queries, m.Features, m.Format, m.LabelMax)
	}
	if want := []int64{2, 4, 4, 0, 0}; !slices.Equal(m.LabelHistogram, want) {
		t.Errorf("labels %v, want %v", m.LabelHistogram, want)
	}
	if m.Sources[0].SHA256 != "20cafa4f766bea44d2bee5d14641785d4190d15a7b6d74685016a7d38c10e417" {
		t.Errorf("source sha256 %s", m.Sources[0].SHA256)
	}
	ds, err := Load(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := ds.Queries[0]
	lines := strings.Split(strings.TrimRight(string(raw), "\r\n"), "\r\n")
	if len(lines) != 10 || len(q.Labels) != 10 {
		t.Fatalf("%d lines, %d loaded rows", len(lines), len(q.Labels))
	}
	checked := 0
	for i, line := range lines {
		toks := strings.Fields(line)
		if got := strconv.FormatFloat(q.Labels[i], 'g', -1, 64); got != toks[0] {
			t.Errorf("row %d label %s, want %s", i, got, toks[0])
		}
		if q.QID != 1 || toks[1] != "qid:1" {
			t.Errorf("row %d qid", i)
		}
		for j, tok := range toks[2:] {
			idx, val, _ := strings.Cut(tok, ":")
			if idx != strconv.Itoa(j+1) {
				t.Fatalf("row %d token %q", i, tok)
			}
			want, err := strconv.ParseFloat(val, 64)
			if err != nil {
				t.Fatal(err)
			}
			got := q.X.At(i, j)
			// Printing the stored value (shortest repr) gives back the
			// input number: exact round trip.
			back, _ := strconv.ParseFloat(strconv.FormatFloat(got, 'g', -1, 64), 64)
			if got != want || back != want {
				t.Errorf("row %d f%d = %v, input %q", i, j+1, got, val)
			}
			checked++
		}
	}
	if checked != 1360 {
		t.Errorf("checked %d values, want 1360", checked)
	}
	// Spot values from SOURCE.md's first row.
	if q.X.At(0, 127) != 11089534 || q.X.At(0, 110) != -18.567793 || q.X.At(0, 46) != 0.75 {
		t.Errorf("spot values %v %v %v", q.X.At(0, 127), q.X.At(0, 110), q.X.At(0, 46))
	}
}

// TestDeterministic: the same input gives byte-identical files, whatever
// the number of workers or where the input lives.
func TestDeterministic(t *testing.T) {
	srcA, srcB := filepath.Join(t.TempDir(), "MQ2008"), filepath.Join(t.TempDir(), "MQ2008")
	for _, d := range []string{srcA, srcB} {
		if _, err := mq2008.Extract(d); err != nil {
			t.Fatal(err)
		}
	}
	outs := t.TempDir()
	var docs, mans [][]byte
	var bar, logs bytes.Buffer
	for i, o := range []Options{
		{Inputs: []string{srcA}, Workers: 1, Progress: &bar},
		{Inputs: []string{srcB}, Workers: 3, RowGroupRows: defaultRowGroupRows, Log: slog.New(slog.NewTextHandler(&logs, nil))},
	} {
		o.Out = filepath.Join(outs, strconv.Itoa(i))
		if _, err := Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		d, _ := os.ReadFile(filepath.Join(o.Out, DocumentsFile))
		m, _ := os.ReadFile(filepath.Join(o.Out, ManifestFile))
		docs, mans = append(docs, d), append(mans, m)
	}
	if !bytes.Equal(docs[0], docs[1]) {
		t.Error("documents.parquet differs between runs")
	}
	if !bytes.Equal(mans[0], mans[1]) {
		t.Error("manifest.json differs between runs")
	}
	if !strings.Contains(bar.String(), "ingest") || !strings.Contains(logs.String(), "ingest done") {
		t.Errorf("no progress output: bar %q log %q", bar.String(), logs.String())
	}
	if len(docs[0]) < 1000 || !bytes.HasPrefix(docs[0], []byte("PAR1")) {
		t.Error("documents.parquet is not a Parquet file")
	}
}

// TestAtomicOutput: no overwrite without Force; Force replaces only on
// success; a failed run leaves the old dataset and no temp files.
func TestAtomicOutput(t *testing.T) {
	dir := t.TempDir()
	goodIn := writeFile(t, filepath.Join(dir, "good.txt"), []byte(good))
	badIn := writeFile(t, filepath.Join(dir, "bad.txt"), []byte(good+"1 qid:3 1:x\n"))
	other := writeFile(t, filepath.Join(dir, "other.txt"), []byte("1 qid:4 1:1 2:2 3:3\n"))
	out := filepath.Join(dir, "out")
	m1, err := Run(context.Background(), Options{Inputs: []string{goodIn}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(out, ManifestFile))
	if _, err := Run(context.Background(), Options{Inputs: []string{other}, Out: out}); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("overwrite without Force: err %v", err)
	}
	if _, err := Run(context.Background(), Options{Inputs: []string{badIn}, Out: out, Force: true}); err == nil {
		t.Error("bad input accepted")
	}
	after, _ := os.ReadFile(filepath.Join(out, ManifestFile))
	if !bytes.Equal(before, after) {
		t.Error("existing dataset changed by refused or failed runs")
	}
	m2, err := Run(context.Background(), Options{Inputs: []string{other}, Out: out, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if m2.Rows != 1 || m1.Rows != 3 {
		t.Errorf("rows %d then %d", m1.Rows, m2.Rows)
	}
	got, err := ReadManifest(out)
	if err != nil || got.Rows != 1 || got.DataHash != m2.DataHash {
		t.Errorf("ReadManifest after Force: %+v %v", got, err)
	}
	assertNoTemp(t, dir)
	// Verify detects a changed documents.parquet.
	if _, err := Verify(out); err != nil {
		t.Errorf("Verify of an intact dataset: %v", err)
	}
	docs := filepath.Join(out, DocumentsFile)
	b, _ := os.ReadFile(docs)
	b[len(b)/2] ^= 1
	os.WriteFile(docs, b, 0o644)
	if _, err := Verify(out); err == nil || !strings.Contains(err.Error(), "documents_sha256") {
		t.Errorf("Verify of a corrupted dataset: %v", err)
	}
	// A cancelled run leaves nothing behind either.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, Options{Inputs: []string{goodIn}, Out: filepath.Join(dir, "never")}); err == nil {
		t.Error("cancelled run succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "never")); !os.IsNotExist(err) {
		t.Error("cancelled run left output")
	}
	assertNoTemp(t, dir)
}

// mslrTree writes an MSLR layout of three tiny splits into files (path ->
// content) and returns the per-split contents.
func mslrSplits() map[string]string {
	return map[string]string{
		"Fold1/train.txt": "2 qid:1 1:1 2:2\n0 qid:1 1:0 2:1\n",
		"Fold1/vali.txt":  "1 qid:2 1:5 2:5\n",
		"Fold1/test.txt":  "4 qid:3 1:7 2:8\n3 qid:3 1:9 2:9\n",
		"Fold2/train.txt": "1 qid:2 1:5 2:5\n2 qid:3 1:7 2:8\n",
		"Fold2/vali.txt":  "0 qid:1 1:1 2:2\n",
		"Fold2/test.txt":  "1 qid:9 1:1 2:2\n",
	}
}

// TestLayouts: MSLR directory, MSLR zip (with top folder), gzip members,
// LETOR 4.0 directory with --fold, and part selection.
func TestLayouts(t *testing.T) {
	dir := t.TempDir()
	splits := mslrSplits()
	var names []string
	files := map[string][]byte{}
	for name, content := range splits {
		writeFile(t, filepath.Join(dir, "MSLR-WEB10K", filepath.FromSlash(name)), []byte(content))
		gzName := filepath.Join(dir, "gz", filepath.FromSlash(name)) + ".gz"
		writeFile(t, gzName, gzipBytes(t, []byte(content)))
		files["MSLR-WEB10K/"+name] = []byte(content)
		names = append(names, "MSLR-WEB10K/"+name)
	}
	slices.Sort(names)
	writeFile(t, filepath.Join(dir, "MSLR-WEB10K.zip"), zipBytes(t, files, names))
	letor := filepath.Join(dir, "MQ2008")
	if _, err := mq2008.Extract(letor); err != nil {
		t.Fatal(err)
	}
	s4, _ := os.ReadFile(filepath.Join(letor, "S4.txt"))
	writeFile(t, filepath.Join(letor, "Fold1", "vali.txt"), s4)

	cases := []struct {
		name       string
		inputs     []string
		fold       string
		parts      []string
		rows, qs   int
		wantParts  []string
		wantFormat string
	}{
		{"MSLR dir default Fold1", []string{filepath.Join(dir, "MSLR-WEB10K")}, "", nil, 5, 3, []string{"Fold1/train", "Fold1/vali", "Fold1/test"}, FormatMSLR},
		{"MSLR zip default Fold1", []string{filepath.Join(dir, "MSLR-WEB10K.zip")}, "", nil, 5, 3, []string{"Fold1/train", "Fold1/vali", "Fold1/test"}, FormatMSLR},
		{"MSLR gz dir Fold2 train+test", []string{filepath.Join(dir, "gz")}, "Fold2", []string{"train", "test"}, 3, 3, []string{"Fold2/train", "Fold2/test"}, FormatMSLR},
		{"zip Fold2 vali", []string{filepath.Join(dir, "MSLR-WEB10K.zip")}, "Fold2", []string{"vali"}, 1, 1, []string{"Fold2/vali"}, FormatMSLR},
		{"single gz file", []string{filepath.Join(dir, "gz", "Fold1", "test.txt.gz")}, "", nil, 2, 1, []string{"Fold1/test"}, FormatSVMlight},
		{"LETOR S2,S4", []string{letor}, "", []string{"S2", "S4"}, 3635 + 2707, 314, []string{"S2", "S4"}, FormatLETOR4},
		{"LETOR Fold1 vali", []string{letor}, "Fold1", []string{"vali"}, 2707, 157, []string{"Fold1/vali"}, FormatLETOR4},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out"+strconv.Itoa(i))
			m, err := Run(context.Background(), Options{Inputs: tc.inputs, Out: out, Fold: tc.fold, Parts: tc.parts})
			if err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, p := range m.Parts {
				parts = append(parts, p.Name)
			}
			if m.Rows != tc.rows || m.Queries != tc.qs || !slices.Equal(parts, tc.wantParts) || m.Format != tc.wantFormat {
				t.Errorf("rows %d queries %d parts %v format %s; want %d %d %v %s", m.Rows, m.Queries, parts, m.Format, tc.rows, tc.qs, tc.wantParts, tc.wantFormat)
			}
			ds, err := Load(out, []int{1})
			if err != nil {
				t.Fatal(err)
			}
			if ds.Queries[0].Part != tc.wantParts[0] {
				t.Errorf("first query part %q", ds.Queries[0].Part)
			}
		})
	}
	// Reading Fold1 and Fold2 together repeats queries: an error.
	_, err := Run(context.Background(), Options{Inputs: []string{filepath.Join(dir, "MSLR-WEB10K"), filepath.Join(dir, "MSLR-WEB10K.zip")}, Out: filepath.Join(dir, "dup")})
	if err == nil || !strings.Contains(err.Error(), "qid reappears") {
		t.Errorf("duplicate queries across inputs: %v", err)
	}
	for _, bad := range []Options{
		{Inputs: []string{filepath.Join(dir, "MSLR-WEB10K")}, Fold: "Fold9x"},
		{Inputs: []string{filepath.Join(dir, "MSLR-WEB10K")}, Parts: []string{"S1"}},
		{Inputs: []string{letor}, Parts: []string{"train"}},
		{Inputs: []string{filepath.Join(dir, "gz", "Fold1", "test.txt.gz")}, Fold: "Fold1"},
		{Inputs: []string{filepath.Join(dir, "nope")}},
		{},
	} {
		bad.Out = filepath.Join(dir, "never")
		if _, err := Run(context.Background(), bad); err == nil {
			t.Errorf("options %+v accepted", bad)
		}
	}
}

// TestLoadProjection: columns come back in the order asked for, and bad
// requests are refused.
func TestLoadProjection(t *testing.T) {
	out, m := ingestMQ2008(t)
	all, err := Load(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Columns) != 46 || all.Manifest.DataHash != m.DataHash {
		t.Fatalf("columns %d manifest %s", len(all.Columns), all.Manifest.DataHash)
	}
	cols := []int{46, 3, 17, 3}
	some, err := Load(out, cols)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(some.Columns, cols) {
		t.Errorf("columns %v", some.Columns)
	}
	for qi, q := range some.Queries {
		r, c := q.X.Dims()
		if c != len(cols) || r != len(q.Labels) {
			t.Fatalf("query %d dims %dx%d", qi, r, c)
		}
		for i := 0; i < r; i++ {
			for j, col := range cols {
				if q.X.At(i, j) != all.Queries[qi].X.At(i, col-1) {
					t.Fatalf("query %d row %d col %d mismatch", qi, i, col)
				}
			}
		}
	}
	// Feature statistics agree with the loaded data.
	for j := 0; j < 46; j++ {
		lo, hi, sum, zeros := 1e300, -1e300, 0.0, 0
		for _, q := range all.Queries {
			r, _ := q.X.Dims()
			for i := 0; i < r; i++ {
				v := q.X.At(i, j)
				lo, hi, sum = min(lo, v), max(hi, v), sum+v
				if v == 0 {
					zeros++
				}
			}
		}
		fs := m.FeatureStats[j]
		if fs.Index != j+1 || fs.Min != lo || fs.Max != hi || !near(fs.Mean, sum/15211) || !near(fs.ZeroFraction, float64(zeros)/15211) {
			t.Errorf("f%d stats %+v, data min %v max %v mean %v", j+1, fs, lo, hi, sum/15211)
		}
	}
	for _, bad := range [][]int{{0}, {47}, {-1}} {
		if _, err := Load(out, bad); err == nil {
			t.Errorf("Load(%v) accepted", bad)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing"), nil); err == nil {
		t.Error("Load of a missing directory succeeded")
	}
}

func near(a, b float64) bool {
	d := a - b
	return d < 1e-12 && d > -1e-12
}
