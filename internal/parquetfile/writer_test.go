package parquetfile

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// failWriter accepts limit bytes, then fails (or, if short, accepts
// fewer bytes than asked without an error).
type failWriter struct {
	buf   bytes.Buffer
	limit int
	short bool
}

var errDisk = errors.New("disk full")

func (w *failWriter) Write(b []byte) (int, error) {
	if room := w.limit - w.buf.Len(); len(b) > room {
		w.buf.Write(b[:room])
		if w.short {
			return room, nil
		}
		return room, errDisk
	}
	return w.buf.Write(b)
}

// TestWriterErrors: a failing or short write is returned by the call that
// made it and by every later call, and misuse of the row group API is
// refused. Mutation controls, each of which made its case fail: the short
// write check n < len(b) as n <= len(b) or with err != nil; rows <= 0 as
// rows < 0; g.next >= len(cols) as g.next > len(cols); Close's column
// count check negated; write's sticky error check negated (nothing
// written, no error).
func TestWriterErrors(t *testing.T) {
	cols := []Column{{"a", Int64}, {"s", String}}
	write := func(w io.Writer) error {
		fw, err := NewWriter(w, cols, "t")
		if err != nil {
			return err
		}
		for range 3 {
			rg, err := fw.NewRowGroup(2)
			if err != nil {
				return err
			}
			if err := rg.Int64([]int64{1, 2}); err != nil {
				return err
			}
			if err := rg.Strings([]string{"x", "y"}); err != nil {
				return err
			}
			if err := rg.Close(); err != nil {
				return err
			}
		}
		return fw.Close()
	}
	var full bytes.Buffer
	if err := write(&full); err != nil {
		t.Fatal(err)
	}
	if got, err := readAll(full.Bytes()); err != nil || len(got) != 3 {
		t.Fatalf("%d row groups read back, error %v", len(got), err)
	}
	// Every prefix length: the error surfaces, whatever call meets it.
	for limit := 0; limit < full.Len(); limit += 7 {
		if err := write(&failWriter{limit: limit}); !errors.Is(err, errDisk) {
			t.Fatalf("failing after %d of %d bytes: %v", limit, full.Len(), err)
		}
		if err := write(&failWriter{limit: limit, short: true}); !errors.Is(err, io.ErrShortWrite) {
			t.Fatalf("short after %d of %d bytes: %v", limit, full.Len(), err)
		}
	}
	if err := write(&failWriter{limit: full.Len()}); err != nil {
		t.Fatalf("writer of exactly the file's size: %v", err)
	}

	misuse := []struct {
		name string
		f    func(w *Writer) error
		want string
	}{
		{"zero-rows", func(w *Writer) error { _, err := w.NewRowGroup(0); return err }, "row group of 0 rows"},
		{"extra-column", func(w *Writer) error {
			rg, _ := w.NewRowGroup(1)
			rg.Int64([]int64{1})
			rg.Strings([]string{"x"})
			return rg.Int64([]int64{1})
		}, "row group has only 2 columns"},
		{"wrong-kind", func(w *Writer) error {
			rg, _ := w.NewRowGroup(1)
			return rg.Strings([]string{"x"})
		}, "column a is INT64, not STRING"},
		{"wrong-length", func(w *Writer) error {
			rg, _ := w.NewRowGroup(2)
			return rg.Int64([]int64{1})
		}, "column a: 1 values in a row group of 2 rows"},
		{"close-early", func(w *Writer) error {
			rg, _ := w.NewRowGroup(1)
			rg.Int64([]int64{1})
			return rg.Close()
		}, "row group closed after 1 of 2 columns"},
	}
	for _, c := range misuse {
		t.Run(c.name, func(t *testing.T) {
			w, err := NewWriter(io.Discard, cols, "t")
			if err != nil {
				t.Fatal(err)
			}
			if err := c.f(w); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
	for _, c := range []struct {
		name string
		cols []Column
		want string
	}{
		{"duplicate", []Column{{"a", Int64}, {"a", Double}}, `duplicate column "a"`},
		{"kind", []Column{{"a", Kind(7)}}, `column "a": unknown kind 7`},
	} {
		if _, err := NewWriter(io.Discard, c.cols, "t"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	for k, want := range map[Kind]string{Int64: "INT64", Int32: "INT32", Double: "DOUBLE", String: "STRING", Kind(9): "Kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind %d: %q, want %q", int(k), got, want)
		}
	}
}

// writeLog records the length of every Write.
type writeLog struct {
	bytes.Buffer
	sizes []int
}

func (w *writeLog) Write(b []byte) (int, error) {
	w.sizes = append(w.sizes, len(b))
	return w.Buffer.Write(b)
}

// TestNoEmptyWrites: the writer never calls Write with no bytes (on an
// *os.File, each would be a write system call), in particular not for the
// leaked metadata of a column chunk when nothing leaks; long-strings has
// chunks that leak and chunks that do not. Mutation control: finishChunk's
// leak > 0 as leak >= 0 made it fail.
func TestNoEmptyWrites(t *testing.T) {
	for _, c := range testCases() {
		if c.name != "many-row-groups" && c.name != "long-strings" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			var w writeLog
			ourWriteTo(t, &w, c.cols, c.groups)
			for i, n := range w.sizes {
				if n == 0 {
					t.Fatalf("write %d of %d has no bytes", i, len(w.sizes))
				}
			}
			if !bytes.Equal(w.Bytes(), ourWrite(t, c.cols, c.groups)) {
				t.Fatal("the file differs from ourWrite's")
			}
		})
	}
}
