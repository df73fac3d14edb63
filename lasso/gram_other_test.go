//go:build !amd64 || purego

package lasso

import "testing"

// forEachKernel runs f with the only gramTile kernel of this platform.
func forEachKernel(t *testing.T, f func(t *testing.T)) {
	t.Run("go", f)
}
