package outputs

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/parquet-go/parquet-go"

	"github.com/fedbandit/fedbandit/internal/atomicfile"
	"github.com/fedbandit/fedbandit/internal/mutation"
)

// TablesFile records which runs.arrow and curves.arrow were written
// together by one collect: the size and SHA-256 of each. Readers
// (ReadTables: `run table`, `run plot`, the sweep summary) refuse a pair
// that does not match it, so a runs.arrow is never paired with the
// curves.arrow of another collect (after a full disk, a crash between the
// two renames, or a file copied in by hand).
const TablesFile = "tables.json"

// tablesRecord is DIR/tables.json.
type tablesRecord struct {
	FormatVersion int         `json:"format_version"`
	Runs          tableDigest `json:"runs"`
	Curves        tableDigest `json:"curves"`
	// CurveBatches lists curves.arrow's record batches in order: the
	// configurations (group_id) each holds, so that a reader loads one
	// configuration's curves by reading only its batches.
	CurveBatches []CurveBatch `json:"curve_batches"`
}

// CurveBatch is one record batch of curves.arrow: its rows hold the
// configurations from FirstGroupID to LastGroupID (group_id order); a
// configuration is split across batches only when it alone exceeds a
// batch.
type CurveBatch struct {
	FirstGroupID string `json:"first_group_id"`
	LastGroupID  string `json:"last_group_id"`
	Rows         int    `json:"rows"`
}

// tableDigest identifies one table file's bytes.
type tableDigest struct {
	File   string `json:"file"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

func digestOf(file string, data []byte) tableDigest {
	sum := sha256.Sum256(data)
	return tableDigest{File: file, Bytes: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}
}

// WriteTables writes DIR/runs.arrow, DIR/curves.arrow (rows in the order
// given), their Parquet copies DIR/runs.parquet and DIR/curves.parquet,
// and DIR/tables.json as one commit: all five are first written in full
// to temp files (and fsynced); only when every one is complete are they
// renamed into place, tables.json last. A write error (a full disk)
// therefore leaves the previous consistent tables untouched; a crash
// between the renames leaves a pair that ReadTables refuses with a
// message saying to collect again.
func WriteTables(dir string, recs []RunRecord, curves []CurvePoint) error {
	return writeTables(dir, recs, func(emit func([]CurvePoint) error) error {
		return emitRows(curves, emit)
	})
}

// emitRows hands rows to a curve writer run by run (the rows of a run are
// consecutive).
func emitRows(rows []CurvePoint, emit func([]CurvePoint) error) error {
	for lo := 0; lo < len(rows); {
		hi := lo + 1
		for hi < len(rows) && rows[hi].RunID == rows[lo].RunID {
			hi++
		}
		if err := emit(rows[lo:hi]); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// writeTables is WriteTables with the curves streamed: curves calls emit
// with each run's curve rows in curves.arrow's order (by group_id).
func writeTables(dir string, recs []RunRecord, curves func(emit func([]CurvePoint) error) error) (err error) {
	if err := removeStaged(dir); err != nil {
		return err
	}
	rb, err := EncodeRuns(recs)
	if err != nil {
		return fmt.Errorf("encode %s: %w", RunsFile, err)
	}
	var staged []string
	defer func() {
		for _, t := range staged {
			os.Remove(t) // no-op once renamed
		}
	}()
	fail := func(name string, err error) error {
		return fmt.Errorf("write %s (the previous tables are unchanged): %w", filepath.Join(dir, name), err)
	}
	tmp, err := stageFile(dir, RunsFile, func(w io.Writer) error { _, err := w.Write(rb); return err })
	if err != nil {
		return fail(RunsFile, err)
	}
	staged = append(staged, tmp)
	var batches []CurveBatch
	h := sha256.New()
	var size int64
	var read int64 // the curve rows of the run files, as read
	counted := func(emit func([]CurvePoint) error) error {
		return curves(func(rows []CurvePoint) error {
			read += int64(len(rows))
			return emit(rows)
		})
	}
	tmp, err = stageFile(dir, CurvesFile, func(w io.Writer) error {
		cw := &countWriter{w: io.MultiWriter(w, h)}
		batches, err = writeCurves(cw, counted)
		size = cw.n
		return err
	})
	if err != nil {
		return fail(CurvesFile, err)
	}
	staged = append(staged, tmp)
	// The Parquet copies (parquet.go), converted from the staged Arrow
	// tables: curves.arrow read back batch by batch (WriteParquet), so
	// that the collect's memory stays bounded by a batch.
	tmp, err = stageFile(dir, RunsParquetFile, func(w io.Writer) error {
		return WriteParquet(w, bytes.NewReader(rb), int64(len(rb)))
	})
	if err != nil {
		return fail(RunsParquetFile, err)
	}
	staged = append(staged, tmp)
	tmp, err = stageFile(dir, CurvesParquetFile, func(w io.Writer) error {
		f, err := os.Open(staged[1])
		if err != nil {
			return err
		}
		defer f.Close()
		return WriteParquet(w, f, size)
	})
	if err != nil {
		return fail(CurvesParquetFile, err)
	}
	staged = append(staged, tmp)
	// Nothing dropped: every staged table holds exactly the rows of the
	// run files read, or nothing is published.
	if err := checkStagedRows(staged, int64(len(recs)), read, batches); err != nil {
		return fmt.Errorf("collect %s: %w: nothing published (the previous tables are unchanged; this is a bug of fedbandit, please report it)", dir, err)
	}
	rec := tablesRecord{FormatVersion: FormatVersion, Runs: digestOf(RunsFile, rb),
		Curves:       tableDigest{File: CurvesFile, Bytes: size, SHA256: hex.EncodeToString(h.Sum(nil))},
		CurveBatches: batches}
	jb, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	tmp, err = stageFile(dir, TablesFile, func(w io.Writer) error { _, err := w.Write(append(jb, '\n')); return err })
	if err != nil {
		return fail(TablesFile, err)
	}
	staged = append(staged, tmp)
	for i, name := range tableFiles {
		if err := os.Rename(staged[i], filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("publish %s: %w (run collect again)", filepath.Join(dir, name), err)
		}
	}
	if err := removeCSV(dir); err != nil {
		return err
	}
	return atomicfile.SyncDir(dir)
}

// tableFiles are the files one collect writes, in the order it publishes
// them.
var tableFiles = []string{RunsFile, CurvesFile, RunsParquetFile, CurvesParquetFile, TablesFile}

// removeStaged removes the staged files (NAME.*.tmp, stage's names) of the
// tables that a collect killed while staging left in dir (SIGKILL, a
// power cut: up to gigabytes each, attack round 4 R4-16). The caller
// holds dir exclusively (runner.Collect takes its lock; a sweep collects
// under its own), so no live collect owns them.
func removeStaged(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, atomicfile.TempSuffix) {
			continue
		}
		for _, t := range tableFiles {
			if strings.HasPrefix(n, t+".") {
				if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
					return fmt.Errorf("remove the leftover of an interrupted collect: %w", err)
				}
				break
			}
		}
	}
	return nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeCurves writes curves.arrow to w from the runs curves emits, in
// record batches of at most curveBatchRows rows that end at a
// configuration's end unless one configuration alone is larger; it
// returns the batches written.
func writeCurves(w io.Writer, curves func(emit func([]CurvePoint) error) error) ([]CurveBatch, error) {
	var pending []CurvePoint // the current configuration's rows not yet written
	group := ""
	cols := CurveColumns()
	tw, err := newTableWriter(w, tableSchema(cols), cols)
	if err != nil {
		return nil, err
	}
	var batches []CurveBatch
	cur := CurveBatch{}
	flush := func() error {
		if cur.Rows == 0 {
			return nil
		}
		batches = append(batches, cur)
		cur = CurveBatch{}
		return tw.flush(true)
	}
	add := func(rs []CurvePoint) error {
		for len(rs) > 0 {
			if cur.Rows == curveBatchRows {
				if err := flush(); err != nil {
					return err
				}
			}
			if mutation.On("O1") && cur.Rows == 0 && len(batches) > 0 && len(rs) > 1 {
				rs = rs[1:] // the fault: a row dropped at a record-batch boundary
			}
			n := min(len(rs), curveBatchRows-cur.Rows)
			if cur.Rows == 0 {
				cur.FirstGroupID = rs[0].GroupID
			}
			cur.LastGroupID = rs[n-1].GroupID
			if err := tw.append(rs[:n]...); err != nil {
				return err
			}
			cur.Rows += n
			rs = rs[n:]
		}
		return nil
	}
	// A configuration's rows are held until it ends (or fills a batch),
	// so that a batch ends at a configuration's end.
	endGroup := func() error {
		if cur.Rows > 0 && cur.Rows+len(pending) > curveBatchRows {
			if err := flush(); err != nil {
				return err
			}
		}
		err := add(pending)
		pending = pending[:0]
		return err
	}
	err = curves(func(rows []CurvePoint) error {
		if len(rows) == 0 {
			return nil
		}
		if rows[0].GroupID != group {
			if err := endGroup(); err != nil {
				return err
			}
			group = rows[0].GroupID
		}
		if len(pending)+len(rows) > curveBatchRows {
			// One configuration larger than a batch: write what is held.
			if err := flush(); err != nil {
				return err
			}
			if err := add(pending); err != nil {
				return err
			}
			pending = pending[:0]
		}
		pending = append(pending, rows...)
		return nil
	})
	if err == nil {
		err = endGroup()
	}
	if err == nil {
		err = flush()
	}
	if err != nil {
		tw.b.Release()
		return nil, err
	}
	return batches, tw.close()
}

// stageFile is stage; a test replaces it to fail as a full disk does.
var stageFile = stage

// stage writes a fsynced temp file beside dir/name with write and returns
// its path.
func stage(dir, name string, write func(io.Writer) error) (path string, err error) {
	f, err := os.CreateTemp(dir, name+".*"+atomicfile.TempSuffix)
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = write(bw); err != nil {
		return "", err
	}
	if err = bw.Flush(); err != nil {
		return "", err
	}
	if err = f.Chmod(0o644); err != nil {
		return "", err
	}
	if err = f.Sync(); err != nil {
		return "", err
	}
	return f.Name(), f.Close()
}

// ErrTablesMismatch is returned (wrapped) by ReadTables when runs.arrow and
// curves.arrow were not written together by one collect.
var ErrTablesMismatch = errors.New("runs.arrow and curves.arrow are not one collect's pair")

// ReadTables reads DIR/runs.arrow and DIR/curves.arrow after checking that
// both match DIR/tables.json, i.e. that one collect wrote them together;
// each curve row's GroupID is its run's (curves.arrow has no group_id).
// A missing tables.json or a mismatch is an error wrapping
// ErrTablesMismatch that names the file and says to run `run collect`.
func ReadTables(dir string) ([]RunRecord, []CurvePoint, error) {
	if err := CheckTables(dir); err != nil {
		return nil, nil, err
	}
	runs, err := ReadRuns(filepath.Join(dir, RunsFile))
	if err != nil {
		return nil, nil, err
	}
	curves, err := ReadCurves(filepath.Join(dir, CurvesFile))
	if err != nil {
		return nil, nil, err
	}
	group := make(map[string]string, len(runs))
	for i := range runs {
		group[runs[i].RunID] = runs[i].GroupID
	}
	for i := range curves {
		g, ok := group[curves[i].RunID]
		if !ok {
			return nil, nil, fmt.Errorf("%s: run %s is not in %s (%w)", filepath.Join(dir, CurvesFile), curves[i].RunID, RunsFile, ErrTablesMismatch)
		}
		curves[i].GroupID = g
	}
	return runs, curves, nil
}

// ReadFinal reads DIR/runs.arrow after checking it against tables.json
// (as ReadTables does) and returns, besides the runs, the last checkpoint
// of each done run from its record (FinalPoints): what a summary of the
// final regrets needs, without reading curves.arrow.
func ReadFinal(dir string) ([]RunRecord, []CurvePoint, error) {
	if err := CheckTables(dir); err != nil {
		return nil, nil, err
	}
	runs, err := ReadRuns(filepath.Join(dir, RunsFile))
	if err != nil {
		return nil, nil, err
	}
	return runs, FinalPoints(runs), nil
}

// FinalPoints returns the curves.arrow row of the last checkpoint of each
// done run, from its record (rounds, pseudo_regret, realised_regret,
// syncs: the values of its curve's last point).
func FinalPoints(runs []RunRecord) []CurvePoint {
	var pts []CurvePoint
	for i := range runs {
		r := &runs[i]
		if r.Status != StatusDone || r.Rounds == 0 {
			continue
		}
		pts = append(pts, Derive(r, Point{Round: int64(r.Rounds), Pseudo: r.PseudoRegret, Realised: r.RealisedRegret, Syncs: r.Syncs}))
	}
	return pts
}

// CheckTables checks DIR/runs.arrow and DIR/curves.arrow against
// DIR/tables.json (see ReadTables).
func CheckTables(dir string) error {
	again := fmt.Sprintf("run `run collect %s` to write both tables again from the run files", dir)
	p := filepath.Join(dir, TablesFile)
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		if _, rerr := os.Stat(filepath.Join(dir, RunsFile)); rerr != nil {
			return fmt.Errorf("%s: no %s: %w (run collect first)", dir, RunsFile, rerr)
		}
		return fmt.Errorf("%s: %w: no %s records that they were written together (an older or interrupted collect); %s", dir, ErrTablesMismatch, TablesFile, again)
	}
	if err != nil {
		return err
	}
	var rec tablesRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return fmt.Errorf("%s: %w; %s", p, err, again)
	}
	if rec.Runs.File != RunsFile || rec.Curves.File != CurvesFile {
		return fmt.Errorf("%s: names tables %q and %q, want %q and %q; %s", p, rec.Runs.File, rec.Curves.File, RunsFile, CurvesFile, again)
	}
	for _, want := range []tableDigest{rec.Runs, rec.Curves} {
		got, err := fileDigest(filepath.Join(dir, want.File))
		if err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("%s: %w: %s is %d bytes with SHA-256 %.12s, %s records %d bytes with %.12s (a collect that failed half-way, or a table copied from elsewhere); %s",
				dir, ErrTablesMismatch, want.File, got.Bytes, got.SHA256, TablesFile, want.Bytes, want.SHA256, again)
		}
	}
	return nil
}

// fileDigest hashes a file without holding it in memory.
func fileDigest(path string) (tableDigest, error) {
	f, err := os.Open(path)
	if err != nil {
		return tableDigest{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return tableDigest{}, fmt.Errorf("read %s: %w", path, err)
	}
	return tableDigest{File: filepath.Base(path), Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// checkStagedRows counts the rows of the staged tables (runs.arrow,
// curves.arrow, runs.parquet, curves.parquet, in writeTables' order) as a
// reader finds them and compares them with what the collect read: runs
// records and rows curve rows, in the record batches batches (tables.json's
// list). A table that lost or gained a row (at a record-batch or row-group
// boundary, say) is an error naming it.
func checkStagedRows(staged []string, runs, rows int64, batches []CurveBatch) error {
	arrowRows := func(path string) ([]int64, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		r, err := ipc.NewFileReader(f, ipc.WithMetadataSizeLimit(st.Size()), ipc.WithBodySizeLimit(st.Size()))
		if err != nil {
			return nil, err
		}
		defer r.Close()
		var out []int64
		for b := 0; b < r.NumRecords(); b++ {
			rec, err := r.RecordBatch(b)
			if err != nil {
				return nil, fmt.Errorf("record batch %d: %w", b, err)
			}
			if rec.NumRows() > 0 { // a table of no rows has one empty batch
				out = append(out, rec.NumRows())
			}
		}
		return out, nil
	}
	parquetRows := func(path string) (int64, error) {
		f, err := os.Open(path)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return 0, err
		}
		pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
		if err != nil {
			return 0, err
		}
		return pf.NumRows(), nil
	}
	sum := func(xs []int64) (n int64) {
		for _, x := range xs {
			n += x
		}
		return n
	}
	rb, err := arrowRows(staged[0])
	if err != nil {
		return fmt.Errorf("read back %s: %w", RunsFile, err)
	}
	if got := sum(rb); got != runs {
		return fmt.Errorf("%s holds %d rows for the %d run files read", RunsFile, got, runs)
	}
	cb, err := arrowRows(staged[1])
	if err != nil {
		return fmt.Errorf("read back %s: %w", CurvesFile, err)
	}
	if got := sum(cb); got != rows {
		return fmt.Errorf("%s holds %d rows, the run files read %d", CurvesFile, got, rows)
	}
	if len(cb) != len(batches) {
		return fmt.Errorf("%s has %d record batches, %s would list %d", CurvesFile, len(cb), TablesFile, len(batches))
	}
	for i, b := range batches {
		if cb[i] != int64(b.Rows) {
			return fmt.Errorf("%s: record batch %d holds %d rows, %s would say %d", CurvesFile, i, cb[i], TablesFile, b.Rows)
		}
	}
	for _, t := range []struct {
		i    int
		name string
		want int64
	}{{2, RunsParquetFile, runs}, {3, CurvesParquetFile, rows}} {
		got, err := parquetRows(staged[t.i])
		if err != nil {
			return fmt.Errorf("read back %s: %w", t.name, err)
		}
		if got != t.want {
			return fmt.Errorf("%s holds %d rows, the run files read %d", t.name, got, t.want)
		}
	}
	return nil
}
