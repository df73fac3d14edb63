package ingest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedbandit/fedbandit/datasets/mq2008"
)

// documentsWith runs the ingest pipeline on opts with the writer made by
// newWriter and returns documents.parquet.
func documentsWith(t *testing.T, opts Options, newWriter func(w io.Writer, nfeat int, cs *commentSchema, parts *[]string, rowGroupRows int) (docsWriter, error)) []byte {
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

func arrowDocsWriter(w io.Writer, nfeat int, cs *commentSchema, parts *[]string, rowGroupRows int) (docsWriter, error) {
	return newArrowWriter(w, nfeat, cs, parts, rowGroupRows)
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

// TestWriterMatchesArrowWriter: ingest's writer (internal/parquetfile)
// writes the bytes arrow-go's column writers (arrowwriter_test.go) write
// for the same ingest: MQ2008 with its typed comment columns in row groups
// of 65,536, 1,000 and 2,535 rows (the last of one row), raw comments with
// empty ones in row groups of two rows, and distinct raw comments that
// overflow the dictionary, with statistics over 4 KiB. After a dictionary
// fallback arrow-go orders a chunk's encoding_stats at random (Go map
// order), so it is retried until its order is ours. Mutation controls:
// parquetfile's leakedPrefix returning 0 made long-comments-rg30000 fail
// (its row groups 1 and 2 each leak 4,096 bytes of column chunk metadata);
// the doc column declared INT64 made every case fail.
func TestWriterMatchesArrowWriter(t *testing.T) {
	dir := t.TempDir()
	mq := filepath.Join(dir, "mq")
	if _, err := mq2008.Extract(mq); err != nil {
		t.Fatal(err)
	}
	raw := writeFile(t, filepath.Join(dir, "raw.txt"), []byte(rawCommentText))
	long := longComments(t, dir)
	cases := []struct {
		name     string
		opts     Options
		mapOrder bool
	}{
		{"mq2008", Options{Inputs: []string{mq}}, false},
		{"mq2008-rg1000", Options{Inputs: []string{mq}, RowGroupRows: 1000}, false},
		{"mq2008-rg2535", Options{Inputs: []string{mq}, RowGroupRows: 2535}, false},
		{"raw-rg2", Options{Inputs: []string{raw}, RowGroupRows: 2}, false},
		{"long-comments", Options{Inputs: []string{long}}, true},
		{"long-comments-rg30000", Options{Inputs: []string{long}, RowGroupRows: 30000}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := documentsWith(t, c.opts, nil)
			want := documentsWith(t, c.opts, arrowDocsWriter)
			for try := 0; c.mapOrder && try < 40 && !bytes.Equal(got, want); try++ {
				want = documentsWith(t, c.opts, arrowDocsWriter)
			}
			if !bytes.Equal(got, want) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Fatalf("documents.parquet: %d bytes, arrow-go's %d; first difference at byte %d", len(got), len(want), i)
			}
			ds := filepath.Join(t.TempDir(), "ds")
			opts := c.opts
			opts.Out = ds
			if _, err := Run(t.Context(), opts); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(ds, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
}
