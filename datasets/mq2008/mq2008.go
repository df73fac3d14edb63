// Package mq2008 embeds the complete real LETOR 4.0 MQ2008 dataset (five
// partitions S1..S5, 15,211 documents, 784 queries, 46 features), so that the
// main job and the tests run on real data on a fresh machine with no
// download. See SOURCE.md for provenance and checksums.
package mq2008

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"

	"github.com/fedbandit/fedbandit/internal/atomicfile"
)

// FS holds S1.txt .. S5.txt and SOURCE.md.
//
//go:embed S1.txt S2.txt S3.txt S4.txt S5.txt SOURCE.md
var FS embed.FS

// Partitions are the file names of the five partitions, in order.
var Partitions = []string{"S1.txt", "S2.txt", "S3.txt", "S4.txt", "S5.txt"}

// Totals of the complete set, as published and verified in SOURCE.md.
const (
	Rows     = 15211
	Queries  = 784
	Features = 46
)

// Extract writes the five partitions and SOURCE.md into dir (created if
// needed) and returns the partition paths in order. Existing identical
// files are rewritten; the result is always the embedded bytes. Concurrent
// calls on the same dir are safe.
func Extract(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("mq2008: %w", err)
	}
	var paths []string
	for _, name := range append(append([]string{}, Partitions...), "SOURCE.md") {
		b, err := FS.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("mq2008: read embedded %s: %w", name, err)
		}
		p := filepath.Join(dir, name)
		if err := atomicfile.WriteFile(p, b); err != nil {
			return nil, fmt.Errorf("mq2008: %w", err)
		}
		if name != "SOURCE.md" {
			paths = append(paths, p)
		}
	}
	return paths, nil
}
