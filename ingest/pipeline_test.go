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

// TestWriteErrorReported: when the write stage fails (here at the third of
// MQ2008's 153 row groups of 100 rows), run returns the writer's error, not
// the cancellation that stopped the other stages, and every stage ends.
// Mutation control: run returning the assembler's error first made it
// fail with "context canceled".
func TestWriteErrorReported(t *testing.T) {
	src := t.TempDir()
	if _, err := mq2008.Extract(src); err != nil {
		t.Fatal(err)
	}
	opts := Options{Inputs: []string{src}, RowGroupRows: 100}
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
	diskFull := errors.New("disk full")
	p.newWriter = func(io.Writer, int, *commentSchema, *[]string, int) (docsWriter, error) {
		return &failingWriter{n: 2, err: diskFull}, nil
	}
	if _, err := p.run(t.TempDir()); !errors.Is(err, diskFull) {
		t.Fatalf("run: %v, want the writer's error", err)
	}
}
