//go:build !amd64 || purego

package ziggurat

// Assembly returns the portable kernel and false: there is no assembly
// kernel for this architecture (or the purego build tag is set).
func Assembly() (Kernel, bool) { return Portable(), false }
