// Package dirlock takes advisory locks on files, so that two processes
// never write the same output at once. A lock disappears with its process,
// even after SIGKILL: nothing stale is ever left to clean up.
package dirlock

// Lock takes an exclusive lock on the file at path (created if needed).
// With wait false it fails at once when another process holds the lock;
// otherwise it waits for it. It returns the function that releases it.
func Lock(path string, wait bool) (unlock func(), err error) {
	return lock(path, wait, false)
}

// LockShared takes a shared lock on the file at path: any number of
// processes may hold it together, but not while one holds the exclusive
// Lock (and Lock waits or fails while any shared holder remains). Array
// tasks writing disjoint files into one directory share it; a sweep or a
// collect that rewrites the directory's tables takes it exclusively.
func LockShared(path string, wait bool) (unlock func(), err error) {
	return lock(path, wait, true)
}
