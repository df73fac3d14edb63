package parquetfile

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// The oracle: arrow-go v18.8.0's parquet/file column writers with the
// properties documents.parquet was written with (ingest's
// arrowWriterProperties).

const testCreatedBy = "parquetfile test"

// group is a row group: one slice per column ([]int64, []int32, []float64
// or []string).
type group []any

func arrowWrite(t testing.TB, cols []Column, groups []group) []byte {
	t.Helper()
	opts := []parquet.WriterProperty{
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithDictionaryDefault(false),
		parquet.WithMaxRowGroupLength(1 << 30),
		parquet.WithCreatedBy(testCreatedBy),
		parquet.WithStats(true),
	}
	var nodes schema.FieldList
	for _, c := range cols {
		var n schema.Node
		var err error
		switch c.Kind {
		case Int64:
			n, err = schema.NewPrimitiveNodeLogical(c.Name, parquet.Repetitions.Required, schema.NewIntLogicalType(64, true), parquet.Types.Int64, -1, -1)
		case Int32:
			n, err = schema.NewPrimitiveNodeLogical(c.Name, parquet.Repetitions.Required, schema.NewIntLogicalType(32, true), parquet.Types.Int32, -1, -1)
		case Double:
			n, err = schema.NewPrimitiveNodeLogical(c.Name, parquet.Repetitions.Required, schema.NoLogicalType{}, parquet.Types.Double, -1, -1)
		case String:
			n, err = schema.NewPrimitiveNodeLogical(c.Name, parquet.Repetitions.Required, schema.StringLogicalType{}, parquet.Types.ByteArray, -1, -1)
			opts = append(opts, parquet.WithDictionaryFor(c.Name, true))
		}
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, n)
	}
	props := parquet.NewWriterProperties(opts...)
	root, err := schema.NewGroupNode(props.RootName(), props.RootRepetition(), nodes, -1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	fw, err := file.NewParquetWriterWithError(&buf, root, file.WithWriterProps(props), file.WithWriteMetadata(metadata.KeyValueMetadata{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		rgw, err := fw.AppendRowGroupChecked()
		if err != nil {
			t.Fatal(err)
		}
		for _, vals := range g {
			cw, err := rgw.NextColumn()
			if err != nil {
				t.Fatal(err)
			}
			switch v := vals.(type) {
			case []int64:
				_, err = cw.(*file.Int64ColumnChunkWriter).WriteBatch(v, nil, nil)
			case []int32:
				_, err = cw.(*file.Int32ColumnChunkWriter).WriteBatch(v, nil, nil)
			case []float64:
				_, err = cw.(*file.Float64ColumnChunkWriter).WriteBatch(v, nil, nil)
			case []string:
				ba := make([]parquet.ByteArray, len(v))
				for i, s := range v {
					ba[i] = parquet.ByteArray(s)
					if s == "" {
						ba[i] = parquet.ByteArray{}
					}
				}
				_, err = cw.(*file.ByteArrayColumnChunkWriter).WriteBatch(ba, nil, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := rgw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func ourWrite(t testing.TB, cols []Column, groups []group) []byte {
	t.Helper()
	var buf bytes.Buffer
	ourWriteTo(t, &buf, cols, groups)
	return buf.Bytes()
}

// ourWriteTo writes the file of ourWrite to out.
func ourWriteTo(t testing.TB, out io.Writer, cols []Column, groups []group) {
	t.Helper()
	w, err := NewWriter(out, cols, testCreatedBy)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		rows := 0
		switch v := g[0].(type) {
		case []int64:
			rows = len(v)
		case []int32:
			rows = len(v)
		case []float64:
			rows = len(v)
		case []string:
			rows = len(v)
		}
		rg, err := w.NewRowGroup(rows)
		if err != nil {
			t.Fatal(err)
		}
		for _, vals := range g {
			switch v := vals.(type) {
			case []int64:
				err = rg.Int64(v)
			case []int32:
				err = rg.Int32(v)
			case []float64:
				err = rg.Double(v)
			case []string:
				err = rg.Strings(v)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := rg.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// describeDiff names where two Parquet files differ: the first differing
// byte, and the first differing line of their footers' dumps.
func describeDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	msg := fmt.Sprintf("%d bytes, want %d; first difference at byte %d", len(got), len(want), i)
	g, gerr := dumpFooter(got)
	w, werr := dumpFooter(want)
	if gerr != nil || werr != nil {
		return msg + fmt.Sprintf("; footer dumps: %v, %v", gerr, werr)
	}
	gl, wl := strings.Split(g, "\n"), strings.Split(w, "\n")
	for j := 0; j < len(gl) && j < len(wl); j++ {
		if gl[j] != wl[j] {
			lo := max(0, j-8)
			return msg + fmt.Sprintf("\nfooter line %d: got %q, want %q\ncontext (want):\n%s", j, gl[j], wl[j], strings.Join(wl[lo:min(len(wl), j+2)], "\n"))
		}
	}
	return msg + "; footers equal"
}

// testCase is a schema and its row groups. mapOrder marks the cases in
// which arrow-go writes two data-page encodings into a chunk's
// encoding_stats: it ranges over a Go map for them, so its order is random
// and the oracle is retried until its order is ours.
type testCase struct {
	name     string
	cols     []Column
	groups   []group
	mapOrder bool
}

func words(r *rand.Rand, n, distinct, minLen, maxLen int) []string {
	pool := make([]string, distinct)
	for i := range pool {
		l := minLen + r.IntN(maxLen-minLen+1)
		b := make([]byte, l)
		for j := range b {
			b[j] = byte('a' + r.IntN(26))
		}
		pool[i] = string(b)
	}
	out := make([]string, n)
	for i := range out {
		out[i] = pool[r.IntN(distinct)]
	}
	return out
}

func doubles(r *rand.Rand, n int, special bool) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = r.NormFloat64()
		if special {
			switch r.IntN(50) {
			case 0:
				out[i] = math.NaN()
			case 1:
				out[i] = math.Inf(1)
			case 2:
				out[i] = math.Inf(-1)
			case 3:
				out[i] = 0
			case 4:
				out[i] = math.Copysign(0, -1)
			}
		}
	}
	return out
}

func testCases() []testCase {
	r := rand.New(rand.NewPCG(1, 2))
	docCols := []Column{{"qid", Int64}, {"doc", Int32}, {"label", Int32}, {"part", String}, {"f1", Double}, {"f2", Double}, {"comment", String}}
	docGroup := func(n int, distinctComments, minLen, maxLen int) group {
		qid := make([]int64, n)
		doc := make([]int32, n)
		label := make([]int32, n)
		for i := range qid {
			qid[i] = int64(i/37) - 5
			doc[i] = int32(i % 37)
			label[i] = int32(r.IntN(5))
		}
		part := make([]string, n)
		for i := range part {
			part[i] = []string{"train", "vali", "test"}[i*3/n]
		}
		return group{qid, doc, label, part, doubles(r, n, true), doubles(r, n, false), words(r, n, distinctComments, minLen, maxLen)}
	}
	var cases []testCase

	// Pages: 300,000 values make three pages of doubles and int64s (1 MiB
	// each) and dictionary pages cut by raw size.
	cases = append(cases, testCase{name: "pages", cols: docCols, groups: []group{docGroup(300000, 50, 0, 12)}})

	// Many row groups, the last of one row, and one-value chunks.
	var many []group
	for _, n := range []int{1000, 1000, 999, 17, 1} {
		many = append(many, docGroup(n, 10, 0, 5))
	}
	cases = append(cases, testCase{name: "many-row-groups", cols: docCols, groups: many})

	// Empty strings only; a single distinct value (bit width 1); 256 and
	// 257 distinct values (bit widths 8 and 9).
	empty := make([]string, 3000)
	one := make([]string, 3000)
	for i := range one {
		one[i] = "same"
	}
	seq := func(n, distinct int, runs bool) []string {
		out := make([]string, n)
		for i := range out {
			k := r.IntN(distinct)
			if runs {
				k = (i / 100) % distinct
			}
			out[i] = fmt.Sprintf("v%d", k)
		}
		return out
	}
	strCols := []Column{{"a", String}, {"b", String}, {"c", String}, {"d", String}, {"e", String}}
	cases = append(cases, testCase{name: "dictionary-widths", cols: strCols, groups: []group{
		{empty, one, seq(3000, 256, false), seq(3000, 257, false), seq(3000, 300, true)},
		{seq(5, 2, false), seq(5, 1, false), seq(5, 5, false), seq(5, 3, true), empty[:5]},
	}})

	// RLE boundaries: a page of exactly 63 literal groups (504 values,
	// no run of 8), which leaves the encoder empty before its flush; runs
	// of exactly 8 values aligned to the groups of 8, each then followed by
	// another value; runs of every length from 1 to 20.
	lit := seq(504, 200, false)
	aligned := make([]string, 504)
	for i := range aligned {
		aligned[i] = fmt.Sprintf("r%d", (i/8)%5)
	}
	var runs []string
	for k := 0; len(runs) < 504; k++ {
		for range k%20 + 1 {
			runs = append(runs, fmt.Sprintf("w%d", k%7))
		}
	}
	cases = append(cases, testCase{name: "rle-boundaries", cols: []Column{{"lit", String}, {"aligned", String}, {"runs", String}}, groups: []group{
		{lit, aligned, runs[:504]},
	}})

	// The dictionary outgrows 1 MiB after pages were cut: the dictionary
	// page, the held dictionary-encoded pages, then PLAIN pages.
	over := append(words(r, 150000, 20, 1, 8), words(r, 20000, 20000, 60, 120)...)
	cases = append(cases, testCase{name: "dictionary-fallback", cols: []Column{{"s", String}}, groups: []group{{over}}, mapOrder: true})

	// All distinct: the first page and the fallback come in one batch.
	distinct := words(r, 12000, 12000, 80, 120)
	for i := range distinct {
		distinct[i] = fmt.Sprint(i) + distinct[i]
	}
	cases = append(cases, testCase{name: "all-distinct", cols: []Column{{"s", String}}, groups: []group{{distinct}}, mapOrder: true})

	// Long strings: a minimum or maximum over 4096 bytes is left out of the
	// statistics; column chunk metadata over 4 KiB leaks into the file.
	long := func(n, lo, hi int) []string { return words(r, n, n, lo, hi) }
	cases = append(cases, testCase{name: "long-strings", cols: []Column{{"s", String}, {"t", String}, {"u", String}, {"x", Double}}, groups: []group{
		{long(40, 2000, 4096), long(40, 4000, 6000), long(40, 100, 200), doubles(r, 40, true)},
		{long(7, 4090, 4100), long(7, 1, 3), long(7, 2040, 2050), doubles(r, 7, false)},
		{long(3, 5000, 9000), long(3, 0, 0), long(3, 4096, 4096), doubles(r, 3, true)},
	}})

	// Special doubles: a page of NaN only, a chunk of NaN only, zeros of
	// both signs, infinities.
	nan := make([]float64, 140000)
	for i := range nan {
		nan[i] = math.NaN()
	}
	mixed := append(append([]float64(nil), nan[:131072]...), doubles(r, 8928, true)...)
	zeros := make([]float64, 140000)
	for i := range zeros {
		if i%2 == 1 {
			zeros[i] = math.Copysign(0, -1)
		}
	}
	inf := make([]float64, 140000)
	for i := range inf {
		inf[i] = math.Inf(1 - 2*(i%2))
	}
	cases = append(cases, testCase{name: "special-doubles", cols: []Column{{"nan", Double}, {"mixed", Double}, {"zeros", Double}, {"inf", Double}}, groups: []group{{nan, mixed, zeros, inf}}})

	// Chunks of exactly two write batches (2,048 rows) of every kind.
	cases = append(cases, testCase{name: "batch-multiple", cols: docCols[:5], groups: []group{docGroup(2048, 10, 0, 5)[:5]}})

	// A dictionary of exactly 1 MiB after the first batch (1,024 distinct
	// values of 4+1,020 bytes): it falls back to PLAIN there.
	exactDict := make([]string, 2048)
	for i := range exactDict {
		exactDict[i] = fmt.Sprintf("%04d", i%1024) + strings.Repeat("x", 1016)
	}
	cases = append(cases, testCase{name: "dictionary-exactly-1mib", cols: []Column{{"s", String}}, groups: []group{{exactDict}}, mapOrder: true})

	// A string page cut by the last batch: 4 batches of 1,024 values of
	// 4+252 bytes bring the page to exactly 1 MiB at the chunk's end.
	exact := make([]string, 4096)
	for i := range exact {
		exact[i] = strings.Repeat(string(rune('a'+i%3)), 252)
	}
	cases = append(cases, testCase{name: "page-cut-at-end", cols: []Column{{"s", String}}, groups: []group{{exact}}})

	// Chunk statistics merged from pages whose minima and maxima differ,
	// up and down from page to page, in every kind: 7 blocks of 131,072
	// rows, one page each of INT64, DOUBLE and strings (4+4 raw bytes a
	// value), two blocks a page of INT32. Each block spans [lo, hi], both
	// attained.
	blockLo := []int{-10, -20, -5, -30, -1, -40, -2}
	blockHi := []int{10, 5, 30, 3, 40, 8, 50}
	const block = 131072
	nm := len(blockLo) * block
	mi32, mi64, mf64, ms := make([]int32, nm), make([]int64, nm), make([]float64, nm), make([]string, nm)
	for i := range nm {
		lo, hi := blockLo[i/block], blockHi[i/block]
		v := lo + (i*7919)%(hi-lo+1)
		switch i % block {
		case 0:
			v = lo
		case 1:
			v = hi
		}
		mi32[i], mi64[i], mf64[i], ms[i] = int32(v), int64(v)<<40, float64(v)+0.25, fmt.Sprintf("%04d", v+100)
	}
	cases = append(cases, testCase{name: "merged-statistics", cols: []Column{{"i32", Int32}, {"i64", Int64}, {"f64", Double}, {"s", String}},
		groups: []group{{mi32, mi64, mf64, ms}}})

	// Lists of 15 elements, the first with the long list header: a schema
	// of the root and 14 columns, 15 row groups.
	var cols14 []Column
	for i := range 14 {
		cols14 = append(cols14, Column{fmt.Sprintf("c%d", i), Int32})
	}
	var groups15 []group
	for i := range 15 {
		var g group
		for j := range 14 {
			g = append(g, []int32{int32(i), int32(j)})
		}
		groups15 = append(groups15, g)
	}
	cases = append(cases, testCase{name: "lists-of-15", cols: cols14, groups: groups15})

	// More row groups than an i16 ordinal holds: it wraps, as arrow-go's.
	var tiny []group
	for i := range 32770 {
		tiny = append(tiny, group{[]int32{int32(i)}})
	}
	cases = append(cases, testCase{name: "32770-row-groups", cols: []Column{{"i", Int32}}, groups: tiny})

	return cases
}

// TestWriterMatchesArrow: for every test case the writer's file is byte
// for byte arrow-go's. Mutation controls, each of which made cases fail:
// the page cut at > instead of >= dataPageSize (pages); the literal run
// limit of 63 groups raised to 64 (dictionary-widths); the fallback
// without writing the dictionary page first (dictionary-fallback,
// all-distinct); maxStatsSize 4097 (long-strings); leakedPrefix returning
// 0 (long-strings); a zero minimum kept as +0 (special-doubles, pages);
// the RLE encoder's final flush taken when it holds nothing, and a repeated
// run flushed at a change of value only past 8 values (rle-boundaries;
// the second also fails TestReadBack: the run's 8 values are lost); the
// short list header used for 15 elements (lists-of-15); writeFixed's
// batch loop b < n as b <= n (batch-multiple: an empty page, or a panic);
// the fallback at dictSize > dictPageSizeMax (dictionary-exactly-1mib);
// lessFixed's < negated for INT32 (merged-statistics: no other case has
// INT32 pages of different minima), INT64 or DOUBLE, and writeStrings'
// string(a) < string(b) negated (merged-statistics, pages).
func TestWriterMatchesArrow(t *testing.T) {
	for _, c := range testCases() {
		t.Run(c.name, func(t *testing.T) {
			got := ourWrite(t, c.cols, c.groups)
			want := arrowWrite(t, c.cols, c.groups)
			for try := 0; c.mapOrder && try < 40 && !bytes.Equal(got, want); try++ {
				want = arrowWrite(t, c.cols, c.groups)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("file differs from arrow-go's: %s", describeDiff(got, want))
			}
		})
	}
}
