package outputs

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// File names inside a sweep output directory.
const (
	RunsDir    = "runs"         // DIR/runs/<id>.arrow: one file per finished run
	RunsFile   = "runs.arrow"   // one row per run
	CurvesFile = "curves.arrow" // one row per run and checkpoint
)

// curveBatchRows bounds the rows of one record batch of curves.arrow.
const curveBatchRows = 1 << 16

// EncodeRun returns the bytes of a per-run file: an Arrow IPC file whose
// table is the run's curve (round, pseudo_regret, realised_regret, syncs)
// and whose schema metadata holds the layout ("fedbandit.format_version"),
// every RunRecord column (key "fedbandit.run.<column>") plus a SHA-256 of
// the summary and the curve ("fedbandit.content_sha256"), so that
// corruption is detected on load. The bytes depend only on rec and pts.
func EncodeRun(rec *RunRecord, pts []Point) ([]byte, error) {
	return encodeRun(rec, pts, FormatVersion)
}

// encodeRun is EncodeRun in a given layout (the columns of columnsOf).
func encodeRun(rec *RunRecord, pts []Point, layout int) ([]byte, error) {
	if layout >= 2 && rec.Params == nil {
		return nil, fmt.Errorf("run %s: params not recorded (an empty map for an algorithm without parameters)", rec.RunID)
	}
	keys := []string{metaFormat}
	vals := []string{strconv.Itoa(layout)}
	for _, c := range columnsOf(layout) {
		p := c.field(rec)
		v, err := codecOf(p).format(p)
		if err != nil {
			return nil, fmt.Errorf("summary field %s: %w", c.Name, err)
		}
		keys = append(keys, metaPrefix+c.Name)
		vals = append(vals, v)
	}
	keys = append(keys, metaChecksum)
	vals = append(vals, contentChecksum(vals[1:], pts))
	return encodeRows(pointCols, pts, arrow.NewMetadata(keys, vals), math.MaxInt)
}

// WriteRun publishes a per-run file atomically (see WriteFileAtomic).
func WriteRun(path string, rec *RunRecord, pts []Point) error {
	data, err := EncodeRun(rec, pts)
	if err != nil {
		return fmt.Errorf("encode run %s: %w", rec.RunID, err)
	}
	return WriteFileAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// ReadRun reads and validates a per-run file of any layout up to
// FormatVersion: the Arrow footer and schema, the layout, every summary
// field and the curve checksum; a record of an older layout is upgraded
// (the columns added since are derived). A truncated, corrupted or foreign
// file is an error naming the file; a file of a newer layout is an error
// wrapping a *NewerLayoutError.
func ReadRun(path string) (*RunRecord, []Point, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read run file: %w", err)
	}
	rec, pts, err := DecodeRun(data)
	if err != nil {
		return nil, nil, fmt.Errorf("run file %s: %w", path, err)
	}
	return rec, pts, nil
}

// DecodeRun is ReadRun on bytes in memory.
func DecodeRun(data []byte) (rec *RunRecord, pts []Point, err error) {
	// The Arrow reader trusts the flatbuffers it parses and can panic on
	// corrupted bytes: that is a damaged file, not a crash.
	defer func() {
		if v := recover(); v != nil {
			rec, pts, err = nil, nil, fmt.Errorf("corrupted Arrow file: %v", v)
		}
	}()
	return decodeRun(data)
}

func decodeRun(data []byte) (*RunRecord, []Point, error) {
	r, err := ipc.NewFileReader(bytes.NewReader(data), sizeLimits(data)...)
	if err != nil {
		return nil, nil, fmt.Errorf("not a complete Arrow IPC file: %w", err)
	}
	defer r.Close()
	md := r.Schema().Metadata()
	v, _ := md.GetValue(metaFormat)
	layout, err := CheckLayout(v)
	if err != nil {
		return nil, nil, err
	}
	pts, err := readRows(r, pointCols)
	if err != nil {
		return nil, nil, err
	}
	rec := new(RunRecord)
	cols := columnsOf(layout)
	summary := make([]string, len(cols))
	for i, c := range cols {
		v, ok := md.GetValue(metaPrefix + c.Name)
		if !ok {
			return nil, nil, fmt.Errorf("summary field %s missing", c.Name)
		}
		summary[i] = v
		p := c.field(rec)
		if err := codecOf(p).parse(p, v); err != nil {
			return nil, nil, fmt.Errorf("summary field %s: %w", c.Name, err)
		}
	}
	want, _ := md.GetValue(metaChecksum)
	if got := contentChecksum(summary, pts); got != want {
		return nil, nil, fmt.Errorf("content checksum %s, recorded %s (corrupted file)", got, want)
	}
	if rec.FormatVersion != layout {
		return nil, nil, fmt.Errorf("format_version %d in a file of layout %d", rec.FormatVersion, layout)
	}
	if err := rec.validate(pts); err != nil {
		return nil, nil, err
	}
	if err := upgrade(rec, layout); err != nil {
		return nil, nil, err
	}
	return rec, pts, nil
}

// validate checks the invariants every published run satisfies.
func (r *RunRecord) validate(pts []Point) error {
	if r.FormatVersion >= 2 && r.Params == nil {
		return fmt.Errorf("run %s: params not recorded", r.RunID)
	}
	switch r.Status {
	case StatusDone:
		if len(pts) == 0 {
			return fmt.Errorf("done run %s has an empty curve", r.RunID)
		}
		if last := pts[len(pts)-1].Round; int(last) != r.Rounds {
			return fmt.Errorf("run %s: curve ends at round %d, summary says %d", r.RunID, last, r.Rounds)
		}
	case StatusFailed:
		if r.Error == "" {
			return fmt.Errorf("failed run %s without an error message", r.RunID)
		}
	default:
		return fmt.Errorf("run %s: unknown status %q", r.RunID, r.Status)
	}
	return nil
}

// contentChecksum is the hex SHA-256 of the summary fields (as stored, each
// length-prefixed) and the curve values in a fixed binary encoding.
func contentChecksum(summary []string, pts []Point) string {
	h := sha256.New()
	var buf [32]byte
	for _, v := range summary {
		binary.LittleEndian.PutUint64(buf[:8], uint64(len(v)))
		h.Write(buf[:8])
		h.Write([]byte(v))
	}
	for _, p := range pts {
		binary.LittleEndian.PutUint64(buf[0:], uint64(p.Round))
		binary.LittleEndian.PutUint64(buf[8:], math.Float64bits(p.Pseudo))
		binary.LittleEndian.PutUint64(buf[16:], math.Float64bits(p.Realised))
		binary.LittleEndian.PutUint64(buf[24:], uint64(p.Syncs))
		h.Write(buf[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// EncodeRuns returns the bytes of runs.arrow for recs, in one record batch.
func EncodeRuns(recs []RunRecord) ([]byte, error) {
	return encodeRows(runCols(FormatVersion), recs, layoutMetadata(FormatVersion), math.MaxInt)
}

// ReadRuns reads runs.arrow of any layout up to FormatVersion; the rows
// of an older layout are upgraded (see ReadRun).
func ReadRuns(path string) ([]RunRecord, error) {
	var layout int
	recs, err := readTable(path, "runs table", func(v int) []col[RunRecord] { layout = v; return runCols(v) })
	if err != nil {
		return nil, err
	}
	for i := range recs {
		if err := upgrade(&recs[i], layout); err != nil {
			return nil, fmt.Errorf("runs table %s: %w", path, err)
		}
	}
	return recs, nil
}

// WriteCurves writes curves.arrow atomically, rows in the order given.
func WriteCurves(path string, pts []CurvePoint) error {
	data, err := EncodeCurves(pts)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return WriteFileAtomic(path, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// EncodeCurves returns the bytes of curves.arrow: record batches of at most
// 65,536 rows.
func EncodeCurves(pts []CurvePoint) ([]byte, error) {
	return encodeCurves(pts, FormatVersion)
}

func encodeCurves(pts []CurvePoint, layout int) ([]byte, error) {
	return encodeRows(curveCols(), pts, layoutMetadata(layout), curveBatchRows)
}

// ReadCurves reads curves.arrow (the same columns in every layout).
func ReadCurves(path string) ([]CurvePoint, error) {
	return readTable(path, "curves table", func(int) []col[CurvePoint] { return curveCols() })
}

// col is one column of a table of rows R: its name and the field of a row
// holding its value (a pointer type of codecs).
type col[R any] struct {
	name  string
	field func(*R) any
}

// runCols are the columns of runs.arrow in a layout.
func runCols(layout int) []col[RunRecord] {
	var cols []col[RunRecord]
	for _, c := range columnsOf(layout) {
		cols = append(cols, col[RunRecord]{c.Name, c.field})
	}
	return cols
}

func curveCols() []col[CurvePoint] {
	cols := make([]col[CurvePoint], len(CurveColumns))
	for i, c := range CurveColumns {
		cols[i] = col[CurvePoint]{c.Name, c.field}
	}
	return cols
}

// pointCols are the columns of a per-run file.
var pointCols = []col[Point]{
	{"round", func(p *Point) any { return &p.Round }},
	{"pseudo_regret", func(p *Point) any { return &p.Pseudo }},
	{"realised_regret", func(p *Point) any { return &p.Realised }},
	{"syncs", func(p *Point) any { return &p.Syncs }},
}

// layoutMetadata is the schema metadata of a table: its layout.
func layoutMetadata(layout int) arrow.Metadata {
	return arrow.NewMetadata([]string{metaFormat}, []string{strconv.Itoa(layout)})
}

// encodeRows returns the bytes of an Arrow IPC file of rows, one column
// per col (its type from the codec of its field), in record batches of at
// most batchRows rows (one empty batch for no rows), with schema metadata
// md.
func encodeRows[R any](cols []col[R], rows []R, md arrow.Metadata, batchRows int) ([]byte, error) {
	fields := make([]arrow.Field, len(cols))
	cds := make([]codec, len(cols))
	var zero R
	for j, c := range cols {
		cd := codecOf(c.field(&zero))
		var ps []any
		if cd.typ == nil {
			ps = make([]any, len(rows))
			for i := range rows {
				ps[i] = c.field(&rows[i])
			}
		}
		cds[j] = cd
		fields[j] = arrow.Field{Name: c.name, Type: columnType(cd, ps), Nullable: cd.typ == nil}
	}
	schema := arrow.NewSchema(fields, &md)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	appenders := make([]func(any), len(cols))
	for j := range cols {
		appenders[j] = cds[j].appender(b.Field(j))
	}
	var batches []arrow.RecordBatch
	for lo := 0; lo == 0 || lo < len(rows); lo += batchRows {
		for i := lo; i < min(lo+batchRows, len(rows)); i++ {
			for j, c := range cols {
				appenders[j](c.field(&rows[i]))
			}
		}
		batches = append(batches, b.NewRecordBatch())
	}
	return encodeFile(schema, batches)
}

// readTable reads an Arrow IPC table file written by encodeRows: colsOf
// gives the columns of the layout the file declares. what names the table
// in errors.
func readTable[R any](path, what string, colsOf func(layout int) []col[R]) ([]R, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	r, err := ipc.NewFileReader(bytes.NewReader(data), sizeLimits(data)...)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	defer r.Close()
	v, _ := r.Schema().Metadata().GetValue(metaFormat)
	layout, err := CheckLayout(v)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	rows, err := readRows(r, colsOf(layout))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	return rows, nil
}

// readRows reads every record batch of r, whose schema must be cols.
func readRows[R any](r *ipc.FileReader, cols []col[R]) ([]R, error) {
	fs := r.Schema().Fields()
	cds := make([]codec, len(cols))
	var zero R
	for j, c := range cols {
		cds[j] = codecOf(c.field(&zero))
		if len(fs) != len(cols) || fs[j].Name != c.name || !cds[j].fits(fs[j].Type) {
			return nil, fmt.Errorf("unexpected columns %v", r.Schema())
		}
	}
	var rows []R
	for i := 0; i < r.NumRecords(); i++ {
		b, err := r.RecordBatch(i)
		if err != nil {
			return nil, fmt.Errorf("record batch %d: %w", i, err)
		}
		base := len(rows)
		rows = append(rows, make([]R, b.NumRows())...)
		for j, c := range cols {
			read := cds[j].reader(b.Column(j))
			for k := 0; k < int(b.NumRows()); k++ {
				read(c.field(&rows[base+k]), k)
			}
		}
	}
	return rows, nil
}

// sizeLimits bounds every length the reader trusts by the file size, so
// that a corrupted length is an error and never a huge allocation.
func sizeLimits(data []byte) []ipc.Option {
	n := int64(len(data))
	return []ipc.Option{ipc.WithMetadataSizeLimit(n), ipc.WithBodySizeLimit(n)}
}

// encodeFile serialises batches as an uncompressed Arrow IPC file and
// releases them.
func encodeFile(schema *arrow.Schema, batches []arrow.RecordBatch) ([]byte, error) {
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, err
	}
	for _, b := range batches {
		if err := w.Write(b); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
