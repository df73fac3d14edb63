package outputs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// RunPath returns DIR/runs/<id>.arrow.
func RunPath(dir, id string) string {
	return filepath.Join(dir, RunsDir, id+".arrow")
}

// RunIDFromName returns the run id of a per-run file name "<id>.arrow",
// where id is 64 lower-case hex digits, and false for any other name
// (temp files, notes, ...).
func RunIDFromName(name string) (string, bool) {
	id, ok := strings.CutSuffix(name, ".arrow")
	if !ok || len(id) != 64 {
		return "", false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", false
		}
	}
	return id, true
}

// RunFile is a validated per-run file.
type RunFile struct {
	Record RunRecord
	Points []Point
}

// InvalidFile is a per-run file that failed validation (truncated,
// corrupted, foreign, or named for another run). A file of a newer
// layout is never invalid: ScanRuns refuses the directory instead.
type InvalidFile struct {
	Path string
	Err  error
}

// Scan is the content of DIR/runs.
type Scan struct {
	// Runs holds every valid per-run file, sorted by run id.
	Runs []RunFile
	// Invalid lists files named like a run that could not be read.
	Invalid []InvalidFile
	// Ignored lists other files (temp files left by a crash, ...), which
	// are never read.
	Ignored []string
}

// ScanRuns reads and validates every per-run file in DIR/runs. A missing
// directory is an empty scan. A file of a newer layout than this build
// reads is an error wrapping a *NewerLayoutError (the scan stops: the
// directory belongs to a newer release), not an invalid file.
func ScanRuns(dir string) (*Scan, error) {
	rd := filepath.Join(dir, RunsDir)
	entries, err := os.ReadDir(rd)
	if errors.Is(err, os.ErrNotExist) {
		return &Scan{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("scan runs: %w", err)
	}
	s := &Scan{}
	for _, e := range entries { // os.ReadDir sorts by name, hence by id
		p := filepath.Join(rd, e.Name())
		id, ok := RunIDFromName(e.Name())
		if !ok || !e.Type().IsRegular() {
			s.Ignored = append(s.Ignored, p)
			continue
		}
		rec, pts, err := ReadRun(p)
		if _, newer := errors.AsType[*NewerLayoutError](err); newer {
			// Not damaged: from a newer release. Neither read it nor
			// let anyone move it aside.
			return nil, fmt.Errorf("scan runs: %w", err)
		}
		if err == nil && rec.RunID != id {
			err = fmt.Errorf("run file %s holds run %s", p, rec.RunID)
		}
		if err != nil {
			s.Invalid = append(s.Invalid, InvalidFile{p, err})
			continue
		}
		s.Runs = append(s.Runs, RunFile{*rec, pts})
	}
	return s, nil
}

// CollectSummary counts what Collect wrote.
type CollectSummary struct {
	Runs, Done, Failed, CurveRows int
	RunsPath, CurvesPath          string
}

// Collect reads every per-run file of DIR and writes DIR/runs.arrow (one
// row per run, sorted by run id) and DIR/curves.arrow (one row per run and
// checkpoint, sorted by run id then round) together with DIR/tables.json,
// as one commit (WriteTables). Invalid per-run files are an
// error naming them (rerun the sweep to redo those runs), and so is a
// directory with no run files (nothing is written then); temp files are
// ignored. Call it while no sweep writes into dir (runner.Collect takes the
// directory's lock).
func Collect(dir string) (*CollectSummary, error) {
	s, err := ScanRuns(dir)
	if err != nil {
		return nil, err
	}
	if len(s.Invalid) > 0 {
		msgs := make([]string, len(s.Invalid))
		for i, f := range s.Invalid {
			msgs[i] = f.Err.Error()
		}
		return nil, fmt.Errorf("collect %s: %d invalid run file(s) (rerun the sweep that made them: it moves them aside and redoes them): %s",
			dir, len(s.Invalid), strings.Join(msgs, "; "))
	}
	if len(s.Runs) == 0 {
		return nil, fmt.Errorf("collect %s: no run files in %s: nothing to collect (is this a sweep output directory? `run sweep` writes them)", dir, filepath.Join(dir, RunsDir))
	}
	recs, curves := Tables(s.Runs)
	sum := &CollectSummary{
		Runs:       len(recs),
		CurveRows:  len(curves),
		RunsPath:   filepath.Join(dir, RunsFile),
		CurvesPath: filepath.Join(dir, CurvesFile),
	}
	for _, r := range recs {
		if r.Status == StatusDone {
			sum.Done++
		} else {
			sum.Failed++
		}
	}
	if err := WriteTables(dir, recs, curves); err != nil {
		return nil, err
	}
	return sum, nil
}

// Tables turns per-run files into the rows of runs.arrow and curves.arrow,
// sorted by run id (then round).
func Tables(runs []RunFile) ([]RunRecord, []CurvePoint) {
	runs = append([]RunFile(nil), runs...)
	sort.Slice(runs, func(i, j int) bool { return runs[i].Record.RunID < runs[j].Record.RunID })
	recs := make([]RunRecord, len(runs))
	var curves []CurvePoint
	for i, r := range runs {
		recs[i] = r.Record
		for _, p := range r.Points {
			curves = append(curves, Derive(r.Record.RunID, r.Record.M, p))
		}
	}
	return recs, curves
}
