package outputs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/fedbandit/fedbandit/internal/atomicfile"
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

// WriteTables writes DIR/runs.arrow, DIR/curves.arrow, their Parquet
// copies DIR/runs.parquet and DIR/curves.parquet, and DIR/tables.json as
// one commit: all five are first written in full to temp files (and
// fsynced); only when every one is complete are they renamed into place,
// tables.json last. A write error (a full disk) therefore leaves the
// previous consistent pair untouched; a crash between the renames leaves a
// pair that ReadTables refuses with a message saying to collect again.
func WriteTables(dir string, recs []RunRecord, curves []CurvePoint) error {
	rb, err := EncodeRuns(recs)
	if err != nil {
		return fmt.Errorf("encode %s: %w", RunsFile, err)
	}
	cb, err := EncodeCurves(curves)
	if err != nil {
		return fmt.Errorf("encode %s: %w", CurvesFile, err)
	}
	// The Parquet copies (parquet.go), from the same bytes.
	rp, err := ParquetOf(rb)
	if err != nil {
		return fmt.Errorf("encode %s: %w", RunsParquetFile, err)
	}
	cp, err := ParquetOf(cb)
	if err != nil {
		return fmt.Errorf("encode %s: %w", CurvesParquetFile, err)
	}
	rec := tablesRecord{FormatVersion: FormatVersion, Runs: digestOf(RunsFile, rb), Curves: digestOf(CurvesFile, cb)}
	jb, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	files := []struct {
		name string
		data []byte
	}{{RunsFile, rb}, {CurvesFile, cb}, {RunsParquetFile, rp}, {CurvesParquetFile, cp}, {TablesFile, append(jb, '\n')}}
	var staged []string
	defer func() {
		for _, t := range staged {
			os.Remove(t) // no-op once renamed
		}
	}()
	for _, f := range files {
		tmp, err := stageFile(dir, f.name, f.data)
		if err != nil {
			return fmt.Errorf("write %s (the previous tables are unchanged): %w", filepath.Join(dir, f.name), err)
		}
		staged = append(staged, tmp)
	}
	for i, f := range files {
		if err := os.Rename(staged[i], filepath.Join(dir, f.name)); err != nil {
			return fmt.Errorf("publish %s: %w (run collect again)", filepath.Join(dir, f.name), err)
		}
	}
	return atomicfile.SyncDir(dir)
}

// stageFile is stage; a test replaces it to fail as a full disk does.
var stageFile = stage

// stage writes data to a fsynced temp file beside dir/name and returns its
// path.
func stage(dir, name string, data []byte) (path string, err error) {
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
	if _, err = f.Write(data); err != nil {
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
// both match DIR/tables.json, i.e. that one collect wrote them together.
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
	return runs, curves, nil
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
