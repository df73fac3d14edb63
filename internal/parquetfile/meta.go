package parquetfile

// The Parquet metadata structures (parquet.thrift) that documents.parquet
// uses, with the fields it uses. Encoding writes the fields in the order
// and with the presence arrow-go v18's Thrift-generated code gives them;
// decoding skips fields it does not know.

// Physical types.
const (
	typeInt32     = 1
	typeInt64     = 2
	typeDouble    = 5
	typeByteArray = 6
)

// Encodings.
const (
	encPlain       = 0
	encRLE         = 3
	encRLEDict     = 8
	encPlainDictV1 = 2
)

// Page types.
const (
	pageData = 0
	pageDict = 2
)

// codecSnappy is the Snappy compression codec.
const codecSnappy = 1

// Converted types written for the logical types.
const (
	convertedUTF8  = 0
	convertedInt32 = 17
	convertedInt64 = 18
)

// statistics is parquet.thrift's Statistics. Only the fields with has*
// set are written.
type statistics struct {
	max, min           []byte // deprecated signed-order fields
	nullCount          int64
	hasNullCount       bool
	maxValue, minValue []byte
	hasMax, hasMin     bool // max, min set
	hasMaxV, hasMinV   bool // maxValue, minValue set
}

func (s *statistics) encode(e *encoder) {
	if s.hasMax {
		e.binary(1, s.max)
	}
	if s.hasMin {
		e.binary(2, s.min)
	}
	if s.hasNullCount {
		e.i64(3, s.nullCount)
	}
	if s.hasMaxV {
		e.binary(5, s.maxValue)
	}
	if s.hasMinV {
		e.binary(6, s.minValue)
	}
}

func (s *statistics) decode(d *decoder) {
	d.structFields(func(id int16, typ byte) bool {
		switch id {
		case 1:
			if d.want(id, typ, tBinary) {
				s.max, s.hasMax = d.binary(), true
			}
		case 2:
			if d.want(id, typ, tBinary) {
				s.min, s.hasMin = d.binary(), true
			}
		case 3:
			s.hasNullCount = d.i64Field(id, typ, &s.nullCount)
		case 5:
			if d.want(id, typ, tBinary) {
				s.maxValue, s.hasMaxV = d.binary(), true
			}
		case 6:
			if d.want(id, typ, tBinary) {
				s.minValue, s.hasMinV = d.binary(), true
			}
		default:
			return false
		}
		return true
	})
}

// pageHeader is parquet.thrift's PageHeader with a data page (v1) or a
// dictionary page header.
type pageHeader struct {
	typ              int32
	uncompressedSize int32
	compressedSize   int32
	crc              int32
	hasCRC           bool

	// data page (v1)
	numValues                int32
	encoding                 int32
	defEncoding, repEncoding int32
	stats                    statistics
	hasStats                 bool

	// dictionary page
	isSorted bool

	hasDataHeader, hasDictHeader bool
}

func (h *pageHeader) encode(e *encoder) {
	e.begin()
	e.i32(1, h.typ)
	e.i32(2, h.uncompressedSize)
	e.i32(3, h.compressedSize)
	if h.hasCRC {
		e.i32(4, h.crc)
	}
	switch h.typ {
	case pageData:
		e.beginStruct(5)
		e.i32(1, h.numValues)
		e.i32(2, h.encoding)
		e.i32(3, h.defEncoding)
		e.i32(4, h.repEncoding)
		e.beginStruct(5)
		h.stats.encode(e)
		e.end()
		e.end()
	case pageDict:
		e.beginStruct(7)
		e.i32(1, h.numValues)
		e.i32(2, h.encoding)
		e.bool(3, h.isSorted)
		e.end()
	}
	e.end()
}

func (h *pageHeader) decode(d *decoder) {
	var haveType bool
	d.structFields(func(id int16, typ byte) bool {
		switch id {
		case 1:
			haveType = d.i32Field(id, typ, &h.typ)
		case 2:
			d.i32Field(id, typ, &h.uncompressedSize)
		case 3:
			d.i32Field(id, typ, &h.compressedSize)
		case 4:
			h.hasCRC = d.i32Field(id, typ, &h.crc)
		case 5:
			if !d.want(id, typ, tStruct) {
				return true
			}
			h.hasDataHeader = true
			d.structFields(func(id int16, typ byte) bool {
				switch id {
				case 1:
					d.i32Field(id, typ, &h.numValues)
				case 2:
					d.i32Field(id, typ, &h.encoding)
				case 3:
					d.i32Field(id, typ, &h.defEncoding)
				case 4:
					d.i32Field(id, typ, &h.repEncoding)
				case 5:
					if d.want(id, typ, tStruct) {
						h.hasStats = true
						h.stats.decode(d)
					}
				default:
					return false
				}
				return true
			})
		case 7:
			if !d.want(id, typ, tStruct) {
				return true
			}
			h.hasDictHeader = true
			d.structFields(func(id int16, typ byte) bool {
				switch id {
				case 1:
					d.i32Field(id, typ, &h.numValues)
				case 2:
					d.i32Field(id, typ, &h.encoding)
				case 3:
					if d.want(id, typ, tTrue) {
						h.isSorted = typ == tTrue
					}
				default:
					return false
				}
				return true
			})
		default:
			return false
		}
		return true
	})
	if d.err == nil && !haveType {
		d.fail("page header without a type")
	}
}

// encodingStat is parquet.thrift's PageEncodingStats.
type encodingStat struct {
	pageType, encoding, count int32
}

// columnChunk is parquet.thrift's ColumnChunk with its ColumnMetaData.
type columnChunk struct {
	fileOffset            int64
	typ                   int32
	encodings             []int32
	path                  []string
	codec                 int32
	numValues             int64
	totalUncompressedSize int64
	totalCompressedSize   int64
	dataPageOffset        int64
	dictPageOffset        int64
	hasDictPageOffset     bool
	stats                 statistics
	hasStats              bool
	encodingStats         []encodingStat
	hasMeta               bool
}

func (c *columnChunk) encode(e *encoder) {
	e.i64(2, c.fileOffset)
	e.beginStruct(3)
	e.i32(1, c.typ)
	e.list(2, tI32, len(c.encodings))
	for _, v := range c.encodings {
		e.varint(int64(v))
	}
	e.list(3, tBinary, len(c.path))
	for _, p := range c.path {
		e.uvarint(uint64(len(p)))
		e.buf = append(e.buf, p...)
	}
	e.i32(4, c.codec)
	e.i64(5, c.numValues)
	e.i64(6, c.totalUncompressedSize)
	e.i64(7, c.totalCompressedSize)
	e.i64(9, c.dataPageOffset)
	if c.hasDictPageOffset {
		e.i64(11, c.dictPageOffset)
	}
	if c.hasStats {
		e.beginStruct(12)
		c.stats.encode(e)
		e.end()
	}
	e.list(13, tStruct, len(c.encodingStats))
	for _, s := range c.encodingStats {
		e.begin()
		e.i32(1, s.pageType)
		e.i32(2, s.encoding)
		e.i32(3, s.count)
		e.end()
	}
	e.end()
}

func (c *columnChunk) decode(d *decoder) {
	d.structFields(func(id int16, typ byte) bool {
		switch id {
		case 1:
			if d.want(id, typ, tBinary) {
				d.binary()
				d.fail("column chunk in another file")
			}
		case 2:
			d.i64Field(id, typ, &c.fileOffset)
		case 3:
			if !d.want(id, typ, tStruct) {
				return true
			}
			c.hasMeta = true
			d.structFields(func(id int16, typ byte) bool {
				switch id {
				case 1:
					d.i32Field(id, typ, &c.typ)
				case 2:
					d.list(id, typ, tI32, func(int) { c.encodings = append(c.encodings, d.i32()) })
				case 3:
					d.list(id, typ, tBinary, func(int) { c.path = append(c.path, string(d.binary())) })
				case 4:
					d.i32Field(id, typ, &c.codec)
				case 5:
					d.i64Field(id, typ, &c.numValues)
				case 6:
					d.i64Field(id, typ, &c.totalUncompressedSize)
				case 7:
					d.i64Field(id, typ, &c.totalCompressedSize)
				case 9:
					d.i64Field(id, typ, &c.dataPageOffset)
				case 11:
					c.hasDictPageOffset = d.i64Field(id, typ, &c.dictPageOffset)
				case 12:
					if d.want(id, typ, tStruct) {
						c.hasStats = true
						c.stats.decode(d)
					}
				case 13:
					d.list(id, typ, tStruct, func(int) {
						var s encodingStat
						d.structFields(func(id int16, typ byte) bool {
							if id < 1 || id > 3 || !d.want(id, typ, tI32) {
								return false
							}
							v := d.i32()
							switch id {
							case 1:
								s.pageType = v
							case 2:
								s.encoding = v
							case 3:
								s.count = v
							}
							return true
						})
						c.encodingStats = append(c.encodingStats, s)
					})
				default:
					return false
				}
				return true
			})
		default:
			return false
		}
		return true
	})
}

// rowGroup is parquet.thrift's RowGroup.
type rowGroup struct {
	columns             []columnChunk
	totalByteSize       int64
	numRows             int64
	fileOffset          int64
	totalCompressedSize int64
	ordinal             int16
}

func (r *rowGroup) encode(e *encoder) {
	e.list(1, tStruct, len(r.columns))
	for i := range r.columns {
		e.begin()
		r.columns[i].encode(e)
		e.end()
	}
	e.i64(2, r.totalByteSize)
	e.i64(3, r.numRows)
	e.i64(5, r.fileOffset)
	e.i64(6, r.totalCompressedSize)
	e.i16(7, r.ordinal)
}

func (r *rowGroup) decode(d *decoder) {
	d.structFields(func(id int16, typ byte) bool {
		switch id {
		case 1:
			d.list(id, typ, tStruct, func(int) {
				r.columns = append(r.columns, columnChunk{})
				r.columns[len(r.columns)-1].decode(d)
			})
		case 2:
			d.i64Field(id, typ, &r.totalByteSize)
		case 3:
			d.i64Field(id, typ, &r.numRows)
		default:
			return false
		}
		return true
	})
}

// schemaElement is parquet.thrift's SchemaElement, for the root and for
// required leaf columns.
type schemaElement struct {
	typ         int32
	hasType     bool
	repetition  int32
	hasRep      bool
	name        string
	numChildren int32
	hasChildren bool
	converted   int32
	hasConv     bool
	logical     logicalType
}

// logicalType is the part of parquet.thrift's LogicalType union that
// documents.parquet uses: STRING, or INTEGER with a bit width and sign.
type logicalType struct {
	kind     int16 // 0 none, 1 STRING, 10 INTEGER, -1 another
	bitWidth int8
	signed   bool
}

func (s *schemaElement) encode(e *encoder) {
	e.begin()
	if s.hasType {
		e.i32(1, s.typ)
	}
	if s.hasRep {
		e.i32(3, s.repetition)
	}
	e.string(4, s.name)
	if s.hasChildren {
		e.i32(5, s.numChildren)
	}
	if s.hasConv {
		e.i32(6, s.converted)
	}
	switch s.logical.kind {
	case 1:
		e.beginStruct(10)
		e.beginStruct(1)
		e.end()
		e.end()
	case 10:
		e.beginStruct(10)
		e.beginStruct(10)
		e.field(1, tByte)
		e.buf = append(e.buf, byte(s.logical.bitWidth))
		e.bool(2, s.logical.signed)
		e.end()
		e.end()
	}
	e.end()
}

func (s *schemaElement) decode(d *decoder) {
	d.structFields(func(id int16, typ byte) bool {
		switch id {
		case 1:
			s.hasType = d.i32Field(id, typ, &s.typ)
		case 3:
			s.hasRep = d.i32Field(id, typ, &s.repetition)
		case 4:
			if d.want(id, typ, tBinary) {
				s.name = string(d.binary())
			}
		case 5:
			s.hasChildren = d.i32Field(id, typ, &s.numChildren)
		case 6:
			s.hasConv = d.i32Field(id, typ, &s.converted)
		case 10:
			if !d.want(id, typ, tStruct) {
				return true
			}
			s.logical.kind = -1
			d.structFields(func(id int16, typ byte) bool {
				switch id {
				case 1:
					if d.want(id, typ, tStruct) {
						s.logical.kind = 1
						d.skip(typ)
					}
				case 10:
					if !d.want(id, typ, tStruct) {
						return true
					}
					s.logical.kind = 10
					d.structFields(func(id int16, typ byte) bool {
						switch id {
						case 1:
							if d.want(id, typ, tByte) {
								s.logical.bitWidth = int8(d.byte())
							}
						case 2:
							if d.want(id, typ, tTrue) {
								s.logical.signed = typ == tTrue
							}
						default:
							return false
						}
						return true
					})
				default:
					return false
				}
				return true
			})
		default:
			return false
		}
		return true
	})
}

// fileMetaData is parquet.thrift's FileMetaData.
type fileMetaData struct {
	version   int32
	schema    []schemaElement
	numRows   int64
	rowGroups []rowGroup
	createdBy string
}

func (f *fileMetaData) encode(e *encoder) {
	e.begin()
	e.i32(1, f.version)
	e.list(2, tStruct, len(f.schema))
	for i := range f.schema {
		f.schema[i].encode(e)
	}
	e.i64(3, f.numRows)
	e.list(4, tStruct, len(f.rowGroups))
	for i := range f.rowGroups {
		e.begin()
		f.rowGroups[i].encode(e)
		e.end()
	}
	// An empty key_value_metadata list, as arrow-go writes it when given
	// an empty, non-nil list.
	e.list(5, tStruct, 0)
	e.string(6, f.createdBy)
	// column_orders: TYPE_DEFINED_ORDER for every column.
	n := len(f.schema) - 1
	e.list(7, tStruct, n)
	for range n {
		e.begin()
		e.beginStruct(1)
		e.end()
		e.end()
	}
	e.end()
}

func (f *fileMetaData) decode(d *decoder) {
	var haveVersion bool
	d.structFields(func(id int16, typ byte) bool {
		switch id {
		case 1:
			haveVersion = d.i32Field(id, typ, &f.version)
		case 2:
			d.list(id, typ, tStruct, func(int) {
				f.schema = append(f.schema, schemaElement{})
				f.schema[len(f.schema)-1].decode(d)
			})
		case 3:
			d.i64Field(id, typ, &f.numRows)
		case 4:
			d.list(id, typ, tStruct, func(int) {
				f.rowGroups = append(f.rowGroups, rowGroup{})
				f.rowGroups[len(f.rowGroups)-1].decode(d)
			})
		case 6:
			if d.want(id, typ, tBinary) {
				f.createdBy = string(d.binary())
			}
		case 8:
			d.fail("encrypted file")
		default:
			return false
		}
		return true
	})
	if d.err == nil && !haveVersion {
		d.fail("file metadata without a version")
	}
}
