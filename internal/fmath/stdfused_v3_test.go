//go:build amd64.v3

package fmath

// stdFused: built with GOAMD64=v3, the standard library's Go functions
// (math.Log1p, math.Expm1, math.Pow's loop) are compiled with fused
// multiply-adds, so they are not the reference TestMatchesStd compares with.
const stdFused = true
