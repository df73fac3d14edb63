package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ownedEntries are the top-level entries of a dataset directory that the
// pipeline itself writes: the dataset (ingest), theta* artifacts (prep fit,
// lasso.InstancesDir) and partitions (prep partition, partition.Dir). A
// directory holding anything else is never replaced by --force.
var ownedEntries = map[string]bool{
	ManifestFile:  true,
	DocumentsFile: true,
	verifiedFile:  true,
	"instances":   true,
	"partitions":  true,
}

// ResultsMarker is the file `run` puts in every results directory it
// creates (sweep, collect, slurm, task outputs). prep never writes into a
// directory holding it, and a dataset is never read from one.
const ResultsMarker = ".fedbandit-results"

// notResults returns an error when dir is a results directory of `run`.
func notResults(dir string) error {
	if _, err := os.Lstat(filepath.Join(dir, ResultsMarker)); err == nil {
		return fmt.Errorf("%s is a results directory written by `run` (it holds %s), not a dataset directory: choose another directory", dir, ResultsMarker)
	}
	return nil
}

// ForceDrops lists what replacing the dataset directory out would drop
// besides the dataset itself: its fitted theta* artifacts (instances/) and
// partitions (partitions/), as paths, sorted. Callers say so before an
// ingest with Force replaces out.
func ForceDrops(out string) []string {
	var drops []string
	for _, dir := range []string{"instances", "partitions"} {
		ents, _ := os.ReadDir(filepath.Join(out, dir))
		for _, e := range ents {
			drops = append(drops, filepath.Join(out, dir, e.Name()))
		}
	}
	sort.Strings(drops)
	return drops
}

// ownerFile, inside a temporary output directory, holds the process id of
// the ingest that created it, so that a later run can tell a leftover of a
// killed run from the work of one still running.
const ownerFile = ".owner-pid"

// checkOutput refuses an output directory whose replacement could lose
// data: one that contains (or is) an input, and, with force, one that is
// not a dataset directory written by the pipeline or that holds files the
// pipeline did not write. Without force an existing out is an error.
func checkOutput(out string, inputs []string, force bool) error {
	absOut, err := canonical(out)
	if err != nil {
		return err
	}
	for _, in := range inputs {
		absIn, err := canonical(in)
		if err != nil {
			return err
		}
		if within(absIn, absOut) {
			return fmt.Errorf("input %s lies inside the output directory %s: choose an --out outside the inputs", in, out)
		}
	}
	st, err := os.Lstat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := notResults(out); err != nil {
		return err
	}
	if isEmptyDir(out) {
		return nil // e.g. made by mkdir: nothing in it to lose
	}
	if !force {
		return fmt.Errorf("%s already exists (use --force to replace a dataset directory written by prep ingest)", out)
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(out)
		return fmt.Errorf("--force replaces only a dataset directory written by prep ingest; %s is a symbolic link (to %s): give the directory itself", out, target)
	}
	if !st.IsDir() {
		return fmt.Errorf("--force replaces only a dataset directory written by prep ingest; %s is not a directory", out)
	}
	if _, err := os.Stat(filepath.Join(out, ManifestFile)); err != nil {
		return fmt.Errorf("--force replaces only a dataset directory written by prep ingest; %s has no %s, so nothing in it is replaced", out, ManifestFile)
	}
	if b, err := os.ReadFile(filepath.Join(out, ManifestFile)); err != nil || !isDatasetManifest(b) {
		return fmt.Errorf("--force replaces only a dataset directory written by prep ingest; %s is not a dataset manifest, so nothing in %s is replaced", filepath.Join(out, ManifestFile), out)
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		return err
	}
	var foreign []string
	for _, e := range ents {
		if !ownedEntries[e.Name()] {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) > 0 {
		sort.Strings(foreign)
		return fmt.Errorf("--force would delete files that prep did not write in %s (%s): move them away or choose another --out", out, strings.Join(foreign, ", "))
	}
	return nil
}

// canonical returns the absolute path of p with symbolic links resolved.
// A path that does not exist (a new output directory) is returned
// absolute but unresolved: no input can lie inside it, so how its
// existing prefix resolves does not matter to checkOutput.
func canonical(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r, nil
	}
	return abs, nil
}

// within reports whether path p is dir or lies below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// makeTemp creates the hidden temporary directory of an ingest into out and
// records this process as its owner.
func makeTemp(out string) (string, error) {
	tmp, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	return tmp, nil
}

// cleanLeftovers removes what an earlier, killed ingest into out left
// beside it: temporary directories whose owner process is gone, and the
// previous dataset moved aside by a replacement that was interrupted
// between its two renames (it is moved back when out is missing, else
// removed). Directories of an ingest still running are left alone.
func cleanLeftovers(out string) {
	parent, base := filepath.Dir(out), filepath.Base(out)
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		p := filepath.Join(parent, name)
		switch {
		case strings.HasPrefix(name, "."+base+".tmp-") && e.IsDir():
			if abandoned(p) {
				os.RemoveAll(p)
			}
		case strings.HasPrefix(name, "."+base+".old-") && e.IsDir():
			if _, err := os.Lstat(out); errors.Is(err, fs.ErrNotExist) {
				os.Rename(p, out)
			} else if abandoned(p) {
				os.RemoveAll(p)
			}
		}
	}
}

// abandoned reports whether the temporary directory dir belongs to no
// running process: its owner pid is not alive, or (no owner file) it has
// not been touched for a minute.
func abandoned(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		st, err := os.Stat(dir)
		return err == nil && time.Since(st.ModTime()) > time.Minute
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return true
	}
	if pid == os.Getpid() {
		return false
	}
	return !processAlive(pid)
}

// isEmptyDir reports whether p is a directory (not a symbolic link) with
// no entries.
func isEmptyDir(p string) bool {
	st, err := os.Lstat(p)
	if err != nil || !st.IsDir() {
		return false
	}
	ents, err := os.ReadDir(p)
	return err == nil && len(ents) == 0
}
