//go:build !amd64 || purego

package numpyrand

// useAVX2 reports whether the refill runs assembly kernels: there are none
// for this architecture (or the purego build tag is set).
const useAVX2 = false
