package outputs

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// RunFile is a validated per-run file: its record (its curve is read
// again when needed, so that a scan holds no curve in memory).
type RunFile struct {
	Record RunRecord
	// Points is the number of checkpoints of its curve.
	Points int
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

// ScanRuns reads and validates every per-run file in DIR/runs, keeping
// their records (not their curves). A missing directory is an empty scan.
// A file of a newer layout than this build reads is an error wrapping a
// *NewerLayoutError (the scan stops: the directory belongs to a newer
// release), not an invalid file.
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
		rec, pts, err := readRunAs(p, id)
		if _, newer := errors.AsType[*NewerLayoutError](err); newer {
			// Not damaged: from a newer release. Neither read it nor
			// let anyone move it aside.
			return nil, fmt.Errorf("scan runs: %w", err)
		}
		if err != nil {
			s.Invalid = append(s.Invalid, InvalidFile{p, err})
			continue
		}
		s.Runs = append(s.Runs, RunFile{*rec, len(pts)})
	}
	return s, nil
}

// readRunAs is ReadRun of the file of run id.
func readRunAs(path, id string) (*RunRecord, []Point, error) {
	rec, pts, err := ReadRun(path)
	if err == nil && rec.RunID != id {
		err = fmt.Errorf("run file %s holds run %s", path, rec.RunID)
	}
	return rec, pts, err
}

// CollectSummary counts what Collect wrote.
type CollectSummary struct {
	Runs, Done, Failed, CurveRows int
	RunsPath, CurvesPath          string
}

// Collect reads every per-run file of DIR and writes DIR/runs.arrow (one
// row per run, sorted by run id) and DIR/curves.arrow (one row per run and
// checkpoint, sorted by group_id, run id, then t) together with
// DIR/tables.json, as one commit (see WriteTables), whatever the layout
// the runs were recorded in. Invalid per-run files are an error naming
// them (rerun the sweep to redo those runs), and so is a directory with no
// run files; nothing is written then. Temp files are ignored. Call it
// while no sweep writes into dir (runner.Collect takes the directory's
// lock).
//
// Collect streams: it holds every run's record but only one record batch
// of curve rows (at most 65,536), and one run's curve, at a time, whatever
// the number of runs (CollectMemory estimates its peak).
func Collect(dir string) (*CollectSummary, error) {
	s, err := ScanRuns(dir)
	if err != nil {
		return nil, err
	}
	if len(s.Invalid) > 0 {
		var msgs []string
		for i, f := range s.Invalid {
			if i == 10 {
				msgs = append(msgs, fmt.Sprintf("and %d more", len(s.Invalid)-i))
				break
			}
			msgs = append(msgs, f.Err.Error())
		}
		return nil, fmt.Errorf("collect %s: %d invalid run file(s), nothing written (rerun the sweep that made them: it moves them aside and redoes them): %s",
			dir, len(s.Invalid), strings.Join(msgs, "; "))
	}
	if len(s.Runs) == 0 {
		return nil, fmt.Errorf("collect %s: no run files in %s: nothing to collect (is this a sweep output directory? `run sweep` writes them)", dir, filepath.Join(dir, RunsDir))
	}
	recs := make([]RunRecord, len(s.Runs))
	sum := &CollectSummary{Runs: len(recs), RunsPath: filepath.Join(dir, RunsFile), CurvesPath: filepath.Join(dir, CurvesFile)}
	for i, f := range s.Runs {
		recs[i] = f.Record
		sum.CurveRows += f.Points
		if f.Record.Status == StatusDone {
			sum.Done++
		} else {
			sum.Failed++
		}
	}
	curves := func(emit func([]CurvePoint) error) error {
		var rows []CurvePoint
		for _, i := range curveOrder(recs) {
			rec, pts, err := readRunAs(RunPath(dir, recs[i].RunID), recs[i].RunID)
			if err != nil {
				return fmt.Errorf("collect %s: %w (nothing written)", dir, err)
			}
			rows = rows[:0]
			for _, p := range pts {
				rows = append(rows, Derive(rec, p))
			}
			if err := emit(rows); err != nil {
				return err
			}
		}
		return nil
	}
	if err := writeTables(dir, recs, curves); err != nil {
		return nil, err
	}
	return sum, nil
}

// curveOrder returns the indices of recs in curves.arrow's order: by
// group_id, then run id.
func curveOrder(recs []RunRecord) []int {
	idx := make([]int, len(recs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(recs[a].GroupID, recs[b].GroupID), cmp.Compare(recs[a].RunID, recs[b].RunID))
	})
	return idx
}

// CollectMemory estimates the peak memory (bytes, resident) of `run
// collect` over runs runs of at most points checkpoints each: the
// runtime's base, every run's record (held twice: the scan, then the
// manifest's), its runs.arrow row, one record batch of curve rows and one
// run's curve; then the Parquet copies (WriteParquet): runs.parquet's one
// row group and one record batch of curves.arrow read back with its row
// group. Calibrated on generated directories (GenerateRuns) with
// /usr/bin/time -v; outputs/README.md, "Collect at scale".
//
// A batch holds at most curveBatchRows rows, fewer when the runs have
// fewer in all: a collect of 2 to 8 short runs measured 31-32 MiB, not
// the 85 MiB of full batches; 20,000 runs of 11 checkpoints 299 MiB, so
// 8 KiB a run (30,000 runs of 1,000 checkpoints, 217 MB, are then
// estimated at 343 MiB); 100 runs of 100,001 checkpoints 143-252 MiB
// from one run to the next (the garbage collector's timing), estimated
// at 185 MiB (BENCHMARKS.md, "Estimates against measurements").
func CollectMemory(runs, points int) int64 {
	const (
		base     = 28 << 20 // runtime, Arrow allocator, file buffers
		perRun   = 8192     // records, manifest entries, runs.arrow and runs.parquet rows
		perRow   = 160      // a curve row in the batch builder (10 columns, 2 ids)
		perPoint = 400      // a read point: the file, Arrow buffers, decoded values
	)
	rows := min(int64(curveBatchRows), int64(runs)*int64(points))
	batch := 2 * rows * perRow   // the batch and the builder's growth
	parquet := 2 * rows * perRow // a batch read back and its Parquet row group
	// The batches and a run's curve are remade run after run: their
	// garbage lets the heap grow to twice them between collections.
	return base + int64(runs)*perRun + 2*(batch+parquet+int64(points)*perPoint)
}
