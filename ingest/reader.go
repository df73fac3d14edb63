package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"sync"
	"sync/atomic"
)

// chunkBytes is the target size of the blocks of whole lines handed to the
// parser workers.
const chunkBytes = 2 << 20

// chunk is a block of whole lines of one source, or the end-of-source
// marker (eos) carrying that source's size, hash and line count.
type chunk struct {
	src       int
	firstLine int64 // line number of the first line in data
	data      []byte
	res       chan *parsedChunk // receives the parse result (buffered, 1)

	eos    bool
	bytes  int64
	sha256 string
	lines  int64

	err error // a read error (the consumer reports it)
}

// lineReader cuts the sources into chunks of whole lines, in order.
type lineReader struct {
	sources []*source
	read    *atomic.Int64 // raw bytes read, for progress

	cur   int // index of the open source
	rc    io.ReadCloser
	hash  hash.Hash
	count *countWriter
	line  int64  // lines handed out so far for the open source
	carry []byte // incomplete last line of the previous read
	eof   bool   // the open source is exhausted
}

// countWriter counts bytes and adds them to a shared counter.
type countWriter struct {
	n     int64
	total *atomic.Int64
}

// Write counts p.
func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	if c.total != nil {
		c.total.Add(int64(len(p)))
	}
	return len(p), nil
}

func newLineReader(sources []*source, read *atomic.Int64) *lineReader {
	return &lineReader{sources: sources, read: read, cur: -1}
}

// close releases the open source, if any.
func (r *lineReader) close() {
	if r.rc != nil {
		r.rc.Close()
		r.rc = nil
	}
}

// next returns the next chunk, or io.EOF after the last source's eos marker.
func (r *lineReader) next() (*chunk, error) {
	if r.rc == nil {
		if r.cur+1 >= len(r.sources) {
			return nil, io.EOF
		}
		r.cur++
		s := r.sources[r.cur]
		r.hash = sha256.New()
		r.count = &countWriter{total: r.read}
		rc, err := s.open(io.MultiWriter(r.hash, r.count))
		if err != nil {
			return nil, err
		}
		r.rc, r.line, r.carry, r.eof = rc, 0, nil, false
	}
	if r.eof {
		c := &chunk{src: r.cur, eos: true, bytes: r.count.n, sha256: hex.EncodeToString(r.hash.Sum(nil)), lines: r.line}
		r.close()
		return c, nil
	}
	size := chunkBytes
	for size < 2*len(r.carry) {
		size *= 2
	}
	buf := getBytes(size)
	n := copy(buf, r.carry)
	for {
		m, err := io.ReadFull(r.rc, buf[n:])
		n += m
		if err != nil {
			// io.ReadFull reports the end of the source as a bare io.EOF
			// or io.ErrUnexpectedEOF; truncated gzip/zip members come
			// wrapped with their file name and are real errors.
			if err == io.EOF || err == io.ErrUnexpectedEOF { //nolint:errorlint // identity is the point
				// End of this source: hand out everything.
				r.eof = true
				if n == 0 {
					return r.next()
				}
				data := buf[:n]
				c := &chunk{src: r.cur, firstLine: r.line + 1, data: data}
				r.line += int64(bytes.Count(data, []byte{'\n'}))
				if data[len(data)-1] != '\n' {
					r.line++
				}
				r.carry = nil
				return c, nil
			}
			return nil, fmt.Errorf("read %s: %w", r.sources[r.cur].name, err)
		}
		// Buffer full: cut after its last newline.
		k := bytes.LastIndexByte(buf[:n], '\n')
		if k < 0 {
			// A line longer than the buffer: grow and keep reading.
			nb := make([]byte, 2*len(buf))
			copy(nb, buf[:n])
			buf = nb
			continue
		}
		data := buf[:k+1]
		r.carry = append([]byte(nil), buf[k+1:n]...)
		c := &chunk{src: r.cur, firstLine: r.line + 1, data: data}
		r.line += int64(bytes.Count(data, []byte{'\n'}))
		return c, nil
	}
}

// Buffers are recycled: raw chunk bytes after parsing, parsed feature
// blocks after they are copied into a row group. This keeps the garbage
// collector out of the hot path.
var bytesPool, floatsPool sync.Pool

// getBytes returns a buffer of length n (contents undefined).
func getBytes(n int) []byte {
	if b, ok := bytesPool.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]byte, n)
}

// putBytes recycles a buffer from getBytes.
func putBytes(b []byte) {
	bytesPool.Put(&b)
}

// getFloats returns a slice of length n (contents undefined).
func getFloats(n int) []float64 {
	if f, ok := floatsPool.Get().(*[]float64); ok && cap(*f) >= n {
		return (*f)[:n]
	}
	return make([]float64, n)
}

// putFloats recycles a slice from getFloats.
func putFloats(f []float64) {
	floatsPool.Put(&f)
}
