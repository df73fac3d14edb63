package ingest

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/datasets/mq2008"
)

// documentsWith runs the ingest pipeline on opts with the writer made by
// newWriter and returns documents.parquet.
func documentsWith(t *testing.T, opts Options, newWriter func(w io.Writer, nfeat int, cs *commentSchema, rowGroupRows int) (docsWriter, error)) []byte {
	t.Helper()
	res, err := resolveInputs(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer res.close()
	p, err := newPipeline(context.Background(), opts, res)
	if err != nil {
		t.Fatal(err)
	}
	defer p.stop()
	if newWriter != nil {
		p.newWriter = newWriter
	}
	dir := t.TempDir()
	if _, err := p.run(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, DocumentsFile))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func arrowDocsWriter(w io.Writer, nfeat int, cs *commentSchema, rowGroupRows int) (docsWriter, error) {
	return newArrowWriter(w, nfeat, cs, rowGroupRows)
}

// longComments writes LETOR lines whose free-text comments are all
// distinct (70,000 rows: the first row group's dictionary passes 1 MiB and
// falls back to PLAIN), plus a comment over 4 KiB (left out of the
// statistics), minima and maxima of 3,000 bytes (their column chunk
// metadata is longer than 4 KiB, and arrow-go leaks part of it into the
// file) and empty comments.
func longComments(t *testing.T, dir string) string {
	r := rand.New(rand.NewPCG(5, 6))
	var sb strings.Builder
	for i := 0; i < 70000; i++ {
		c := fmt.Sprintf("doc %d %x", i, r.Uint64())
		switch {
		case i == 5:
			c = strings.Repeat("z", 5000)
		case i%20000 == 7:
			c = strings.Repeat("z", 3000+i%3)
		case i%20000 == 8:
			c = strings.Repeat("!", 3000)
		case i%1000 == 9 && i < 20000:
			c = ""
		}
		fmt.Fprintf(&sb, "%d qid:%d 1:%g 2:%d # %s\n", i%3, i/50, r.NormFloat64(), i%7, c)
	}
	p := filepath.Join(dir, "long.txt")
	if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWriterRoundTrip: documents.parquet, read back by an independent
// reader (arrow-go's parquet/file, arrowRowGroups), holds the rows whose
// hash the manifest records as data_sha256, with the manifest's row groups;
// and parquet-go's reader (Load) returns the same features. Cases: MQ2008
// with its typed comment columns in row groups of 65,536, 1,000 and 2,535
// rows (the last of one row), raw comments with empty ones in row groups
// of two rows, and distinct raw comments over 1 MiB per row group (the
// string dictionary overflows) with values over 4 KiB. The data hash does
// not depend on the row groups: the three MQ2008 files, whose bytes
// differ, have one data_sha256. Mutation control: the writer writing the
// doc column into the label column made every case fail (the hash of the
// file's rows differed from the manifest's).
func TestWriterRoundTrip(t *testing.T) {
	dir := t.TempDir()
	mq := filepath.Join(dir, "mq")
	if _, err := mq2008.Extract(mq); err != nil {
		t.Fatal(err)
	}
	raw := writeFile(t, filepath.Join(dir, "raw.txt"), []byte(rawCommentText))
	long := longComments(t, dir)
	cases := []struct {
		name string
		opts Options
	}{
		{"mq2008", Options{Inputs: []string{mq}}},
		{"mq2008-rg1000", Options{Inputs: []string{mq}, RowGroupRows: 1000}},
		{"mq2008-rg2535", Options{Inputs: []string{mq}, RowGroupRows: 2535}},
		{"raw-rg2", Options{Inputs: []string{raw}, RowGroupRows: 2}},
		{"long-comments-rg30000", Options{Inputs: []string{long}, RowGroupRows: 30000}},
	}
	mqHash := map[string]bool{}
	mqFile := map[string]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds := filepath.Join(t.TempDir(), "ds")
			opts := c.opts
			opts.Out = ds
			m, err := Run(t.Context(), opts)
			if err != nil {
				t.Fatal(err)
			}
			rgs, cs := arrowRowGroups(t, filepath.Join(ds, DocumentsFile))
			h := newRowHasher(m.Features, cs)
			for i, rg := range rgs {
				if want := min(m.RowGroupRows, m.Rows-i*m.RowGroupRows); rg.n != want {
					t.Errorf("row group %d: %d rows, want %d", i, rg.n, want)
				}
				h.add(rg)
			}
			if got := h.sum(); got != m.DataHash {
				t.Errorf("the rows arrow-go reads hash to %s, manifest data_sha256 %s", got, m.DataHash)
			}
			got, err := Load(ds, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := 0
			for _, q := range got.Queries {
				for i := range q.Labels {
					g, row := r/m.RowGroupRows, r%m.RowGroupRows
					if q.QID != rgs[g].qid[row] || q.Labels[i] != float64(rgs[g].label[row]) || q.Part != rgs[g].parts[rgs[g].part[row]] {
						t.Fatalf("row %d: Load and arrow-go disagree", r)
					}
					for j := range m.Features {
						if math.Float64bits(q.X.At(i, j)) != math.Float64bits(rgs[g].x[j][row]) {
							t.Fatalf("row %d f%d: Load %v, arrow-go %v", r, j+1, q.X.At(i, j), rgs[g].x[j][row])
						}
					}
					r++
				}
			}
			if strings.HasPrefix(c.name, "mq2008") {
				mqHash[m.DataHash] = true
				mqFile[m.FileHash] = true
			}
		})
	}
	if len(mqHash) != 1 || len(mqFile) != 3 {
		t.Errorf("MQ2008 in three row-group sizes: %d data hashes (want 1), %d file hashes (want 3)", len(mqHash), len(mqFile))
	}
}
