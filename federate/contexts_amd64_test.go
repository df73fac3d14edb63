//go:build amd64 && !purego

package federate

import "golang.org/x/sys/cpu"

// init hands the assembly kernels to the tests of normal_test.go, which
// compare them with the portable ones.
func init() {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		zigFastAsm, normalizeAsm = zigFastAVX2, normalizeAVX2
	}
}
