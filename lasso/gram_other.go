//go:build !amd64 || purego

package lasso

// gramTileKernel is gramTile without the bounds checks.
func gramTileKernel(c []float64, ldc int, a, b []float64, rows int) {
	gramTileGo(c, ldc, a, b, rows)
}
