package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/datasets/mq2008"
)

// rawCommentText has free-text comments (one raw "comment" column),
// empty ones included, and sparse lines.
const rawCommentText = "1 qid:5 1:0.5 2:-1.25 3:3 # first doc, free text\n" +
	"0 qid:5 1:0 2:0 3:1e-3 #\n" +
	"2 qid:7 1:7 2:8 3:9 # x=y=z\n" +
	"0 qid:7 2:4.5 # \n" +
	"1 qid:9 1:1 3:2 # last\n"

// compatSources writes the inputs of testdata/v1-compat into dir: the
// first 20 lines of MQ2008's S1.txt and S2.txt. It returns their paths.
func compatSources(t *testing.T, mq, dir string) []string {
	t.Helper()
	var paths []string
	for _, s := range []string{"S1.txt", "S2.txt"} {
		b, err := os.ReadFile(filepath.Join(mq, s))
		if err != nil {
			t.Fatal(err)
		}
		n, i := 0, 0
		for ; i < len(b) && n < 20; i++ {
			if b[i] == '\n' {
				n++
			}
		}
		p := filepath.Join(dir, s)
		if err := os.WriteFile(p, b[:i], 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestDocumentsBytes: documents.parquet is byte-for-byte the file that the
// earlier writer (arrow-go's pqarrow, up to commit 5cab670) made from the
// same input, so every dataset keeps its documents_sha256 (and with it the
// ltr run ids and the fitted artifacts). The hashes below were printed by
// that commit's Run on these inputs: MQ2008 with its typed comment columns
// (docid string, inc and prob double) in one row group and in 16, a real
// MSLR sample, a synthetic MSLR-shaped file in three row groups, raw
// free-text comments (empty ones included) in row groups of two rows, and
// the inputs of testdata/v1-compat, whose manifest must also be unchanged.
//
// Mutation controls, each of which made this test fail: the doc column
// without its INT(32, signed) logical type (all cases); dictionary
// encoding off for the part column (all); no key-value metadata list in
// the footer (all); an empty comment passed as a nil byte array, which the
// column statistics take for no value (raw-comment-rg2).
func TestDocumentsBytes(t *testing.T) {
	dir := t.TempDir()
	mq := filepath.Join(dir, "mq")
	if _, err := mq2008.Extract(mq); err != nil {
		t.Fatal(err)
	}
	syn := filepath.Join(dir, "synth.txt")
	f, err := os.Create(syn)
	if err != nil {
		t.Fatal(err)
	}
	if err := Synth(f, SynthOptions{Seed: 1, Queries: 100}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	raw := writeFile(t, filepath.Join(dir, "raw.txt"), []byte(rawCommentText))
	compat := compatSources(t, mq, t.TempDir())

	cases := []struct {
		name   string
		opts   Options
		sha256 string
		rows   int
	}{
		{"mq2008", Options{Inputs: []string{mq}}, "f498bae92c10be86e3a59837e70e3168674d37fd12d0fa53fa88ea8bfcd55bab", 15211},
		{"mq2008-rg1000", Options{Inputs: []string{mq}, RowGroupRows: 1000}, "4fb5337951ae6c0d873abe6501e039d58424ade82b5cb4111fa7b5e9c5454a3e", 15211},
		{"mslr-sample", Options{Inputs: []string{"testdata/mslr/mslr_sample.txt"}}, "517c2be9a9e375ed2581b2da6e39007f1a4f6392d96f7457bca9d01a5dc18acc", 10},
		{"synth100-rg5000", Options{Inputs: []string{syn}, RowGroupRows: 5000}, "74216d82edd7b409b3c56b828728fb1d5cec717716747eb483f40ab0389d7f72", 11602},
		{"raw-comment-rg2", Options{Inputs: []string{raw}, RowGroupRows: 2}, "05b0b043c4b56bc56ba42424cb30a7de550bb3bb9ac426caf883b9bcc034200e", 5},
		{"v1-compat", Options{Inputs: compat, RowGroupRows: 16}, "9029840e472d5b72d5c339c4175d877633bc72208e59621cd248f8ab0a7972f9", 40},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Out = filepath.Join(dir, c.name)
			m, err := Run(t.Context(), c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if m.Rows != c.rows || m.DocumentsHash != c.sha256 {
				t.Errorf("rows %d, documents_sha256 %s; the earlier writer made %d rows, %s", m.Rows, m.DocumentsHash, c.rows, c.sha256)
			}
		})
	}
	got, err := os.ReadFile(filepath.Join(dir, "v1-compat", ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "v1-compat", ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	// The manifest names its sources by base name only, so the temp
	// directory does not enter it.
	if !bytes.Equal(got, want) {
		t.Errorf("manifest.json of the v1-compat inputs differs from testdata/v1-compat/manifest.json")
	}
}

// TestLoadsEarlierDataset: a dataset written by the earlier release
// (testdata/v1-compat, see its SOURCE.md) passes Verify and Load, and Load
// returns exactly the labels, qids, parts and features of its source text.
func TestLoadsEarlierDataset(t *testing.T) {
	// A copy: Load records its check in the dataset directory.
	ds := filepath.Join(t.TempDir(), "v1")
	if err := os.Mkdir(ds, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{DocumentsFile, ManifestFile} {
		b, err := os.ReadFile(filepath.Join("testdata", "v1-compat", name))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(ds, name), b)
	}
	if _, err := Verify(ds); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	got, err := Load(ds, nil)
	if err != nil {
		t.Fatal(err)
	}

	mq := t.TempDir()
	if _, err := mq2008.Extract(mq); err != nil {
		t.Fatal(err)
	}
	type doc struct {
		qid   int64
		part  string
		label float64
		x     []float64
	}
	var want []doc
	for _, p := range compatSources(t, mq, t.TempDir()) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		part := strings.TrimSuffix(filepath.Base(p), ".txt")
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			line, _, _ = strings.Cut(line, "#")
			fields := strings.Fields(line)
			d := doc{part: part, x: make([]float64, 46)}
			d.label, _ = strconv.ParseFloat(fields[0], 64)
			d.qid, _ = strconv.ParseInt(strings.TrimPrefix(fields[1], "qid:"), 10, 64)
			for _, kv := range fields[2:] {
				k, v, _ := strings.Cut(kv, ":")
				j, _ := strconv.Atoi(k)
				d.x[j-1], _ = strconv.ParseFloat(v, 64)
			}
			want = append(want, d)
		}
	}
	if got.Rows() != len(want) || len(got.Columns) != 46 {
		t.Fatalf("%d rows, %d columns; want %d, 46", got.Rows(), len(got.Columns), len(want))
	}
	i := 0
	for _, q := range got.Queries {
		for r := range q.Labels {
			w := want[i]
			if q.QID != w.qid || q.Part != w.part || q.Labels[r] != w.label {
				t.Fatalf("row %d: qid %d part %s label %v; want %d %s %v", i, q.QID, q.Part, q.Labels[r], w.qid, w.part, w.label)
			}
			for j, v := range w.x {
				if q.X.At(r, j) != v {
					t.Fatalf("row %d f%d = %v, want %v", i, j+1, q.X.At(r, j), v)
				}
			}
			i++
		}
	}
}
