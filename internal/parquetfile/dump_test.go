package parquetfile

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// dumpThrift renders a compact-protocol struct at the start of buf as
// indented text, one field a line ("id:type value"), and the number of
// bytes it took. The comparison tests print it for both files when their
// bytes differ, so a difference is named field by field.
func dumpThrift(buf []byte) (string, int, error) {
	d := &decoder{buf: buf}
	var sb strings.Builder
	dumpStruct(d, &sb, "")
	return sb.String(), d.pos, d.err
}

func dumpStruct(d *decoder, sb *strings.Builder, indent string) {
	d.structFields(func(id int16, typ byte) bool {
		fmt.Fprintf(sb, "%s%d:", indent, id)
		dumpValue(d, sb, indent, typ)
		return true
	})
}

func dumpValue(d *decoder, sb *strings.Builder, indent string, typ byte) {
	switch typ {
	case tTrue:
		sb.WriteString("true\n")
	case tFalse:
		sb.WriteString("false\n")
	case tI16, tI32, tI64:
		fmt.Fprintf(sb, "%d\n", d.varint())
	case tBinary:
		fmt.Fprintf(sb, "%q\n", d.binary())
	case tStruct:
		sb.WriteString("{\n")
		dumpStruct(d, sb, indent+"  ")
		fmt.Fprintf(sb, "%s}\n", indent)
	case tList:
		elem, n := d.listHeader()
		fmt.Fprintf(sb, "list<%d>[%d]\n", elem, n)
		for i := 0; i < n && d.err == nil; i++ {
			fmt.Fprintf(sb, "%s  [%d]", indent, i)
			if elem == tTrue || elem == tFalse {
				fmt.Fprintf(sb, "%d\n", d.byte())
				continue
			}
			dumpValue(d, sb, indent+"  ", elem)
		}
	default:
		fmt.Fprintf(sb, "type %d\n", typ)
		d.skip(typ)
	}
}

// dumpFile renders the footer of a Parquet file.
func dumpFooter(b []byte) (string, error) {
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	s, _, err := dumpThrift(b[len(b)-8-n : len(b)-8])
	return s, err
}
