package parquetfile

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestLeakedPrefixMatchesBufio: leakedPrefix is what a never-flushed
// 4 KiB bufio.Writer passes on when Apache Thrift's compact protocol
// writes a struct into it: the bytes outside binary values a few at a
// time, each binary value in one Write. Checked against bufio itself on
// column chunks with statistics of random lengths, many near the buffer's
// boundaries. Mutation control: starting leakedPrefix's buffer count at 1
// instead of 0 made it fail.
func TestLeakedPrefixMatchesBufio(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 5000; i++ {
		cc := columnChunk{typ: typeByteArray, path: []string{"comment"}, codec: codecSnappy, encodings: []int32{8, 0, 3},
			numValues: r.Int64N(1 << 40), hasStats: true}
		cc.stats = statistics{hasNullCount: true, hasMaxV: true, hasMinV: true}
		n1 := r.IntN(4097)
		n2 := r.IntN(4097)
		if i%2 == 0 {
			n1 = 4096 - r.IntN(80)
			n2 = 4096 - r.IntN(80)
		}
		cc.stats.maxValue = bytes.Repeat([]byte{'x'}, n1)
		cc.stats.minValue = bytes.Repeat([]byte{'y'}, n2)
		cc.encodingStats = []encodingStat{{2, 0, 1}, {0, 8, int32(r.IntN(100))}}
		var e encoder
		e.begin()
		cc.encode(&e)
		e.end()

		var sink bytes.Buffer
		bw := bufio.NewWriterSize(&sink, thriftBufferSize)
		pos := 0
		for _, p := range e.payloads {
			for _, b := range e.buf[pos:p[0]] {
				bw.WriteByte(b)
			}
			bw.Write(e.buf[p[0]:p[1]])
			pos = p[1]
		}
		for _, b := range e.buf[pos:] {
			bw.WriteByte(b)
		}
		if got := leakedPrefix(&e); got != sink.Len() {
			t.Fatalf("payloads %d and %d bytes, struct %d: leakedPrefix %d, bufio passed on %d", n1, n2, len(e.buf), got, sink.Len())
		}
		if !bytes.Equal(sink.Bytes(), e.buf[:sink.Len()]) {
			t.Fatal("bufio passed on bytes that are not a prefix")
		}
	}
}
