//go:build amd64 && !purego

package lasso

import "testing"

// forEachKernel runs f with the assembly gramTile kernel (when this machine
// has AVX2 and FMA) and with the portable one.
func forEachKernel(t *testing.T, f func(t *testing.T)) {
	saved := useAVX2FMA
	defer func() { useAVX2FMA = saved }()
	if cpuHasAVX2FMA() {
		useAVX2FMA = true
		t.Run("avx2", f)
	} else {
		t.Log("no AVX2+FMA on this machine: only the portable kernel is tested")
	}
	useAVX2FMA = false
	t.Run("go", f)
}

// TestGramTileAVX2MatchesGo compares the assembly kernel with the portable
// one bit for bit, inside and around the tile (TestTileCasesDetectMutations
// shows these inputs catch wrong rounding, order, length and writes).
func TestGramTileAVX2MatchesGo(t *testing.T) {
	if !cpuHasAVX2FMA() {
		t.Skip("no AVX2+FMA on this machine")
	}
	for _, tc := range tileCases() {
		want, got := runTile(tc, gramTileGo), runTile(tc, gramTileAVX2)
		for i := range want {
			if !sameFloat(got[i], want[i]) {
				t.Fatalf("rows=%d ldc=%d special=%v: c[%d] = %v, want %v", tc.rows, tc.ldc, tc.special, i, got[i], want[i])
			}
		}
	}
}
