//go:build !amd64.v3

package fmath

// stdFused: see stdfused_v3_test.go.
const stdFused = false
