//go:build amd64 && !purego

package vec

import "fmt"

// normalizeAsm is normalizeGo by the assembly kernel (normalize_amd64.s),
// after checking the slices' lengths (the kernel has no bounds checks of
// its own).
func normalizeAsm(x, mu, z []float64, nb int, theta []float64) {
	d := len(theta)
	if nb < 0 || d < 2 || len(x) < PanelLen(nb*Lanes, d) || len(mu) < nb*Lanes || len(z) < nb*Lanes*(d-1) {
		panic(fmt.Sprintf("vec: Normalize with nb = %d, d = %d, len(x) = %d, len(mu) = %d, len(z) = %d", nb, d, len(x), len(mu), len(z)))
	}
	if nb == 0 {
		return
	}
	normalizeAVX2(x, mu, z, nb, theta)
}

// normalizeAVX2 is the assembly kernel. It requires nb >= 1 and the
// lengths checked by normalizeAsm.
//
//go:noescape
func normalizeAVX2(x, mu, z []float64, nb int, theta []float64)
