//go:build !amd64 || purego

package federate

// useAVX2 reports whether the package's assembly kernels are in use: there
// are none for this architecture (or the purego build tag is set), so
// every kernel variable keeps its Go twin (see kernels_amd64.go).
const useAVX2 = false
