// Package atomicfile publishes files so that readers see either the previous
// content or the complete new content, never a partial file, even after a
// crash or SIGKILL. Every stage that writes results (lasso and partition
// artifacts, run files, tables, figures) goes through it.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// TempSuffix ends the name of every file being written. Readers never open
// such files; a crash can leave them behind, and they are harmless.
const TempSuffix = ".tmp"

// WriteFileAtomic publishes a file so that readers see either the previous
// content or the complete new content, never a partial file, even after a
// crash or SIGKILL: write creates a temp file in the same directory
// ("<name>.<random>.tmp"), the data is written by write and fsynced, the
// temp file is renamed over path and the directory is fsynced so that the
// rename is durable. On error the temp file is removed.
func Write(path string, write func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := disk.CreateTemp(dir, base+".*"+TempSuffix)
	if err != nil {
		return fmt.Errorf("publish %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			disk.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return fmt.Errorf("publish %s: write: %w", path, err)
	}
	if err = f.Chmod(0o644); err != nil {
		return fmt.Errorf("publish %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("publish %s: fsync: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("publish %s: close: %w", path, err)
	}
	if err = disk.Rename(tmp, path); err != nil {
		return fmt.Errorf("publish %s: rename: %w", path, err)
	}
	return disk.SyncDir(dir)
}

// tempFile is the part of *os.File that Write uses.
type tempFile interface {
	io.Writer
	Name() string
	Chmod(mode os.FileMode) error
	Sync() error
	Close() error
}

// fileSystem is what Write does to the disk: the operating system in
// production; tests substitute a recorder to check the order of the
// steps (write, fsync, close, rename, fsync of the directory) and what a
// failing step leaves behind.
type fileSystem interface {
	CreateTemp(dir, pattern string) (tempFile, error)
	Rename(oldpath, newpath string) error
	Remove(name string) error
	SyncDir(dir string) error
}

// osDisk is the real file system.
type osDisk struct{}

func (osDisk) CreateTemp(dir, pattern string) (tempFile, error) { return os.CreateTemp(dir, pattern) }
func (osDisk) Rename(oldpath, newpath string) error             { return os.Rename(oldpath, newpath) }
func (osDisk) Remove(name string) error                         { return os.Remove(name) }
func (osDisk) SyncDir(dir string) error                         { return syncDir(dir) }

// disk is the file system Write uses.
var disk fileSystem = osDisk{}

// syncDir fsyncs a directory so that a rename inside it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("fsync dir %s: %w", dir, err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	// Some file systems do not support fsync on directories; the rename
	// itself has happened, so that is not an error worth failing a sweep.
	if err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("fsync dir %s: %w", dir, err)
	}
	return nil
}

// SyncDir fsyncs directory dir so that renames inside it are durable, as
// Write does after its rename: for callers that rename several staged
// files themselves (outputs' tables) and then make the renames durable.
// A file system that does not support fsync on directories is not an
// error.
func SyncDir(dir string) error { return disk.SyncDir(dir) }

// WriteFile publishes b at path with Write, creating path's directory first
// if needed.
func WriteFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("publish %s: %w", path, err)
	}
	return Write(path, func(w io.Writer) error { _, err := w.Write(b); return err })
}
