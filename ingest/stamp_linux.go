//go:build linux

package ingest

import (
	"os"
	"syscall"
)

// statIdentity returns the device, inode and status-change time (ns) of a
// file. The ctime cannot be set by a user: restoring a file's
// modification time after editing it (os.Chtimes, utime) moves it.
func statIdentity(fi os.FileInfo) (dev, ino uint64, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), st.Ino, st.Ctim.Nano()
	}
	return 0, 0, 0
}
