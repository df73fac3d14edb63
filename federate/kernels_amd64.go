//go:build amd64 && !purego

package federate

import "golang.org/x/sys/cpu"

// Every hand-written kernel of the package has a portable Go twin that
// gives the same bits, and a package variable that the hot paths call:
// ucbScores, zigFast, normalize, argmaxFirst, addObs and learn. They hold
// the Go twins (kernels_other.go, and the default everywhere); on amd64
// machines with AVX2 and FMA, init hands them the assembly kernels, once.
// Tests swap the variables to compare the two (withKernels). Building
// with -tags purego keeps the Go twins on every machine.

// useAVX2 reports whether the machine runs the assembly kernels: the CPU
// has AVX2 and FMA (and the OS saves the ymm registers, which cpu checks).
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

func init() {
	if useAVX2 {
		useAsmKernels()
	}
}

// useAsmKernels points every kernel variable at its assembly kernel.
func useAsmKernels() {
	ucbScores = ucbScoresAsm
	zigFast, normalize = zigFastAsm, normalizeAsm
	argmaxFirst = argmaxFirstAsm
	addObs, learn = addObsAsm, learnAsm
}
