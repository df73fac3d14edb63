//go:build amd64 && !purego

package lasso

import (
	"fmt"
	"testing"
)

// forEachKernel runs f with the assembly gramTile kernel (when this machine
// has AVX2 and FMA) and with the portable one.
func forEachKernel(t *testing.T, f func(t *testing.T)) {
	saved := gramTileKernel
	defer func() { gramTileKernel = saved }()
	if cpuHasAVX2FMA() {
		gramTileKernel = gramTileAVX2
		t.Run("avx2", f)
	} else {
		t.Log("no AVX2+FMA on this machine: only the portable kernel is tested")
	}
	gramTileKernel = gramTileGo
	t.Run("go", f)
}

// TestGramDispatch: where the CPU has AVX2 and FMA, init hands
// gramTileKernel the assembly kernel.
func TestGramDispatch(t *testing.T) {
	if !cpuHasAVX2FMA() {
		t.Skip("no AVX2+FMA on this machine")
	}
	if fmt.Sprintf("%p", gramTileKernel) != fmt.Sprintf("%p", gramTileAVX2) {
		t.Error("gramTileKernel is not the assembly kernel after init")
	}
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
