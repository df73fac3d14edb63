package ingest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"math"
	"slices"
	"strconv"
	"sync"
)

// rowHashDomain starts every data hash: it names the encoding below, so a
// change of it can never collide with an earlier identity.
const rowHashDomain = "fedbandit dataset rows v1\n"

// rowHasher computes a dataset's identity (Manifest.DataHash, data_sha256)
// from its rows, whatever file holds them: one SHA-256 per column over its
// values in row order, fixed-width little-endian for numbers (a double as
// its IEEE-754 bits, so -0 and 0 differ as they do in the file) and
// length-prefixed UTF-8 for strings; then one SHA-256 over the domain
// string, the row count, and each column's name, type and digest in schema
// order. Row groups, codecs, encodings, page sizes, statistics and the
// writer's name do not enter it: the same rows give the same identity from
// any Parquet writer, on any machine.
type rowHasher struct {
	names []string
	types []string
	cols  []hash.Hash
	rows  int64
	buf   []byte
}

// newRowHasher hashes the columns of documents.parquet for nfeat features
// and the comment schema cs (documentsSchema's columns, in its order).
func newRowHasher(nfeat int, cs *commentSchema) *rowHasher {
	h := &rowHasher{}
	add := func(name, typ string) {
		h.names = append(h.names, name)
		h.types = append(h.types, typ)
		h.cols = append(h.cols, sha256.New())
	}
	add("qid", "int64")
	add("doc", "int32")
	add("label", "int32")
	add("part", "string")
	for j := 1; j <= nfeat; j++ {
		add("f"+strconv.Itoa(j), "double")
	}
	for k, name := range cs.columns() {
		if cs.isNumeric(k) {
			add(name, "double")
		} else {
			add(name, "string")
		}
	}
	return h
}

// add hashes the rows of rg. The
// columns are hashed concurrently (they are independent).
func (h *rowHasher) add(rg *rowGroup) {
	parts := rg.parts
	h.rows += int64(rg.n)
	var wg sync.WaitGroup
	nfeat := len(rg.x)
	// Two goroutines: the feature columns are most of the bytes.
	half := nfeat / 2
	wg.Go(func() {
		var buf []byte
		for j := half; j < nfeat; j++ {
			buf = hashDoubles(h.cols[4+j], rg.x[j], buf)
		}
	})
	buf := h.buf[:0]
	for _, v := range rg.qid {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(v))
	}
	h.cols[0].Write(buf)
	buf = buf[:0]
	for _, v := range rg.doc {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(v))
	}
	h.cols[1].Write(buf)
	buf = buf[:0]
	for _, v := range rg.label {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(v))
	}
	h.cols[2].Write(buf)
	buf = buf[:0]
	for _, p := range rg.part {
		buf = appendString(buf, parts[p])
	}
	h.cols[3].Write(buf)
	for j := 0; j < half; j++ {
		buf = hashDoubles(h.cols[4+j], rg.x[j], buf)
	}
	for k := range rg.cstr {
		c := h.cols[4+nfeat+k]
		if rg.cnum[k] != nil {
			buf = hashDoubles(c, rg.cnum[k], buf)
			continue
		}
		buf = buf[:0]
		for _, s := range rg.cstr[k] {
			buf = appendString(buf, s)
		}
		c.Write(buf)
	}
	h.buf = buf
	wg.Wait()
}

// hashDoubles writes the bits of xs to c, using buf as scratch.
func hashDoubles(c hash.Hash, xs []float64, buf []byte) []byte {
	buf = buf[:0]
	for _, v := range xs {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
	}
	c.Write(buf)
	return buf
}

func appendString(buf []byte, s string) []byte {
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(s)))
	return append(buf, s...)
}

// sum returns the hex data hash of the rows added so far.
func (h *rowHasher) sum() string {
	top := sha256.New()
	top.Write([]byte(rowHashDomain))
	top.Write(binary.LittleEndian.AppendUint64(nil, uint64(h.rows)))
	top.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(h.cols))))
	for i, c := range h.cols {
		top.Write(appendString(nil, h.names[i]))
		top.Write(appendString(nil, h.types[i]))
		top.Write(c.Sum(nil))
	}
	return hex.EncodeToString(top.Sum(nil))
}

// dataHashOf recomputes the data hash (data_sha256) of the
// documents.parquet at path from its rows, as the ingest that wrote it
// did: its columns must be exactly the ones the manifest m describes, in
// documentsSchema's order and each name once.
func dataHashOf(path string, m *Manifest) (string, error) {
	cs := &commentSchema{}
	for _, c := range m.CommentColumns {
		cs.keys = append(cs.keys, c.Name)
		cs.numeric = append(cs.numeric, c.Type == "double")
	}
	h := newRowHasher(m.Features, cs)
	f, err := openParquet(path)
	if err != nil {
		return "", err
	}
	defer f.close()
	fields := f.pf.Schema().Fields()
	var names []string
	for _, fl := range fields {
		names = append(names, fl.Name())
	}
	if !slices.Equal(names, h.names) {
		return "", fmt.Errorf("%s: columns %v, the manifest describes %v (re-run prep ingest)", path, names, h.names)
	}
	for g, rg := range f.pf.RowGroups() {
		n := int(rg.NumRows())
		b := &rowGroup{n: n, qid: make([]int64, n), doc: make([]int32, n), label: make([]int32, n),
			part: make([]int32, n), parts: make([]string, n), x: make([][]float64, m.Features),
			cstr: make([][]string, len(cs.keys)), cnum: make([][]float64, len(cs.keys))}
		cc := rg.ColumnChunks()
		errs := []error{readRequiredInt64(cc[0], b.qid), readRequiredInt32(cc[1], b.doc), readRequiredInt32(cc[2], b.label), readStrings(cc[3], b.parts)}
		for i := range b.part {
			b.part[i] = int32(i)
		}
		for j := range b.x {
			b.x[j] = make([]float64, n)
			errs = append(errs, readRequiredDouble(cc[4+j], b.x[j]))
		}
		for k := range cs.keys {
			c := cc[4+m.Features+k]
			if cs.numeric[k] {
				b.cnum[k] = make([]float64, n)
				errs = append(errs, readRequiredDouble(c, b.cnum[k]))
			} else {
				b.cstr[k] = make([]string, n)
				errs = append(errs, readStrings(c, b.cstr[k]))
			}
		}
		if err := errors.Join(errs...); err != nil {
			return "", fmt.Errorf("%s: row group %d: %w", path, g, err)
		}
		h.add(b)
	}
	return h.sum(), nil
}
