package ingest

import (
	"bytes"
	"math"
	"math/big"
	"strconv"

	"github.com/parquet-go/parquet-go"
)

// The Parquet types prep ingest reads, and how (datasets.md has the same
// table). A Parquet value is read as the number it denotes, never as its
// storage: the label, qid and feature rules are the text format's
// (parseLabel, parseQIDValue, parseValue), applied to the value spelled
// in decimal, so that a Parquet input and a text input holding the same
// numbers make the same dataset and the same errors.
//
//	INT32, INT64 (plain, INT(n, true))  signed integers
//	INT(n, false), UINT_n               unsigned integers (never wrapped)
//	DECIMAL(p, s) on INT32, INT64,      unscaled / 10^s: a feature is the
//	FIXED_LEN_BYTE_ARRAY                double nearest the decimal (as
//	                                    the same digits in text); a label
//	                                    or qid must be an integer
//	FLOAT, DOUBLE                       as they are
//	BYTE_ARRAY STRING, ENUM             strings (part, comment columns)
//	anything else                       refused, naming the column and
//	                                    its type: BOOLEAN, INT96, DATE,
//	                                    TIME, TIMESTAMP, INTERVAL, FLOAT16,
//	                                    UUID, JSON, BSON, binary, ...

// pqClass is what a Parquet column's values are to prep ingest.
type pqClass int

const (
	pqOther    pqClass = iota // not readable losslessly: refused
	pqSigned                  // signed integers
	pqUnsigned                // unsigned integers, stored in INT32 / INT64 bits
	pqFloat                   // FLOAT or DOUBLE
	pqDecimal                 // DECIMAL: an unscaled integer and a scale
	pqString                  // UTF-8 strings
)

// numeric reports whether the class holds numbers.
func (c pqClass) numeric() bool { return c >= pqSigned && c <= pqDecimal }

// pqType is the class of a column's leaf type, with its DECIMAL scale and
// the type's name as Parquet spells it (for messages).
type pqType struct {
	class pqClass
	scale int
	name  string
}

// classify returns how prep ingest reads values of type t.
func classify(t parquet.Type) pqType {
	k := t.Kind()
	lt := t.LogicalType()
	name := k.String()
	if lt != nil && lt.String() != "" {
		name += " " + lt.String()
	}
	ty := pqType{name: name}
	switch {
	case lt != nil && lt.Decimal != nil && (k == parquet.Int32 || k == parquet.Int64 || k == parquet.FixedLenByteArray):
		ty.class, ty.scale = pqDecimal, int(lt.Decimal.Scale)
	case (k == parquet.Int32 || k == parquet.Int64) && lt == nil:
		ty.class = pqSigned
	case (k == parquet.Int32 || k == parquet.Int64) && lt.Integer != nil:
		ty.class = pqUnsigned
		if lt.Integer.IsSigned {
			ty.class = pqSigned
		}
	case (k == parquet.Float || k == parquet.Double) && lt == nil:
		ty.class = pqFloat
	case k == parquet.ByteArray && lt != nil && (lt.UTF8 != nil || lt.Enum != nil):
		ty.class = pqString
	case k == parquet.ByteArray && lt == nil:
		ty.name = "BYTE_ARRAY without the STRING annotation (binary)"
	case k == parquet.Int96:
		ty.name = "INT96 (a legacy timestamp)"
	}
	return ty
}

// exact returns a numeric value of type ty as a float64 when that is the
// value itself (ok false otherwise: a decimal, an integer beyond 2^53, a
// NaN or infinity). It is the fast path of the feature rule: every other
// value goes through spell and the text format's rules.
func (ty pqType) exact(v parquet.Value) (float64, bool) {
	switch ty.class {
	case pqFloat:
		var f float64
		if v.Kind() == parquet.Float {
			f = float64(v.Float())
		} else {
			f = v.Double()
		}
		return f, !math.IsNaN(f) && !math.IsInf(f, 0)
	case pqSigned:
		i := v.Int64()
		if v.Kind() == parquet.Int32 {
			i = int64(v.Int32())
		}
		return float64(i), i >= -1<<53 && i <= 1<<53
	case pqUnsigned:
		u := uint64(v.Int64())
		if v.Kind() == parquet.Int32 {
			u = uint64(uint32(v.Int32()))
		}
		return float64(u), u <= 1<<53
	}
	return 0, false
}

// spell appends a numeric value of type ty to dst as the decimal text the
// text format would hold for it (an integral float as an integer's
// digits, any other in the shortest form that reads back to it; a decimal
// in plain notation, 1.000 as 1).
func (ty pqType) spell(dst []byte, v parquet.Value) []byte {
	switch ty.class {
	case pqFloat:
		f := v.Double()
		if v.Kind() == parquet.Float {
			f = float64(v.Float())
		}
		if f == math.Trunc(f) && math.Abs(f) < 1e21 {
			return strconv.AppendFloat(dst, f, 'f', -1, 64) // an integer's digits
		}
		return strconv.AppendFloat(dst, f, 'g', -1, 64)
	case pqSigned:
		if v.Kind() == parquet.Int32 {
			return strconv.AppendInt(dst, int64(v.Int32()), 10)
		}
		return strconv.AppendInt(dst, v.Int64(), 10)
	case pqUnsigned:
		if v.Kind() == parquet.Int32 {
			return strconv.AppendUint(dst, uint64(uint32(v.Int32())), 10)
		}
		return strconv.AppendUint(dst, uint64(v.Int64()), 10)
	case pqDecimal:
		var digits []byte
		switch v.Kind() {
		case parquet.Int32:
			digits = strconv.AppendInt(nil, int64(v.Int32()), 10)
		case parquet.Int64:
			digits = strconv.AppendInt(nil, v.Int64(), 10)
		default: // big-endian two's complement
			b := v.ByteArray()
			u := new(big.Int).SetBytes(b)
			if len(b) > 0 && b[0]&0x80 != 0 {
				u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
			}
			digits = u.Append(nil, 10)
		}
		return appendScaled(dst, digits, ty.scale)
	}
	return dst
}

// appendScaled appends the integer digits (an optional '-' then decimal
// digits) divided by 10^scale, in plain decimal notation without
// trailing zeros after the point.
func appendScaled(dst, digits []byte, scale int) []byte {
	if len(digits) > 0 && digits[0] == '-' {
		dst = append(dst, '-')
		digits = digits[1:]
	}
	if scale <= 0 {
		return append(dst, digits...)
	}
	for len(digits) <= scale {
		digits = append([]byte{'0'}, digits...)
	}
	dst = append(dst, digits[:len(digits)-scale]...)
	frac := bytes.TrimRight(digits[len(digits)-scale:], "0")
	if len(frac) == 0 {
		return dst // an integer: 1.000 is 1
	}
	dst = append(dst, '.')
	return append(dst, frac...)
}
