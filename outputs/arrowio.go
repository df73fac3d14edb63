package outputs

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/fedbandit/fedbandit/core"
)

// File names inside a sweep output directory.
const (
	RunsDir    = "runs"         // DIR/runs/<id>.arrow: one file per finished run
	RunsFile   = "runs.arrow"   // one row per run
	CurvesFile = "curves.arrow" // one row per run and checkpoint
)

// curveBatchRows bounds the rows of one record batch of curves.arrow (a
// batch holds whole configurations unless one alone is larger).
const curveBatchRows = 1 << 16

// pointBase are the columns every per-run file's curve table starts with;
// the curve metrics the run produced follow (float64, by name).
var pointBase = []Column[Point]{
	value("t", "", "", "", func(p *Point) *int64 { return &p.Round }),
	value("pseudo_regret", "", "", "", func(p *Point) *float64 { return &p.Pseudo }),
	value("realised_regret", "", "", "", func(p *Point) *float64 { return &p.Realised }),
	value("syncs", "", "", "", func(p *Point) *int64 { return &p.Syncs }),
}

// pointColumns are the columns of the curve table of a run whose points
// hold the metrics keys (sorted).
func pointColumns(keys []string) []Column[Point] {
	cols := append([]Column[Point](nil), pointBase...)
	for _, k := range keys {
		cols = append(cols, withCodec(Column[Point]{Name: k,
			get: func(p *Point) any {
				v, ok := p.Metrics[k]
				if !ok {
					return (*float64)(nil)
				}
				return &v
			},
			set: func(p *Point, v any) {
				if p.Metrics == nil {
					p.Metrics = map[string]float64{}
				}
				p.Metrics[k] = *v.(*float64)
			}}))
	}
	return cols
}

// metricKeys are the metrics any point holds, sorted.
func metricKeys(pts []Point) []string {
	var keys []string
	for _, p := range pts {
		for k := range p.Metrics {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// runColumns are the columns of runs.arrow for rows whose parameters use
// keys: Columns, every registered new kind column (RegisterKindColumns)
// in name order, then param_<key> per key in sorted order.
func runColumns(keys []string) []Column[RunRecord] {
	applies, added := kindTables()
	return runColumnsOf(applies, added, slices.Sorted(maps.Keys(added)), keys)
}

// runColumnsOf are the columns of runs.arrow with the new kind columns
// named kindCols (of added, in name order) and parameter keys: Columns
// (a kind column's applies-to its kinds, applies), the kind columns, then
// param_<key> per key. applies and added are kindTables'.
func runColumnsOf(applies map[string]string, added map[string]KindColumn, kindCols, keys []string) []Column[RunRecord] {
	cols := append([]Column[RunRecord](nil), Columns...)
	for i, c := range cols {
		if a, ok := applies[c.Name]; ok && c.Applies == AppliesKinds {
			cols[i].Applies = a
		}
	}
	for _, name := range kindCols {
		cols = append(cols, newKindColumn(added[name]))
	}
	for _, k := range keys {
		cols = append(cols, paramColumn(k))
	}
	return cols
}

// paramKeys are the parameter keys any record uses, sorted.
func paramKeys(recs []RunRecord) []string {
	seen := map[string]bool{}
	for i := range recs {
		for k := range recs[i].Params {
			seen[k] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// EncodeRun returns the bytes of a per-run file: an Arrow IPC file whose
// table is the run's curve (t, pseudo_regret, realised_regret, syncs and
// the metrics the run produced) and whose schema metadata holds the layout
// ("fedbandit.format_version"), every non-null runs.arrow column of the
// run (key "fedbandit.run.<column>"; an absent key is a null) plus a
// SHA-256 of the summary and the curve ("fedbandit.content_sha256"), so
// that corruption is detected on load. The bytes depend only on rec and
// pts.
func EncodeRun(rec *RunRecord, pts []Point) ([]byte, error) {
	if err := rec.validate(pts); err != nil {
		return nil, err
	}
	return encodeRun(rec, pts)
}

// encodeRun is EncodeRun without the record's validation.
func encodeRun(rec *RunRecord, pts []Point) ([]byte, error) {
	keys := []string{metaFormat}
	vals := []string{strconv.Itoa(FormatVersion)}
	h := sha256.New()
	for _, c := range runColumns(slices.Sorted(maps.Keys(rec.Params))) {
		p := c.get(rec)
		cd := c.codec()
		if cd.check != nil {
			if err := cd.check(p); err != nil {
				return nil, fmt.Errorf("run %s: column %s: %w", rec.RunID, c.Name, err)
			}
		}
		if !cd.null(p) {
			v := cd.format(p)
			keys = append(keys, metaPrefix+c.Name)
			vals = append(vals, v)
			// A null cell adds nothing: a column added later (null in
			// the files written before it) leaves their checksums.
			hashCell(h, c.Name, false, v)
		}
	}
	cols := pointColumns(metricKeys(pts))
	hashPoints(h, cols, pts)
	keys = append(keys, metaChecksum)
	vals = append(vals, hex.EncodeToString(h.Sum(nil)))
	return encodeRows(cols, pts, arrow.NewMetadata(keys, vals), math.MaxInt)
}

// hashCell adds one summary cell to a per-run file's checksum: its name,
// whether it is null and its value as stored, each length-prefixed. Only
// non-null summary cells are hashed (a deleted one still changes the
// checksum).
func hashCell(h hash.Hash, name string, null bool, v string) {
	var buf [8]byte
	for _, s := range []string{name, strconv.FormatBool(null), v} {
		binary.LittleEndian.PutUint64(buf[:], uint64(len(s)))
		h.Write(buf[:])
		h.Write([]byte(s))
	}
}

// hashPoints adds the curve to a per-run file's checksum: the column names,
// then every row's t, pseudo_regret, realised_regret, syncs and metrics
// (in cols' order) as 8 little-endian bytes each (the float64 bits), a
// metric's preceded by a byte 1 when present, 0 when null.
func hashPoints(h hash.Hash, cols []Column[Point], pts []Point) {
	for _, c := range cols {
		hashCell(h, "column", false, c.Name)
	}
	keys := make([]string, 0, len(cols)-len(pointBase))
	for _, c := range cols[len(pointBase):] {
		keys = append(keys, c.Name)
	}
	buf := make([]byte, 0, 32+9*len(keys))
	for _, p := range pts {
		buf = binary.LittleEndian.AppendUint64(buf[:0], uint64(p.Round))
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(p.Pseudo))
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(p.Realised))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(p.Syncs))
		for _, k := range keys {
			v, ok := p.Metrics[k]
			if !ok {
				buf = append(buf, 0)
				continue
			}
			buf = binary.LittleEndian.AppendUint64(append(buf, 1), math.Float64bits(v))
		}
		h.Write(buf)
	}
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
// to this layout's columns (legacy.go). A truncated, corrupted or foreign
// file is an error naming the file (and the column when one is at
// fault); a file of a newer layout is an error wrapping a
// *NewerLayoutError.
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
	if layout < 3 {
		return decodeLegacyRun(r, layout)
	}
	fs := r.Schema().Fields()
	var keys []string
	for i, f := range fs {
		if i < len(pointBase) {
			continue
		}
		if slices.Contains(keys, f.Name) || slices.ContainsFunc(pointBase, func(c Column[Point]) bool { return c.Name == f.Name }) {
			return nil, nil, fmt.Errorf("curve column %s given twice", f.Name)
		}
		keys = append(keys, f.Name)
	}
	if !slices.IsSorted(keys) {
		return nil, nil, fmt.Errorf("curve metric columns %v out of order", keys)
	}
	cols := pointColumns(keys)
	pts, err := readPoints(r, cols)
	if err != nil {
		return nil, nil, err
	}
	rec := new(RunRecord)
	h := sha256.New()
	known := map[string]bool{metaPrefix[:len(metaPrefix)-1]: false}
	var params []string
	for _, k := range md.Keys() {
		if name, ok := strings.CutPrefix(k, metaPrefix+ParamPrefix); ok {
			params = append(params, strings.Clone(name))
		}
	}
	slices.Sort(params)
	for _, c := range runColumns(params) {
		// A layout-3 file names some columns otherwise (upgrade.go).
		name, has := legacyName(c.Name, layout)
		if !has {
			continue
		}
		known[metaPrefix+name] = true
		s, ok := md.GetValue(metaPrefix + name)
		// A copy: the metadata's strings may share the file's buffer,
		// which a kept record must not pin (Collect keeps every record).
		s = strings.Clone(s)
		if ok {
			p, err := c.codec().parse(s)
			if err != nil {
				return nil, nil, fmt.Errorf("summary column %s: %q: %w", name, s, err)
			}
			c.set(rec, p)
			hashCell(h, name, false, s)
		}
	}
	for _, k := range md.Keys() {
		if strings.HasPrefix(k, metaPrefix) && !known[k] {
			return nil, nil, fmt.Errorf("summary column %s: not a column of layout %d", strings.TrimPrefix(k, metaPrefix), layout)
		}
	}
	if rec.Params == nil {
		rec.Params = map[string]float64{}
	}
	hashPoints(h, cols, pts)
	want, _ := md.GetValue(metaChecksum)
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return nil, nil, fmt.Errorf("content checksum %s, recorded %s (corrupted or edited file)", got, want)
	}
	if rec.FormatVersion != layout {
		return nil, nil, fmt.Errorf("summary column format_version: %d in a file of layout %d", rec.FormatVersion, layout)
	}
	if layout < FormatVersion {
		rec.upgradeMeanings(layout)
	}
	if err := rec.validate(pts); err != nil {
		return nil, nil, err
	}
	return rec, pts, nil
}

// validate checks the invariants every published run satisfies.
func (r *RunRecord) validate(pts []Point) error {
	if r.FormatVersion >= 2 && r.Params == nil {
		return fmt.Errorf("run %s: params not recorded", r.RunID)
	}
	for name, v := range map[string]string{"run_id": r.RunID, "family": r.Family, "algorithm": r.Algorithm, "trust": r.Trust} {
		if v == "" && (name == "run_id" || r.FormatVersion >= 2) {
			return fmt.Errorf("run %s: column %s missing", r.RunID, name)
		}
	}
	for k := range r.Params {
		if !paramKey.MatchString(k) {
			return fmt.Errorf("run %s: parameter key %q: want letters, digits and _ (it names column %s%s)", r.RunID, k, ParamPrefix, k)
		}
	}
	if len(r.KindValues) > 0 {
		_, added := kindTables()
		if err := r.checkKindValues(added); err != nil {
			return err
		}
	}
	if err := r.checkClaim(); err != nil {
		return fmt.Errorf("run %s: %w", r.RunID, err)
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
	for i, p := range pts {
		for k, v := range p.Metrics {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("run %s: curve metric %s non-finite at checkpoint %d", r.RunID, k, i)
			}
		}
	}
	return nil
}

// checkClaim checks the privacy columns' rules (README.md, "One schema
// for every family"), naming the column that breaks one.
func (r *RunRecord) checkClaim() error {
	if r.FormatVersion < 2 && r.Trust == "" {
		return nil
	}
	private := r.Trust != core.TrustNone
	switch {
	case r.Certified && !private:
		return errors.New("column certified: true for a non-private run")
	case r.Certified && (r.DeliveredEps == nil || r.DeliveredDelta == nil):
		return errors.New("column delivered_eps: certified without a delivered guarantee")
	case !private && (r.DeliveredEps != nil || r.DeliveredDelta != nil):
		return errors.New("column delivered_eps: a delivered guarantee for a non-private run")
	case !private && (r.Eps != nil || r.Delta != nil):
		return errors.New("column eps: a privacy target for a non-private run")
	case !private && (r.Mechanism != "" || r.Sampler != "" || r.Relation != ""):
		return errors.New("column mechanism: a privacy mechanism for a non-private run")
	case private && !r.Certified && r.Status == StatusDone && !strings.HasPrefix(r.CalibrationNote, notCertified):
		return fmt.Errorf("column calibration_note: %q: a private run that is not certified must say why, after %q", r.CalibrationNote, notCertified)
	case r.DeliveredEps != nil && (math.IsNaN(*r.DeliveredEps) || math.IsInf(*r.DeliveredEps, 0) || *r.DeliveredEps < 0):
		return fmt.Errorf("column delivered_eps: %v", *r.DeliveredEps)
	case !private && (r.TargetEps != nil || r.TargetDelta != nil):
		return errors.New("column target_eps: a privacy target for a non-private run")
	case private && r.Status == StatusDone && (r.TargetEps == nil || r.TargetDelta == nil):
		return errors.New("column target_eps: a done private run without its (eps, delta) target")
	case !private && r.CalibrationNote != "":
		return fmt.Errorf("column calibration_note: %q: a privacy note for a non-private run", r.CalibrationNote)
	case r.Relation != "" && !slices.Contains(core.Relations, r.Relation):
		return fmt.Errorf("column relation: %q is not one of %v (the words go in relation_note)", r.Relation, core.Relations)
	case r.Mechanism != "" && core.Mechanisms[r.Mechanism] == "":
		return fmt.Errorf("column mechanism: %q is not a token of core.Mechanisms", r.Mechanism)
	case r.Certified:
		if err := r.claim().Check(); err != nil {
			return fmt.Errorf("column certified: %w", err)
		}
	}
	return nil
}

// paramKey is the form of a parameter key (a column name suffix).
var paramKey = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// EncodeRuns returns the bytes of runs.arrow for recs, in one record batch.
func EncodeRuns(recs []RunRecord) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeRuns(&buf, recs); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeRuns(w io.Writer, recs []RunRecord) error {
	if err := checkKindValues(recs); err != nil {
		return err
	}
	cols := runColumns(releaseKeys(recs))
	tw, err := newTableWriter(w, tableSchema(cols), cols)
	if err != nil {
		return err
	}
	if err := tw.append(recs...); err != nil {
		return err
	}
	return tw.close()
}

// RunsColumns returns the columns of runs.arrow for recs: Columns, the
// new columns of the kinds (RegisterKindColumns), then the param_<key>
// column of every parameter key of the release
// (RegisterRelease) and of every key they use. Another writer of the
// table (a Parquet copy) walks them: Column.Get gives each cell (nil for
// a null) and Column.TypeName its type.
func RunsColumns(recs []RunRecord) []Column[RunRecord] { return runColumns(releaseKeys(recs)) }

// RunsSchema returns the Arrow schema of runs.arrow for recs (RunsColumns),
// with its schema and field metadata.
func RunsSchema(recs []RunRecord) *arrow.Schema {
	return tableSchema(runColumns(releaseKeys(recs)))
}

// RunsRecordBatch returns runs.arrow's rows for recs as one Arrow record
// batch of RunsSchema (the caller releases it): what a writer of another
// format (Parquet through pqarrow) converts. curves.arrow's record
// batches are read from the file itself (they are whole configurations).
func RunsRecordBatch(recs []RunRecord) (arrow.RecordBatch, error) {
	if err := checkKindValues(recs); err != nil {
		return nil, err
	}
	cols := runColumns(releaseKeys(recs))
	b := array.NewRecordBuilder(memory.DefaultAllocator, tableSchema(cols))
	defer b.Release()
	for j, c := range cols {
		app := c.codec().appender(b.Field(j))
		for i := range recs {
			p := c.get(&recs[i])
			if err := c.checkCell(p); err != nil {
				return nil, err
			}
			app(p)
		}
	}
	return b.NewRecordBatch(), nil
}

// ReadRuns reads runs.arrow of this layout. A table of an older layout is
// refused with a message to run `run collect`, which rewrites it from the
// per-run files.
func ReadRuns(path string) ([]RunRecord, error) {
	recs, err := readTable(path, "runs table", func(fs []arrow.Field) ([]Column[RunRecord], error) {
		applies, added := kindTables()
		var kindCols, keys []string
		for i, f := range fs {
			if i < len(Columns) {
				continue
			}
			k, ok := strings.CutPrefix(f.Name, ParamPrefix)
			if !ok {
				if _, kind := added[f.Name]; !kind || len(keys) > 0 {
					return nil, fmt.Errorf("column %s: not a column of runs.arrow (nor, before the param_<key> columns, a column a kind of this build declares)", f.Name)
				}
				kindCols = append(kindCols, f.Name)
				continue
			}
			keys = append(keys, k)
		}
		if !slices.IsSorted(kindCols) || len(slices.Compact(slices.Clone(kindCols))) != len(kindCols) {
			return nil, fmt.Errorf("kind columns %v not sorted and unique", kindCols)
		}
		if !slices.IsSorted(keys) || len(slices.Compact(slices.Clone(keys))) != len(keys) {
			return nil, fmt.Errorf("parameter columns %v not sorted and unique", keys)
		}
		return runColumnsOf(applies, added, kindCols, keys), nil
	})
	for i := range recs {
		if recs[i].Params == nil {
			recs[i].Params = map[string]float64{}
		}
	}
	return recs, err
}

// ReadCurves reads curves.arrow of this layout (a file written before a
// curve metric existed lacks its column: the metric is then null). Its
// rows' GroupID is empty: the table has no group_id column (ReadTables
// fills it in from runs.arrow).
func ReadCurves(path string) ([]CurvePoint, error) {
	return readTable(path, "curves table", curveColumnsOf)
}

// curveColumnsOf are the columns of a curves.arrow whose schema has fields
// fs: the base columns, then the family metrics it holds, each a float64
// column read into CurvePoint.Metrics by name (a metric this build does
// not declare too: a metric is added without a new layout).
func curveColumnsOf(fs []arrow.Field) ([]Column[CurvePoint], error) {
	cols := append([]Column[CurvePoint](nil), curveBase...)
	seen := map[string]bool{}
	for _, c := range curveBase {
		seen[c.Name] = true
	}
	for i, f := range fs {
		if i < len(curveBase) {
			continue
		}
		if seen[f.Name] {
			return nil, fmt.Errorf("column %s given twice", f.Name)
		}
		seen[f.Name] = true
		cols = append(cols, Metric{Metric: core.Metric{Column: f.Name}}.column())
	}
	return cols, nil
}

// layoutMetadata is the schema metadata of a table: its layout.
func layoutMetadata(layout int) arrow.Metadata {
	return arrow.NewMetadata([]string{metaFormat}, []string{strconv.Itoa(layout)})
}

// checkCell refuses a value the column cannot hold: one its codec
// refuses, or a null in a column no row leaves null.
func (c Column[R]) checkCell(p any) error {
	cd := c.codec()
	if cd.check != nil {
		if err := cd.check(p); err != nil {
			return fmt.Errorf("column %s: %w", c.Name, err)
		}
	}
	if c.notNull && cd.null(p) {
		return fmt.Errorf("column %s: no value, in a column every row has", c.Name)
	}
	return nil
}

// schemaOf is the plain Arrow schema of a per-run file's columns cols:
// nullable fields without metadata (tables: tableSchema).
func schemaOf[R any](cols []Column[R], md arrow.Metadata) *arrow.Schema {
	fields := make([]arrow.Field, len(cols))
	for j, c := range cols {
		fields[j] = arrow.Field{Name: c.Name, Type: c.codec().typ, Nullable: true}
	}
	return arrow.NewSchema(fields, &md)
}

// tableWriter writes rows of R as an Arrow IPC file, one record batch per
// flush.
type tableWriter[R any] struct {
	cols []Column[R]
	cds  []codec
	b    *array.RecordBuilder
	app  []func(any)
	w    *ipc.FileWriter
	rows int // rows appended since the last flush
	// batches counts the record batches written.
	batches int
}

func newTableWriter[R any](w io.Writer, schema *arrow.Schema, cols []Column[R]) (*tableWriter[R], error) {
	fw, err := ipc.NewFileWriter(w, ipc.WithSchema(schema), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, err
	}
	t := &tableWriter[R]{cols: cols, b: array.NewRecordBuilder(memory.DefaultAllocator, schema), w: fw}
	for j, c := range cols {
		t.cds = append(t.cds, c.codec())
		t.app = append(t.app, t.cds[j].appender(t.b.Field(j)))
	}
	return t, nil
}

// append adds rows to the current batch.
func (t *tableWriter[R]) append(rows ...R) error {
	for i := range rows {
		for j, c := range t.cols {
			p := c.get(&rows[i])
			if err := c.checkCell(p); err != nil {
				return err
			}
			t.app[j](p)
		}
	}
	t.rows += len(rows)
	return nil
}

// flush writes the current batch (an empty one when force and nothing was
// appended since the last flush).
func (t *tableWriter[R]) flush(force bool) error {
	if t.rows == 0 && !force {
		return nil
	}
	rb := t.b.NewRecordBatch()
	defer rb.Release()
	t.rows = 0
	t.batches++
	return t.w.Write(rb)
}

// close flushes the last batch (one empty batch for a table without rows
// or batches) and writes the footer.
func (t *tableWriter[R]) close() error {
	defer t.b.Release()
	if err := t.flush(t.batches == 0); err != nil {
		return err
	}
	return t.w.Close()
}

// encodeRows returns the bytes of an Arrow IPC file of rows, one column
// per col, in record batches of at most batchRows rows (one empty batch
// for no rows), with schema metadata md.
func encodeRows[R any](cols []Column[R], rows []R, md arrow.Metadata, batchRows int) ([]byte, error) {
	return encodeTable(schemaOf(cols, md), cols, rows, batchRows)
}

// encodeTable is encodeRows with the file's schema given (tableSchema for
// a table).
func encodeTable[R any](schema *arrow.Schema, cols []Column[R], rows []R, batchRows int) ([]byte, error) {
	var buf bytes.Buffer
	tw, err := newTableWriter(&buf, schema, cols)
	if err != nil {
		return nil, err
	}
	for lo := 0; lo == 0 || lo < len(rows); lo += batchRows {
		if err := tw.append(rows[lo:min(lo+batchRows, len(rows))]...); err != nil {
			tw.b.Release()
			return nil, err
		}
		if err := tw.flush(true); err != nil {
			tw.b.Release()
			return nil, err
		}
	}
	tw.b.Release()
	if err := tw.w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readTable reads an Arrow IPC table file of this layout: colsOf gives its
// columns from the schema's fields. what names the table in errors.
func readTable[R any](path, what string, colsOf func(fs []arrow.Field) ([]Column[R], error)) ([]R, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	rows, err := decodeTable(data, colsOf, FormatVersion)
	if err != nil {
		if msg := err.Error(); strings.Contains(msg, "`run collect DIR`") { // an older layout: name the directory
			return nil, fmt.Errorf("%s %s: %s", what, path, strings.Replace(msg, "DIR", filepath.Dir(path), 1))
		}
		return nil, fmt.Errorf("%s %s: %w", what, path, err)
	}
	return rows, nil
}

// decodeAnyLayout decodes a table whose columns are cols in every layout.
func decodeAnyLayout[R any](data []byte, cols []Column[R]) ([]R, error) {
	return decodeTable(data, func([]arrow.Field) ([]Column[R], error) { return cols, nil }, 1)
}

// decodeTable decodes a table of a layout from oldest to FormatVersion.
func decodeTable[R any](data []byte, colsOf func(fs []arrow.Field) ([]Column[R], error), oldest int) (rows []R, err error) {
	defer func() {
		if v := recover(); v != nil {
			rows, err = nil, fmt.Errorf("corrupted Arrow file: %v", v)
		}
	}()
	r, err := ipc.NewFileReader(bytes.NewReader(data), sizeLimits(data)...)
	if err != nil {
		return nil, fmt.Errorf("not a complete Arrow IPC file: %w", err)
	}
	defer r.Close()
	v, _ := r.Schema().Metadata().GetValue(metaFormat)
	layout, err := CheckLayout(v)
	if err != nil {
		return nil, err
	}
	if layout < oldest {
		return nil, fmt.Errorf("written in layout %d; this build reads tables of layout %d: run `run collect DIR` to rewrite them from the run files", layout, FormatVersion)
	}
	cols, err := colsOf(r.Schema().Fields())
	if err != nil {
		return nil, err
	}
	return readRows(r, cols, nil)
}

// readRows reads every record batch of r, whose schema must be cols
// (names and types, in order); each row goes to emit when it is not nil
// (and nothing is kept), else into the returned slice.
func readRows[R any](r *ipc.FileReader, cols []Column[R], emit func(R) error) ([]R, error) {
	if err := checkFields(r.Schema().Fields(), cols); err != nil {
		return nil, err
	}
	cds := make([]codec, len(cols))
	for j, c := range cols {
		cds[j] = c.codec()
	}
	var rows []R
	for i := 0; i < r.NumRecords(); i++ {
		b, err := r.RecordBatch(i)
		if err != nil {
			return nil, fmt.Errorf("record batch %d: %w", i, err)
		}
		n := int(b.NumRows())
		batch := make([]R, n)
		for j, c := range cols {
			col := b.Column(j)
			read := cds[j].reader(col)
			for k := 0; k < n; k++ {
				if col.IsNull(k) {
					if c.notNull {
						return nil, fmt.Errorf("column %s, row %d of batch %d: null where every row has a value", c.Name, k, i)
					}
					continue
				}
				v, err := read(k)
				if err != nil {
					return nil, fmt.Errorf("column %s, row %d of batch %d: %w", c.Name, k, i, err)
				}
				c.set(&batch[k], v)
			}
		}
		if emit == nil {
			rows = append(rows, batch...)
			continue
		}
		for _, row := range batch {
			if err := emit(row); err != nil {
				return nil, err
			}
		}
	}
	return rows, nil
}

// readPoints reads a per-run file's curve table, whose schema must be
// cols (the four base columns, then metrics): readRows without a
// per-cell allocation, since Collect reads every run's curve twice.
func readPoints(r *ipc.FileReader, cols []Column[Point]) ([]Point, error) {
	if err := checkFields(r.Schema().Fields(), cols); err != nil {
		return nil, err
	}
	var pts []Point
	for i := 0; i < r.NumRecords(); i++ {
		b, err := r.RecordBatch(i)
		if err != nil {
			return nil, fmt.Errorf("record batch %d: %w", i, err)
		}
		for j := range pointBase {
			if n := b.Column(j).NullN(); n > 0 {
				return nil, fmt.Errorf("column %s: %d nulls", cols[j].Name, n)
			}
		}
		t, pseudo := b.Column(0).(*array.Int64), b.Column(1).(*array.Float64)
		realised, syncs := b.Column(2).(*array.Float64), b.Column(3).(*array.Int64)
		base := len(pts)
		for k := 0; k < int(b.NumRows()); k++ {
			pts = append(pts, Point{Round: t.Value(k), Pseudo: pseudo.Value(k), Realised: realised.Value(k), Syncs: syncs.Value(k)})
		}
		for j := len(pointBase); j < len(cols); j++ {
			m := b.Column(j).(*array.Float64)
			for k := 0; k < m.Len(); k++ {
				if m.IsValid(k) {
					p := &pts[base+k]
					if p.Metrics == nil {
						p.Metrics = make(map[string]float64, len(cols)-len(pointBase))
					}
					p.Metrics[cols[j].Name] = m.Value(k)
				}
			}
		}
	}
	return pts, nil
}

// checkFields checks that a schema's fields are cols: names and types, in
// order, no more.
func checkFields[R any](fs []arrow.Field, cols []Column[R]) error {
	for j, c := range cols {
		if j >= len(fs) {
			return fmt.Errorf("column %s missing", c.Name)
		}
		if fs[j].Name != c.Name {
			return fmt.Errorf("column %d is %s, want %s", j, fs[j].Name, c.Name)
		}
		if cd := c.codec(); !cd.fits(fs[j].Type) {
			return fmt.Errorf("column %s: type %s, want %s", c.Name, fs[j].Type, cd.typ)
		}
	}
	if len(fs) > len(cols) {
		return fmt.Errorf("column %s: not expected", fs[len(cols)].Name)
	}
	return nil
}

// sizeLimits bounds every length the reader trusts by the file size, so
// that a corrupted length is an error and never a huge allocation.
func sizeLimits(data []byte) []ipc.Option {
	n := int64(len(data))
	return []ipc.Option{ipc.WithMetadataSizeLimit(n), ipc.WithBodySizeLimit(n)}
}
