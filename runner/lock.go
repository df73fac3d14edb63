package runner

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/fedbandit/fedbandit/internal/dirlock"
)

// errBusy is wrapped by lockDir's error when another process holds the
// lock (not when the lock file cannot be made).
var errBusy = errors.New("busy")

// lockDir takes an exclusive advisory lock on DIR/.lock so that two sweeps
// (or a sweep and a collect) never write into the same directory at once.
// The lock disappears with the process, even after SIGKILL.
func lockDir(dir string) (func(), error) {
	unlock, err := dirlock.Lock(filepath.Join(dir, ".lock"), false)
	if errors.Is(err, dirlock.ErrLocked) {
		return nil, fmt.Errorf("lock %s: another sweep or collect holds %s (one run command writes into a directory at a time): %w", dir, filepath.Join(dir, ".lock"), errBusy)
	}
	return unlock, err
}
