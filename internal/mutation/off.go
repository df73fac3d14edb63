//go:build !mutation

package mutation

// Enabled reports whether this build can inject faults (tag "mutation").
const Enabled = false

// On reports whether the named fault is active: never in this build.
func On(string) bool { return false }
