package ingest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkLoad57(b *testing.B) {
	dir := b.TempDir()
	in := synthFile(b, dir, 500)
	out := filepath.Join(dir, "out")
	if _, err := Run(context.Background(), Options{Inputs: []string{in}, Out: out}); err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(out, DocumentsFile))
	b.ReportMetric(float64(fi.Size())/1e6, "MB")
	cols := []int{2, 4, 7, 9, 12, 14, 17, 19, 22, 24, 27, 29, 32, 34, 37, 39, 42, 44, 47, 49, 52, 54, 57, 59, 62, 64, 67, 69, 72, 74, 77, 79, 82, 84, 87, 89, 92, 94, 97, 99, 102, 104, 107, 109, 112, 114, 117, 119, 122, 124, 126, 127, 128, 129, 130, 131}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Load(out, cols); err != nil {
			b.Fatal(err)
		}
	}
}
