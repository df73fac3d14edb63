package outputs

import (
	"io"

	"github.com/fedbandit/fedbandit/internal/atomicfile"
)

// TempSuffix ends the name of every file being written. Readers never open
// such files; a crash can leave them behind, and they are harmless.
const TempSuffix = atomicfile.TempSuffix

// WriteFileAtomic publishes a file so that readers see either the previous
// content or the complete new content, never a partial file: see
// atomicfile.Write (temp file in the same directory, fsync, rename, fsync of
// the directory; the temp file is removed on error).
func WriteFileAtomic(path string, write func(w io.Writer) error) error {
	return atomicfile.Write(path, write)
}
