//go:build amd64 && !purego

package federate

import (
	"fmt"
	"testing"
)

// withKernels runs f with every kernel variable set to the assembly
// kernels (asm) or to their Go twins, and restores the variables after.
func withKernels(asm bool, f func()) {
	u, z, n, a, o, l := ucbScores, zigFast, normalize, argmaxFirst, addObs, learn
	defer func() { ucbScores, zigFast, normalize, argmaxFirst, addObs, learn = u, z, n, a, o, l }()
	if asm {
		useAsmKernels()
	} else {
		ucbScores = ucbScoresGo
		zigFast, normalize = zigFastGo, normalizeGo
		argmaxFirst = argmaxFirstGo
		addObs, learn = addObsGo, learnGo
	}
	f()
}

// TestKernelDispatch: on a machine with AVX2 and FMA every kernel
// variable holds its assembly kernel after init (a kernel left on its Go
// twin would pass every bit-identity test unnoticed, only slower).
func TestKernelDispatch(t *testing.T) {
	skipWithoutAVX2(t)
	same := func(a, b any) bool { return fmt.Sprintf("%p", a) == fmt.Sprintf("%p", b) }
	for name, ok := range map[string]bool{
		"ucbScores":   same(ucbScores, ucbScoresAsm),
		"zigFast":     same(zigFast, zigFastAsm),
		"normalize":   same(normalize, normalizeAsm),
		"argmaxFirst": same(argmaxFirst, argmaxFirstAsm),
		"addObs":      same(addObs, addObsAsm),
		"learn":       same(learn, learnAsm),
	} {
		if !ok {
			t.Errorf("%s is not the assembly kernel after init", name)
		}
	}
}
