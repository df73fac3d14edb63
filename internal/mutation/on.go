//go:build mutation

package mutation

import (
	"flag"
	"sync/atomic"
)

// Enabled reports whether this build can inject faults (tag "mutation").
const Enabled = true

var (
	flagName = flag.String("mutation", "", "inject this fault of the privacy mutation suite (M1 ... M18)")
	set      atomic.Pointer[string]
)

// On reports whether the named fault is active: the one Set chose, else
// the one the -mutation flag names.
func On(name string) bool {
	if p := set.Load(); p != nil {
		return *p == name
	}
	return *flagName == name
}

// Set makes name the active fault ("" for none) until the returned
// function restores the previous choice.
func Set(name string) (restore func()) {
	old := set.Swap(&name)
	return func() { set.Store(old) }
}
