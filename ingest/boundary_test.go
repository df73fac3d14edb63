package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// letorLine returns a LETOR 4.0 line with 46 features.
func letorLine(label, qid int, v float64) string {
	var b strings.Builder
	b.WriteString(itoa(label) + " qid:" + itoa(qid))
	for j := 1; j <= 46; j++ {
		b.WriteString(" " + itoa(j) + ":" + ftoa(v))
	}
	return b.String() + "\n"
}

// TestQIDAtFileBoundary: the same qid at the end of one input file and
// the start of the next is not one query: ingest refuses it with an
// error naming both places (datasets.md, "Queries"). The fault of merging
// them (the c.src != curSrc test in the query-boundary condition of
// ingest.go dropped) fails here.
func TestQIDAtFileBoundary(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	b := filepath.Join(dir, "b.txt")
	if err := os.WriteFile(a, []byte(letorLine(0, 4, 0.1)+letorLine(1, 5, 0.2)+letorLine(2, 5, 0.3)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte(letorLine(0, 5, 0.4)+letorLine(1, 6, 0.5)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), Options{Inputs: []string{a, b}, Out: filepath.Join(dir, "out")})
	if err == nil {
		t.Fatal("a qid split across two files was accepted")
	}
	msg := err.Error()
	if !strings.Contains(msg, "a.txt:2") || !strings.Contains(msg, "b.txt:1") || !strings.Contains(msg, "qid:5") {
		t.Errorf("error %q does not name qid:5 at a.txt:2 and b.txt:1", msg)
	}
	// Lenient mode skips the second file's qid:5 and records it.
	m, err := Run(context.Background(), Options{Inputs: []string{a, b}, Out: filepath.Join(dir, "lenient"), Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	if m.Queries != 3 || m.Rows != 4 || m.Skipped.Count != 1 {
		t.Errorf("lenient: %d queries, %d rows, %d skipped; want 3, 4, 1", m.Queries, m.Rows, m.Skipped.Count)
	}
}

func itoa(i int) string     { return strconv.Itoa(i) }
func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }
