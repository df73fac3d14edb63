package ingest

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/fedbandit/fedbandit/datasets/mq2008"
)

// failingWriter accepts n row groups, then fails.
type failingWriter struct {
	n   int
	err error
}

func (f *failingWriter) writeRowGroup(*rowGroup) error {
	if f.n == 0 {
		return f.err
	}
	f.n--
	return nil
}

func (f *failingWriter) close() error { return nil }

// TestWriteErrorReported: when the write stage fails (here at the first,
// the third and the last of MQ2008's 153 row groups of 100 rows), run
// returns the writer's error, not the cancellation that stopped the other
// stages, and every stage ends. At the last row group the assembler has
// already finished without error: the writer's error must still be the
// result, or the dataset would be published without its last rows.
// Mutation control: run returning the assembler's error first made it
// fail with "context canceled".
func TestWriteErrorReported(t *testing.T) {
	src := t.TempDir()
	if _, err := mq2008.Extract(src); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 2, 152} {
		opts := Options{Inputs: []string{src}, RowGroupRows: 100}
		res, err := resolveInputs(opts)
		if err != nil {
			t.Fatal(err)
		}
		p, err := newPipeline(context.Background(), opts, res)
		if err != nil {
			t.Fatal(err)
		}
		diskFull := errors.New("disk full")
		p.newWriter = func(io.Writer, int, *commentSchema, int) (docsWriter, error) {
			return &failingWriter{n: n, err: diskFull}, nil
		}
		if _, err := p.run(t.TempDir()); !errors.Is(err, diskFull) {
			t.Errorf("failing after %d row groups: run: %v, want the writer's error", n, err)
		}
		p.stop()
		res.close()
	}
}
