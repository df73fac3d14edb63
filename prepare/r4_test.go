package prepare

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestR4_18PrepAllSaysRunIngestFirst: prep all on a Parquet input whose
// label column has another name does not recommend a flag prep all lacks
// alone: it says to run prep ingest with the column flags first.
func TestR4_18PrepAllSaysRunIngestFirst(t *testing.T) {
	type row struct {
		QID int64   `parquet:"query_id"`
		Rel int32   `parquet:"relevance"`
		F1  float64 `parquet:"f1"`
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "renamed.parquet")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[row](f)
	w.Write([]row{{1, 0, 0.5}, {1, 1, 1.5}})
	w.Close()
	f.Close()
	_, err = Run(t.Context(), Options{Inputs: []string{in}, Out: filepath.Join(dir, "ds")})
	if err == nil || !strings.Contains(err.Error(), `column "label"`) || !strings.Contains(err.Error(), "prep all takes no column flags: run `prep ingest INPUT --label-column") {
		t.Errorf("prep all: %v", err)
	}
}
