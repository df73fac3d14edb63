package ingest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func writeFile(t *testing.T, p string, b []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func gzipBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zipBytes(t *testing.T, files map[string][]byte, order []string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range order {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(files[name])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// good is a valid 3-feature file of two queries.
const good = "2 qid:1 1:0.5 2:1 3:-2\n0 qid:1 1:0 2:0 3:0\n1 qid:7 1:3 2:4.25 3:1e-3\n"

// TestBadInput checks every bad-input case: the error names the file, the
// line and the field, and quotes the bad token.
func TestBadInput(t *testing.T) {
	cases := []struct {
		name  string
		input string // written to bad.txt
		line  int64
		field string
		token string
	}{
		{"missing qid", "1 1:0.5 2:1 3:2\n", 1, "qid", "1:0.5"},
		// The file ends inside its last line (cut inside a number, no
		// final newline, no comment column): the missing features would
		// become 0 (issue 14).
		{"truncated last line", good + "1 qid:7 1:12", 4, "feature 1", ""},
		{"truncated last line, later feature", good + "1 qid:7 1:1 2:4", 4, "feature 2", ""},
		{"missing qid, no features", good + "1\n", 4, "qid", ""},
		{"malformed qid", good + "1 qid:x7 1:1\n", 4, "qid", "qid:x7"},
		{"negative qid", good + "1 qid:-3 1:1\n", 4, "qid", "qid:-3"},
		{"non-integer label", good + "1.5 qid:9 1:1\n", 4, "label", "1.5"},
		{"non-numeric label", good + "high qid:9 1:1\n", 4, "label", "high"},
		{"label above range", good + "5 qid:9 1:1\n", 4, "label", "5"},
		{"negative label", good + "-1 qid:9 1:1\n", 4, "label", "-1"},
		{"feature index out of range", good + "1 qid:9 1:1 4:2\n", 4, "feature 4", "4:2"},
		{"feature index zero", good + "1 qid:9 0:1\n", 4, "feature 0", "0:1"},
		{"feature index repeated", good + "1 qid:9 1:1 2:2 2:3\n", 4, "feature 2", "2:3"},
		{"feature index decreasing", good + "1 qid:9 2:1 1:2\n", 4, "feature 1", "1:2"},
		{"malformed feature", good + "1 qid:9 1:1 junk\n", 4, "feature", "junk"},
		{"malformed feature index", good + "1 qid:9 a:1\n", 4, "feature", "a:1"},
		{"non-numeric value", good + "1 qid:9 1:abc\n", 4, "feature 1", "1:abc"},
		{"empty value", good + "1 qid:9 1:\n", 4, "feature 1", "1:"},
		{"NaN value", good + "1 qid:9 1:1 2:NaN\n", 4, "feature 2", "2:NaN"},
		{"Inf value", good + "1 qid:9 3:-Inf\n", 4, "feature 3", "3:-Inf"},
		{"overflowing value", good + "1 qid:9 3:1e999\n", 4, "feature 3", "3:1e999"},
		{"qid reappears", good + "1 qid:1 1:1\n", 4, "qid", "qid:1"},
		{"label written as a number above range", good + "5.0 qid:9 1:1\n", 4, "label", "5.0"},
		{"label written as a negative number", good + "-1e0 qid:9 1:1\n", 4, "label", "-1e0"},
		{"label written as NaN", good + "NaN qid:9 1:1\n", 4, "label", "NaN"},
		{"feature index above 65536", good + "1 qid:9 65537:1\n", 4, "feature", "65537:1"},
		{"feature index of 20 digits", good + "1 qid:9 99999999999999999999:1\n", 4, "feature", "99999999999999999999:1"},
		{"first line: malformed qid", "1 qid:x 1:1\n", 1, "qid", "qid:x"},
		{"first line: feature index zero", "1 qid:1 0:1\n", 1, "feature 0", "0:1"},
		{"first line: feature index above 65536", "1 qid:1 65537:1\n", 1, "feature", "65537:1"},
		{"first line: malformed feature", "1 qid:1 1:1 junk\n", 1, "feature", "junk"},
		{"first line bad", "x qid:1 1:1\n", 1, "label", "x"},
		{"first line bad after blank lines", "\n  \n# header\nx qid:1 1:1\n", 4, "label", "x"},
		{"first line without features", "1 qid:1\n", 1, "feature", "1 qid:1"},
		{"empty input", "", 0, "file", ""},
		{"blank input", "\n  \r\n# only a comment\n", 0, "file", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in := writeFile(t, filepath.Join(dir, "bad.txt"), []byte(tc.input))
			out := filepath.Join(dir, "out")
			_, err := Run(context.Background(), Options{Inputs: []string{in}, Out: out})
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			want := in + ":" + strconv.FormatInt(tc.line, 10) + ": " + tc.field + ": "
			if !strings.Contains(msg, want) {
				t.Errorf("error %q does not contain %q", msg, want)
			}
			if !strings.Contains(msg, strconv.Quote(tc.token)) {
				t.Errorf("error %q does not quote token %q", msg, tc.token)
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line != tc.line || pe.Field != tc.field || pe.Token != tc.token {
				t.Errorf("ParseError = %+v, want line %d field %q token %q", pe, tc.line, tc.field, tc.token)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("output exists after failure: %v", err)
			}
			assertNoTemp(t, dir)
		})
	}
}

// assertNoTemp checks that no temporary directory was left in dir.
func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind %s", e.Name())
		}
	}
}

// TestBadContainers covers truncated gzip and zip input and incomplete
// directory layouts.
func TestBadContainers(t *testing.T) {
	var big strings.Builder
	for q := 1; q <= 300; q++ {
		for d := 0; d < 5; d++ {
			big.WriteString(strconv.Itoa(d%3) + " qid:" + strconv.Itoa(q) + " 1:" + strconv.Itoa(q*d) + ".123 2:0.5 3:" + strconv.Itoa(d) + "\n")
		}
	}
	gz := gzipBytes(t, []byte(big.String()))
	zipped := zipBytes(t, map[string][]byte{
		"MSLR-WEB10K/Fold1/train.txt": []byte(big.String()),
		"MSLR-WEB10K/Fold1/vali.txt":  []byte("1 qid:1000 1:1\n"),
		"MSLR-WEB10K/Fold1/test.txt":  []byte("1 qid:1001 1:1\n"),
	}, []string{"MSLR-WEB10K/Fold1/train.txt", "MSLR-WEB10K/Fold1/vali.txt", "MSLR-WEB10K/Fold1/test.txt"})
	cases := []struct {
		name  string
		setup func(dir string) string // returns the input path
		want  []string                // substrings of the error
	}{
		{"truncated gzip", func(dir string) string {
			return writeFile(t, filepath.Join(dir, "train.txt.gz"), gz[:len(gz)/2])
		}, []string{"train.txt.gz", "truncated gzip"}},
		{"gzip without trailer", func(dir string) string {
			return writeFile(t, filepath.Join(dir, "train.txt.gz"), gz[:len(gz)-4])
		}, []string{"train.txt.gz", "truncated gzip"}},
		{"corrupt gzip", func(dir string) string {
			b := append([]byte(nil), gz...)
			for i := 40; i < 60; i++ {
				b[i] ^= 0xff
			}
			return writeFile(t, filepath.Join(dir, "train.txt.gz"), b)
		}, []string{"train.txt.gz", "gzip"}},
		{"truncated zip", func(dir string) string {
			return writeFile(t, filepath.Join(dir, "MSLR-WEB10K.zip"), zipped[:len(zipped)*2/3])
		}, []string{"MSLR-WEB10K.zip", "truncated or corrupt"}},
		{"truncated zip member", func(dir string) string {
			return writeFile(t, filepath.Join(dir, "MSLR-WEB10K.zip"), rawZip(t, big.String(), 0.5, false))
		}, []string{"MSLR-WEB10K.zip", "Fold1/train.txt: truncated zip member"}},
		{"corrupt zip member", func(dir string) string {
			return writeFile(t, filepath.Join(dir, "MSLR-WEB10K.zip"), rawZip(t, big.String(), 1, true))
		}, []string{"MSLR-WEB10K.zip", "Fold1/train.txt: corrupt zip member"}},
		{"zip missing a split", func(dir string) string {
			b := zipBytes(t, map[string][]byte{"Fold1/train.txt": []byte(good)}, []string{"Fold1/train.txt"})
			return writeFile(t, filepath.Join(dir, "MSLR-WEB10K.zip"), b)
		}, []string{"MSLR-WEB10K.zip", "missing Fold1/vali.txt"}},
		{"MSLR directory missing a split", func(dir string) string {
			root := filepath.Join(dir, "MSLR-WEB10K")
			writeFile(t, filepath.Join(root, "Fold1", "train.txt"), []byte(good))
			writeFile(t, filepath.Join(root, "Fold1", "test.txt"), []byte("1 qid:99 1:1\n"))
			return root
		}, []string{"MSLR-WEB10K", "missing Fold1/vali.txt"}},
		{"LETOR directory missing a partition", func(dir string) string {
			root := filepath.Join(dir, "MQ2008")
			for _, s := range []string{"S1", "S2", "S4", "S5"} {
				writeFile(t, filepath.Join(root, s+".txt"), []byte(good))
			}
			return root
		}, []string{"MQ2008", "missing S3.txt"}},
		{"not a layout", func(dir string) string {
			root := filepath.Join(dir, "stuff")
			writeFile(t, filepath.Join(root, "a.txt"), []byte(good))
			return root
		}, []string{"stuff", "not a dataset layout"}},
		{"empty split in a layout", func(dir string) string {
			root := filepath.Join(dir, "MSLR-WEB10K")
			writeFile(t, filepath.Join(root, "Fold1", "train.txt"), []byte(good))
			writeFile(t, filepath.Join(root, "Fold1", "vali.txt"), nil)
			writeFile(t, filepath.Join(root, "Fold1", "test.txt"), []byte("1 qid:99 1:1\n"))
			return root
		}, []string{filepath.Join("Fold1", "vali.txt") + ":0: file: empty input"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in := tc.setup(dir)
			out := filepath.Join(dir, "out")
			_, err := Run(context.Background(), Options{Inputs: []string{in}, Out: out})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("output exists after failure")
			}
			assertNoTemp(t, dir)
		})
	}
}

// rawZip returns an MSLR-WEB10K zip whose Fold1/train.txt member holds
// train deflated, with its central directory intact but the member's data
// cut to the fraction keep of its bytes (and its recorded size with it:
// the stream ends early), or with bytes flipped in its middle.
func rawZip(t *testing.T, train string, keep float64, flip bool) []byte {
	t.Helper()
	var def bytes.Buffer
	fw, _ := flate.NewWriter(&def, flate.BestSpeed)
	fw.Write([]byte(train))
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	data := def.Bytes()[:int(float64(def.Len())*keep)]
	if flip {
		for i := len(data) / 2; i < len(data)/2+16; i++ {
			data[i] ^= 0xa5
		}
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "Fold1/train.txt", Method: zip.Deflate,
		CRC32: crc32.ChecksumIEEE([]byte(train)), CompressedSize64: uint64(len(data)), UncompressedSize64: uint64(len(train))})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	for _, name := range []string{"Fold1/vali.txt", "Fold1/test.txt"} {
		w, _ := zw.Create(name)
		w.Write([]byte("1 qid:1000 1:1\n"))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestNormalInput: CRLF, trailing blanks, tabs, blank and comment lines,
// sparse features and comments are all accepted.
func TestNormalInput(t *testing.T) {
	in := "# header comment\r\n" +
		"2 qid:1 1:0.5 3:-2 \r\n" +
		"\r\n" +
		"0\tqid:1\t2:7\t3:1e2   # free text\r\n" +
		"1 qid:5 1:.5 2:3. 3:+4\n" +
		"1 qid:5 1:1.0E-2\n" // sparse; without the newline it would look truncated (TestBadInput)
	dir := t.TempDir()
	p := writeFile(t, filepath.Join(dir, "ok.txt"), []byte(in))
	out := filepath.Join(dir, "out")
	m, err := Run(context.Background(), Options{Inputs: []string{p}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if m.Rows != 4 || m.Queries != 2 || m.Features != 3 || m.CommentsIgnored != 1 {
		t.Fatalf("rows %d queries %d features %d comments ignored %d", m.Rows, m.Queries, m.Features, m.CommentsIgnored)
	}
	if m.Sources[0].Lines != 6 {
		t.Errorf("lines %d, want 6", m.Sources[0].Lines)
	}
	ds, err := Load(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{0.5, 0, -2}, {0, 7, 100}, {0.5, 3, 4}, {0.01, 0, 0}}
	r := 0
	for _, q := range ds.Queries {
		for i := range q.Labels {
			for j, w := range want[r] {
				if got := q.X.At(i, j); got != w {
					t.Errorf("row %d f%d = %v, want %v", r, j+1, got, w)
				}
			}
			r++
		}
	}
	if ds.Queries[1].Labels[1] != 1 || ds.Queries[0].Labels[0] != 2 {
		t.Errorf("labels %v %v", ds.Queries[0].Labels, ds.Queries[1].Labels)
	}
}

// TestLenient skips bad lines and records them.
func TestLenient(t *testing.T) {
	in := good + "9 qid:8 1:1\n" + "1 qid:8 1:zz\n" + "1 qid:8 1:1\n" + "1 qid:1 1:1\n" + "0 qid:8 2:2\n"
	dir := t.TempDir()
	p := writeFile(t, filepath.Join(dir, "in.txt"), []byte(in))
	m, err := Run(context.Background(), Options{Inputs: []string{p}, Out: filepath.Join(dir, "out"), Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	if m.Skipped.Count != 3 || len(m.Skipped.Examples) != 3 {
		t.Fatalf("skipped %+v, want 3", m.Skipped)
	}
	for i, w := range []string{"in.txt:4: label", "in.txt:5: feature 1", "in.txt:7: qid"} {
		if !strings.Contains(m.Skipped.Examples[i], w) {
			t.Errorf("example %d %q lacks %q", i, m.Skipped.Examples[i], w)
		}
	}
	if m.Rows != 5 || m.Queries != 3 || !m.Lenient {
		t.Errorf("rows %d queries %d lenient %v, want 5 3 true", m.Rows, m.Queries, m.Lenient)
	}
	// A bad first line does not decide the schema in lenient mode.
	p2 := writeFile(t, filepath.Join(dir, "in2.txt"), []byte("x qid:1 1:1\n"+good))
	m2, err := Run(context.Background(), Options{Inputs: []string{p2}, Out: filepath.Join(dir, "out2"), Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	if m2.Skipped.Count != 1 || m2.Rows != 3 || m2.Features != 3 || !strings.Contains(m2.Skipped.Examples[0], "in2.txt:1: label") {
		t.Errorf("bad first line, lenient: %+v rows %d features %d", m2.Skipped, m2.Rows, m2.Features)
	}
	ds, err := Load(filepath.Join(dir, "out"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if q := ds.Queries[2]; q.QID != 8 || len(q.Labels) != 2 || q.X.At(1, 1) != 2 {
		t.Errorf("query 3: qid %d docs %d", q.QID, len(q.Labels))
	}
}

// TestLETORComments: typed comment columns and their validation.
func TestLETORComments(t *testing.T) {
	line := func(q int, docid, inc string) string {
		return "0 qid:" + strconv.Itoa(q) + " 1:0.1 2:0.2 #docid = " + docid + " inc = " + inc + " prob = 0.5\n"
	}
	dir := t.TempDir()
	p := writeFile(t, filepath.Join(dir, "c.txt"), []byte(line(1, "GX1", "1")+line(1, "GX2", "0.25")))
	out := filepath.Join(dir, "out")
	m, err := Run(context.Background(), Options{Inputs: []string{p}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.CommentColumns) != 3 || m.CommentColumns[0] != (CommentColumn{"docid", "string"}) || m.CommentColumns[1] != (CommentColumn{"inc", "double"}) {
		t.Errorf("comment columns %v", m.CommentColumns)
	}
	for _, bad := range []struct{ text, token string }{
		{"0 qid:1 1:0.1 2:0.2\n", ""},
		{"0 qid:1 1:0.1 #docid = GX3 inc = x prob = 0.5\n", "x"},
		{"0 qid:1 1:0.1 #docid = GX3 prob = 0.5\n", "docid = GX3 prob = 0.5"},
	} {
		p := writeFile(t, filepath.Join(dir, "bad.txt"), []byte(line(1, "GX1", "1")+bad.text))
		_, err := Run(context.Background(), Options{Inputs: []string{p}, Out: filepath.Join(dir, "o2")})
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != 2 || !strings.HasPrefix(pe.Field, "comment") || pe.Token != bad.token {
			t.Errorf("%q: error %v", bad.text, err)
		}
	}
}

func TestFastFloatMatchesStrconv(t *testing.T) {
	for _, s := range []string{"0", "-0", "1", "0.1", "3.", ".5", "+4", "-18.567793", "0.000001", "123456789012345",
		"0.123456789012345", "9007199254740993", "1234567890.12345", "0.75000", "00012.5000", "1e5", "inf", "nan", "", "-", ".", "1.2.3"} {
		v, ok := fastFloat([]byte(s))
		w, err := strconv.ParseFloat(s, 64)
		if ok && (err != nil || v != w || (v == 0 && (1/v > 0) != (1/w > 0))) {
			t.Errorf("fastFloat(%q) = %v, strconv %v %v", s, v, w, err)
		}
	}
	if _, ok := fastFloat([]byte("0.1")); !ok {
		t.Error("fast path not taken for 0.1")
	}
}

// TestNoFinalNewline: a complete last line without a final newline (all
// features, or a comment column) is accepted as before.
func TestNoFinalNewline(t *testing.T) {
	for _, in := range []string{
		strings.TrimSuffix(good, "\n"),
		good + "0 qid:8 1:1 #docid = X1",
		good + "0 qid:8 1:1 2:2 #docid = X1",
	} {
		dir := t.TempDir()
		p := writeFile(t, filepath.Join(dir, "in.txt"), []byte(in))
		if _, err := Run(context.Background(), Options{Inputs: []string{p}, Out: filepath.Join(dir, "out")}); err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
}

// TestEmptyLines: empty lines (a bare "\n", at the start, between rows and
// at the end) are skipped like other blank lines: the documents are those
// of the same input without them, and line numbers in errors still count
// them.
func TestEmptyLines(t *testing.T) {
	dir := t.TempDir()
	// Same file name, so the same part column.
	plain := writeFile(t, filepath.Join(dir, "plain", "in.txt"), []byte(good))
	lines := strings.SplitAfter(good, "\n")
	spaced := "\n" + lines[0] + "\n\n" + lines[1] + lines[2] + "\n"
	p := writeFile(t, filepath.Join(dir, "spaced", "in.txt"), []byte(spaced))
	want, err := Run(context.Background(), Options{Inputs: []string{plain}, Out: filepath.Join(dir, "o1")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Run(context.Background(), Options{Inputs: []string{p}, Out: filepath.Join(dir, "o2")})
	if err != nil {
		t.Fatal(err)
	}
	if got.DataHash != want.DataHash || got.Rows != 3 || got.Sources[0].Lines != 7 {
		t.Errorf("with empty lines: rows %d, lines %d, documents %s; want 3, 7, %s",
			got.Rows, got.Sources[0].Lines, got.DataHash, want.DataHash)
	}
	bad := writeFile(t, filepath.Join(dir, "bad.txt"), []byte(spaced+"\n1 qid:7 1:x\n"))
	_, err = Run(context.Background(), Options{Inputs: []string{bad}, Out: filepath.Join(dir, "o3")})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 9 || !strings.Contains(err.Error(), "bad.txt:9") {
		t.Errorf("bad line after empty lines: %v, want bad.txt:9", err)
	}
}

// TestValidFoldAndPart: the fold and part names of the MSLR-WEB and LETOR
// 4.0 layouts, and their near misses.
func TestValidFoldAndPart(t *testing.T) {
	for _, f := range []string{"Fold1", "Fold2", "Fold3", "Fold4", "Fold5"} {
		if !ValidFold(f) {
			t.Errorf("ValidFold(%q) = false", f)
		}
	}
	for _, f := range []string{"", "Fold", "Fold0", "Fold6", "Fold10", "fold1", "Fald1", "Fold/", "Fold:", "1Fold"} {
		if ValidFold(f) {
			t.Errorf("ValidFold(%q) = true", f)
		}
	}
	for _, p := range []string{"train", "vali", "test", "S1", "S2", "S3", "S4", "S5"} {
		if !ValidPart(p) {
			t.Errorf("ValidPart(%q) = false", p)
		}
	}
	for _, p := range []string{"", "S0", "S6", "valid", "Train", "train.txt"} {
		if ValidPart(p) {
			t.Errorf("ValidPart(%q) = true", p)
		}
	}
}

// TestLabelWrittenAsNumber: a label written as a floating-point number
// with an integral value ("2.0", "1e0", "4.") is that integer, at both ends
// of the range.
func TestLabelWrittenAsNumber(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, filepath.Join(dir, "in.txt"), []byte("2.0 qid:1 1:1\n1e0 qid:1 1:2\n4. qid:1 1:3\n-0.0 qid:1 1:4\n"))
	out := filepath.Join(dir, "out")
	if _, err := Run(context.Background(), Options{Inputs: []string{in}, Out: out}); err != nil {
		t.Fatal(err)
	}
	ds, err := Load(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := ds.Queries[0].Labels; !reflect.DeepEqual(got, []float64{2, 1, 4, 0}) {
		t.Errorf("labels %v, want [2 1 4 0]", got)
	}
}

// TestFastPathsTaken: the plain decimal forms take the fast parsers (which
// FuzzFastFloat checks against strconv), and every other form is left to
// strconv. A fast path that bailed out too often would give the same
// values, only slower, so this is what pins it: its limits (15 significant
// digits, 22 fraction digits, indexes up to 65536) at both sides.
func TestFastPathsTaken(t *testing.T) {
	floats := []struct {
		in string
		ok bool
	}{
		{"0", true}, {"-0", true}, {"+3", true}, {"1.", true}, {".5", true}, {"-18.567793", true},
		{"123456789012345", true}, {"1234567890123456", false}, // 15 and 16 significant digits
		{"0000000000000000001", true},                                            // leading zeros are not significant
		{"0.0000000000000000000001", true}, {"0.00000000000000000000001", false}, // 22 and 23 fraction digits
		{"", false}, {"-", false}, {".", false}, {"1e5", false}, {"1.2.3", false}, {"0x1", false}, {"inf", false}, {"1 ", false},
	}
	for _, c := range floats {
		v, ok := fastFloat([]byte(c.in))
		if ok != c.ok {
			t.Errorf("fastFloat(%q): ok %v, want %v", c.in, ok, c.ok)
			continue
		}
		if w, _ := strconv.ParseFloat(c.in, 64); ok && math.Float64bits(v) != math.Float64bits(w) {
			t.Errorf("fastFloat(%q) = %v, want %v", c.in, v, w)
		}
	}
	features := []struct {
		in  string
		idx int
		val string // the value's text; "" when the fast path must decline
		end int
	}{
		{"1:0.5", 1, "0.5", 5},
		{"65536:-2.25 9:1", 65536, "-2.25", 11},
		{"7:3\tx", 7, "3", 3},
		{"19:2", 19, "2", 4}, // every digit of the index, 0 to 9
		{"0:1", 0, "1", 3},   // the index range is the caller's check
		{"7:123456789012345", 7, "123456789012345", 17},
		{"7:1234567890123456", 0, "", 0},
		{"7:0.0000000000000000000001", 7, "0.0000000000000000000001", 26},
		{"7:0.00000000000000000000001", 0, "", 0},
		{"65537:1", 0, "", 0},
		{"99999999999999999999:1", 0, "", 0},
		{":1", 0, "", 0}, {"7", 0, "", 0}, {"7:", 0, "", 0}, {"7:-", 0, "", 0},
		{"7:1e3", 0, "", 0}, {"7:1,5", 0, "", 0}, {"7;1", 0, "", 0},
	}
	for _, c := range features {
		idx, v, end, ok := fastFeature([]byte(c.in), 0)
		if ok != (c.val != "") {
			t.Errorf("fastFeature(%q): ok %v, want %v", c.in, ok, c.val != "")
			continue
		}
		if !ok {
			continue
		}
		w, _ := strconv.ParseFloat(c.val, 64)
		if idx != c.idx || math.Float64bits(v) != math.Float64bits(w) || end != c.end {
			t.Errorf("fastFeature(%q) = %d, %v, end %d; want %d, %v, %d", c.in, idx, v, end, c.idx, w, c.end)
		}
	}
	// parseFeatureIndex, the general path, accepts exactly the same range.
	for _, c := range []struct {
		tok string
		idx int
	}{{"65536:1", 65536}, {"1:1", 1}, {"007:1", 7}, {"65537:1", -1}, {"1a:1", -1}, {":1", -1}, {"1", -1}} {
		idx, _, fe := parseFeatureIndex([]byte(c.tok))
		if (fe == nil) != (c.idx >= 0) || (fe == nil && idx != c.idx) {
			t.Errorf("parseFeatureIndex(%q) = %d, %v; want %d", c.tok, idx, fe, c.idx)
		}
	}
}

// TestLineLongerThanChunk: a line longer than the reader's 2 MiB chunks (a
// 5 MiB comment) is read whole, and the lines after it keep their numbers.
func TestLineLongerThanChunk(t *testing.T) {
	dir := t.TempDir()
	long := "0 qid:1 1:1 2:2 # " + strings.Repeat("x", 5<<20) + "\n"
	in := writeFile(t, filepath.Join(dir, "in.txt"), []byte(long+"1 qid:1 1:3 2:4 # short\n"+"2 qid:2 1:5 2:6 # short\n"))
	out := filepath.Join(dir, "out")
	m, err := Run(context.Background(), Options{Inputs: []string{in}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if m.Rows != 3 || m.Sources[0].Lines != 3 || len(m.CommentColumns) != 1 || m.CommentColumns[0].Name != "comment" {
		t.Errorf("rows %d lines %d comment columns %v", m.Rows, m.Sources[0].Lines, m.CommentColumns)
	}
	r, err := openParquet(filepath.Join(out, DocumentsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	col, _ := r.column("comment")
	comments := make([]string, 3)
	if err := readStrings(r.pf.RowGroups()[0].ColumnChunks()[col.ColumnIndex], comments); err != nil {
		t.Fatal(err)
	}
	if comments[0] != long[len("0 qid:1 1:1 2:2 # "):len(long)-1] || comments[1] != "short" {
		t.Errorf("comments: lengths %d, %d", len(comments[0]), len(comments[1]))
	}
	bad := writeFile(t, filepath.Join(dir, "bad.txt"), []byte(long+"1 qid:1 1:3 2:4 # short\n"+"1 qid:1 1:x\n"))
	_, err = Run(context.Background(), Options{Inputs: []string{bad}, Out: filepath.Join(dir, "o2")})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 3 {
		t.Errorf("bad line after the long one: %v, want line 3", err)
	}
}

// TestExamplesCapped: manifest.json counts every skipped line and every
// ragged row but keeps only the first ten of each as examples, in input
// order.
func TestExamplesCapped(t *testing.T) {
	dir := t.TempDir()
	var in strings.Builder
	in.WriteString("1 qid:1 1:1 2:2 3:3\n")
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&in, "1 qid:%d 1:x\n", 2+i) // skipped
	}
	p := writeFile(t, filepath.Join(dir, "in.txt"), []byte(in.String()))
	m, err := Run(context.Background(), Options{Inputs: []string{p}, Out: filepath.Join(dir, "o1"), Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	if m.Skipped.Count != 12 || len(m.Skipped.Examples) != 10 || !strings.Contains(m.Skipped.Examples[9], "in.txt:11:") {
		t.Errorf("skipped: count %d, %d examples, the last %q; want 12, 10, line 11", m.Skipped.Count, len(m.Skipped.Examples), m.Skipped.Examples[len(m.Skipped.Examples)-1])
	}
	// Ragged rows of an MSLR-format file (136 features), accepted.
	var buf bytes.Buffer
	if err := Synth(&buf, SynthOptions{Queries: 2, MeanDocs: 8, MaxDocs: 14}); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(buf.Bytes(), []byte("\n"))
	for i := 1; i <= 12; i++ {
		k := bytes.Index(lines[i], []byte(" 136:"))
		lines[i] = append(append([]byte{}, lines[i][:k]...), "\r\n"...)
	}
	p2 := writeFile(t, filepath.Join(dir, "train.txt"), bytes.Join(lines, nil))
	m2, err := Run(context.Background(), Options{Inputs: []string{p2}, Out: filepath.Join(dir, "o2"), AllowRagged: true})
	if err != nil {
		t.Fatal(err)
	}
	if m2.Ragged == nil || m2.Ragged.Count != 12 || len(m2.Ragged.Examples) != 10 || !strings.Contains(m2.Ragged.Examples[9], "train.txt:11:") {
		t.Errorf("ragged: %+v; want 12 rows, 10 examples, the last at line 11", m2.Ragged)
	}
}
