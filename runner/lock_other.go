//go:build !unix

package runner

// lockDir is a no-op where advisory file locks are not available: do not
// run two sweeps into the same directory at once.
func lockDir(dir string) (func(), error) { return func() {}, nil }
