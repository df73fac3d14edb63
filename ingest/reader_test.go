package ingest

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestChunks: the line reader cuts a source into chunks of whole lines of
// at most chunkBytes (never the whole file at once), numbers each chunk's
// first line, and counts a last line without its newline.
func TestChunks(t *testing.T) {
	var src strings.Builder
	for i := 1; src.Len() < 5*chunkBytes/2; i++ {
		fmt.Fprintf(&src, "%d qid:%d 1:%d\n", i%3, i, i)
	}
	src.WriteString("0 qid:0 1:0") // no final newline
	text := src.String()
	lines := int64(strings.Count(text, "\n") + 1)
	p := writeFile(t, filepath.Join(t.TempDir(), "in.txt"), []byte(text))
	res, err := resolveInputs(Options{Inputs: []string{p}})
	if err != nil {
		t.Fatal(err)
	}
	defer res.close()
	var read atomic.Int64
	r := newLineReader(res.sources, &read)
	defer r.close()
	var got bytes.Buffer
	next := int64(1)
	chunks := 0
	for {
		c, err := r.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if c.eos {
			if c.lines != lines || c.bytes != int64(len(text)) {
				t.Errorf("end of source: %d lines, %d bytes; want %d, %d", c.lines, c.bytes, lines, len(text))
			}
			continue
		}
		chunks++
		if len(c.data) == 0 || len(c.data) > chunkBytes {
			t.Errorf("chunk %d: %d bytes, want 1..%d", chunks, len(c.data), chunkBytes)
		}
		if c.firstLine != next {
			t.Errorf("chunk %d starts at line %d, want %d", chunks, c.firstLine, next)
		}
		next += int64(bytes.Count(c.data, []byte{'\n'}))
		got.Write(c.data)
	}
	if got.String() != text || chunks != 3 || read.Load() != int64(len(text)) {
		t.Errorf("%d chunks, %d bytes read, text equal %v; want 3 chunks of the whole text", chunks, read.Load(), got.String() == text)
	}
}
