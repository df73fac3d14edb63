package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/fedbandit/fedbandit/ingest"
	"github.com/fedbandit/fedbandit/outputs"
)

// ResultsMarker is the file that marks a directory as a results directory
// written by `run` (sweep, task, collect, slurm, audit). `run` writes only
// into a directory that is missing or empty (it then creates the marker)
// or that holds the marker; it refuses any other directory, so that a
// dataset directory (prep's manifest.json), a project folder or a home
// directory is never overwritten. prep refuses to write into, or read a
// dataset from, a directory holding the marker, and run refuses prep's
// datasets (their manifest is not run's), so the two kinds can never be
// mistaken for each other. The name is ingest's, the lower layer.
const ResultsMarker = ingest.ResultsMarker

// markerText is the marker's content (only its existence is checked).
const markerText = "This directory holds fedbandit results written by `run` (sweep, task, collect, slurm, audit).\n" +
	"`run` writes only into directories carrying this file; do not copy it into other directories.\n"

// ErrNotOwned is returned (wrapped) when a directory exists, is not empty
// and does not hold the ResultsMarker.
var ErrNotOwned = errors.New("not a results directory written by run")

// ClaimDir prepares dir to receive results: it creates a missing
// directory (and its parents), adopts an empty one, and accepts one that
// holds the ResultsMarker; in the first two cases it writes the marker.
// Any other directory is refused with an error wrapping ErrNotOwned that
// names it and says what to do; nothing is written then. Concurrent
// claims of the same directory (the tasks of an array) all succeed.
func ClaimDir(dir string) error {
	if err := CheckOwned(dir); err == nil {
		return nil
	} else if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, errEmpty) {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	// Not atomic on purpose: a concurrent claim must never see a temp
	// file (it would find the directory neither empty nor marked). Only
	// the marker's existence is ever checked.
	if err := os.WriteFile(filepath.Join(dir, ResultsMarker), []byte(markerText), 0o644); err != nil {
		return fmt.Errorf("mark output directory: %w", err)
	}
	return nil
}

// errEmpty marks an existing empty directory in CheckOwned.
var errEmpty = errors.New("empty directory")

// CheckOwned returns nil if dir holds the ResultsMarker. Otherwise it
// returns an error wrapping os.ErrNotExist (no such directory), errEmpty
// (an empty directory) or ErrNotOwned (anything else), naming dir.
func CheckOwned(dir string) error {
	st, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		// A symbolic link to nothing: MkdirAll would fail on it with
		// "file exists" (attack round 3, U15); it is not ours to follow.
		if target, lerr := os.Readlink(dir); lerr == nil {
			return fmt.Errorf("output directory %s: %w: it is a symbolic link to %s, which does not exist (create that directory, or give another --out)", dir, ErrNotOwned, target)
		}
	}
	if err != nil {
		return fmt.Errorf("output directory %s: %w", dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("output directory %s: %w: it is a file", dir, ErrNotOwned)
	}
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("output directory %s: %w", dir, err)
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("output directory %s: %w", dir, errEmpty)
	}
	if err != nil {
		return fmt.Errorf("output directory %s: %w", dir, err)
	}
	// Checked after listing: a concurrent claim may create the marker
	// at any time (it is never removed), so a listing that is not empty
	// because of it is followed by a stat that sees it.
	if _, err := os.Stat(filepath.Join(dir, ResultsMarker)); err == nil {
		return nil
	}
	if legacyResults(dir) {
		// A results directory of a release before the marker: adopt it,
		// so that it resumes and collects like any other.
		if err := os.WriteFile(filepath.Join(dir, ResultsMarker), []byte(markerText), 0o644); err != nil {
			return fmt.Errorf("mark output directory: %w", err)
		}
		return nil
	}
	what := fmt.Sprintf("it is not empty (e.g. %s)", names[0]) // the entry listed above
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
		what = "it holds a manifest.json that run did not write (a prepared dataset? a project folder?)"
	}
	return fmt.Errorf("refusing to write into %s: %w: %s and has no %s marker. "+
		"Give --out a new or empty directory. If it is a results directory made by an older fedbandit, mark it with `touch %s`",
		dir, ErrNotOwned, what, ResultsMarker, filepath.Join(dir, ResultsMarker))
}

// legacyResults reports whether dir is a results directory written by a
// release before the ResultsMarker existed: a manifest.json that decodes,
// field for field, as run's own manifest (a format version of at least
// 1, a runs count and entries), beside a runs/ directory. A dataset's
// manifest (prep's schema) or any other JSON does not qualify.
func legacyResults(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var m manifest
	if dec.Decode(&m) != nil || m.FormatVersion < 1 || m.Entries == nil || m.Runs != len(m.Entries) {
		return false
	}
	st, err := os.Stat(filepath.Join(dir, outputs.RunsDir))
	return err == nil && st.IsDir()
}
