//go:build !amd64 || purego

package vec

// Assembly returns the Go twins and false: there are no assembly kernels
// for this architecture (or the purego build tag is set).
func Assembly() (Kernels, bool) { return Portable(), false }
