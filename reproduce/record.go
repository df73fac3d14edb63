package reproduce

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fedbandit/fedbandit/internal/atomicfile"
)

// Files of a reproduction directory.
const (
	// Marker marks a directory written by `run reproduce`: it writes
	// only into a missing or empty directory (then creates the marker)
	// or one holding it.
	Marker = ".fedbandit-reproduce"
	// RecordFile is the Record of the reproduction, written at run time.
	RecordFile = "reproduce.json"
	// ReportFile is the generated report.
	ReportFile = "REPORT.md"
	// SweepsDir holds the sweep file each experiment ran (or that its
	// Slurm array runs).
	SweepsDir = "sweeps"
	// FiguresDir, beside REPORT.md, holds a copy of every PNG figure the
	// report shows, named EXPERIMENT-FILE.png: its links point there, so
	// that REPORT.md copied with the folder (docs/reproduction.md and
	// docs/reproduction/, CopyReport) shows its figures. The SVGs stay in
	// the experiments' results directories.
	FiguresDir = "reproduction"
)

// Record is what a reproduction records at run time, so that the report
// regenerated from the same directory is the same bytes: the command,
// the commit and the machine, and per experiment what ran and its cost.
type Record struct {
	Command string `json:"command"`
	Commit  string `json:"commit"`
	Machine string `json:"machine"`
	Scale   string `json:"scale"`
	// MSLR is the --mslr directory ("" when the MQ2008 stand-in ran).
	MSLR        string      `json:"mslr"`
	Experiments []ExpRecord `json:"experiments"`
}

// ExpRecord is one experiment of a reproduction.
type ExpRecord struct {
	Name string `json:"name"`
	// Dir is its results directory, relative to the reproduction's
	// ("": not run).
	Dir string `json:"dir"`
	// NotRun says why it did not run ("": it ran).
	NotRun  string `json:"not_run,omitempty"`
	StandIn bool   `json:"stand_in,omitempty"`
	Runs    int    `json:"runs"`
	// CPUSeconds and WallSeconds add up every invocation's time spent
	// on the experiment (a resumed one adds only what it ran).
	CPUSeconds  float64 `json:"cpu_seconds"`
	WallSeconds float64 `json:"wall_seconds"`
}

// Find returns the record of the experiment named, or nil.
func (r *Record) Find(name string) *ExpRecord {
	for i := range r.Experiments {
		if r.Experiments[i].Name == name {
			return &r.Experiments[i]
		}
	}
	return nil
}

// ReadRecord reads DIR/reproduce.json.
func ReadRecord(dir string) (*Record, error) {
	b, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if err != nil {
		return nil, fmt.Errorf("%s is not a reproduction directory (written by `run reproduce`): %w", dir, err)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, RecordFile), err)
	}
	return &r, nil
}

// WriteRecord writes DIR/reproduce.json atomically.
func WriteRecord(dir string, r *Record) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, RecordFile), append(b, '\n'))
}
