package parquetfile

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// rleEncoder writes the RLE/bit-packed hybrid encoding of dictionary
// indices (https://parquet.apache.org/docs/file-format/data-pages/encodings/).
// The encoding of a sequence is not unique; this encoder makes the same
// choices as arrow-go v18's utils.RleEncoder (and Arrow C++'s), so the
// bytes match: values are buffered in groups of 8; a group whose 8 values
// all continue one run starts a repeated run, which then lasts until the
// value changes; other groups are bit-packed, at most 63 groups to a
// literal run; the last literal group is padded with zeros.
type rleEncoder struct {
	out      []byte
	width    int
	buffer   [8]uint64
	nbuf     int
	curVal   uint64
	repCount int
	litCount int
	// litIndicator is the offset in out of the current literal run's
	// indicator byte, or -1.
	litIndicator int
}

func newRLEEncoder(out []byte, width int) *rleEncoder {
	return &rleEncoder{out: out, width: width, litIndicator: -1}
}

func (r *rleEncoder) put(v uint64) {
	if r.curVal == v {
		r.repCount++
		if r.repCount > 8 {
			return // continuation of a repeated run
		}
	} else {
		if r.repCount >= 8 {
			r.flushRepeated()
		}
		r.repCount = 1
		r.curVal = v
	}
	r.buffer[r.nbuf] = v
	r.nbuf++
	if r.nbuf == 8 {
		r.flushBuffered()
	}
}

func (r *rleEncoder) flushBuffered() {
	if r.repCount >= 8 {
		// The buffered values are part of the repeated run.
		r.nbuf = 0
		if r.litCount != 0 {
			r.flushLiteral(true)
		}
		return
	}
	r.litCount += r.nbuf
	ngroups := r.litCount / 8
	// A literal run's indicator byte holds at most 63 groups.
	r.flushLiteral(ngroups+1 >= 1<<6)
	r.repCount = 0
}

func (r *rleEncoder) flushLiteral(updateIndicator bool) {
	if r.litIndicator == -1 {
		r.litIndicator = len(r.out)
		r.out = append(r.out, 0)
	}
	// nbuf is 8 here (or 0): a group of 8 values of width bits is width
	// whole bytes, least significant bit first. width <= 32, so acc never
	// holds more than 39 bits.
	if r.nbuf > 0 {
		var acc uint64
		var nacc uint
		for _, v := range r.buffer[:r.nbuf] {
			acc |= v << nacc
			nacc += uint(r.width)
			for nacc >= 8 {
				r.out = append(r.out, byte(acc))
				acc >>= 8
				nacc -= 8
			}
		}
		if nacc > 0 {
			r.out = append(r.out, byte(acc))
		}
	}
	r.nbuf = 0
	if updateIndicator {
		r.out[r.litIndicator] = byte(r.litCount/8)<<1 | 1
		r.litIndicator = -1
		r.litCount = 0
	}
}

func (r *rleEncoder) flushRepeated() {
	r.out = binary.AppendUvarint(r.out, uint64(r.repCount)<<1)
	for i := 0; i < (r.width+7)/8; i++ {
		r.out = append(r.out, byte(r.curVal>>(8*i)))
	}
	r.repCount = 0
	r.nbuf = 0
}

// flush ends the encoding and returns the bytes.
func (r *rleEncoder) flush() []byte {
	if r.litCount > 0 || r.repCount > 0 || r.nbuf > 0 {
		allRep := r.litCount == 0 && (r.repCount == r.nbuf || r.nbuf == 0)
		if r.repCount > 0 && allRep {
			r.flushRepeated()
		} else {
			for r.nbuf != 0 && r.nbuf < 8 {
				r.buffer[r.nbuf] = 0
				r.nbuf++
			}
			r.litCount += r.nbuf
			r.flushLiteral(true)
			r.repCount = 0
		}
	}
	return r.out
}

var errRLE = errors.New("bad RLE/bit-packed data")

// decodeRLE decodes exactly len(dst) values of the given bit width from
// src into dst, checking each against limit (the dictionary size).
func decodeRLE(src []byte, width int, dst []int32, limit int) error {
	if width < 0 || width > 32 {
		return fmt.Errorf("%w: bit width %d", errRLE, width)
	}
	mask := uint64(1)<<width - 1
	n := 0
	for n < len(dst) {
		ind, k := binary.Uvarint(src)
		if k <= 0 {
			return fmt.Errorf("%w: run header after %d of %d values", errRLE, n, len(dst))
		}
		src = src[k:]
		if ind&1 == 0 {
			count := ind >> 1
			nb := (width + 7) / 8
			if count == 0 || len(src) < nb {
				return fmt.Errorf("%w: repeated run after %d values", errRLE, n)
			}
			var v uint64
			for i := 0; i < nb; i++ {
				v |= uint64(src[i]) << (8 * i)
			}
			src = src[nb:]
			if v > mask || v >= uint64(limit) {
				return fmt.Errorf("%w: dictionary index %d out of range 0..%d", errRLE, v, limit-1)
			}
			if count > uint64(len(dst)-n) {
				return fmt.Errorf("%w: run of %d values past the page's %d", errRLE, count, len(dst))
			}
			fill := dst[n : n+int(count)]
			for i := range fill {
				fill[i] = int32(v)
			}
			n += int(count)
			continue
		}
		groups := ind >> 1
		if groups == 0 || groups > uint64(len(src)) {
			return fmt.Errorf("%w: literal run after %d values", errRLE, n)
		}
		nbytes := int(groups) * width
		if len(src) < nbytes {
			return fmt.Errorf("%w: literal run of %d bytes past the end", errRLE, nbytes)
		}
		vals := int(groups) * 8
		take := min(vals, len(dst)-n)
		var acc uint64
		var nacc int
		p := 0
		for i := 0; i < take; i++ {
			for nacc < width {
				acc |= uint64(src[p]) << nacc
				p++
				nacc += 8
			}
			v := acc & mask
			acc >>= width
			nacc -= width
			if v >= uint64(limit) {
				return fmt.Errorf("%w: dictionary index %d out of range 0..%d", errRLE, v, limit-1)
			}
			dst[n+i] = int32(v)
		}
		n += take
		src = src[nbytes:]
	}
	return nil
}
