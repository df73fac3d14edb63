// Package dirlock takes advisory locks on files, so that two processes
// never write the same output at once. A lock disappears with its process,
// even after SIGKILL: nothing stale is ever left to clean up.
package dirlock

// Lock takes an exclusive lock on the file at path (created if needed).
// With wait false it fails at once when another process holds the lock;
// otherwise it waits for it. It returns the function that releases it.
func Lock(path string, wait bool) (unlock func(), err error) {
	return lock(path, wait)
}
